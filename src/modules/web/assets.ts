import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../platform/fs/project-root.js';
import { loadStaticBody, type StaticBody } from '../../platform/http/static-file.js';

/**
 * The one place that knows where the built widget lives (dist/widget, written by
 * scripts/build.mjs and by the test setup). A packaging that keeps the files elsewhere swaps
 * this function.
 */
export function widgetAssetsDir(): string {
  return path.join(projectRoot(), 'dist', 'widget');
}

/** The bytes, their strong ETag, and the .br/.gz variants the build wrote beside them. */
export type WidgetFile = StaticBody;

export interface WidgetAssets {
  /** /widget.js, the loader the embed snippet names */
  loader: WidgetFile;
  /** the widget itself, served as /widget-<hash>.js */
  bundle: WidgetFile & { hash: string; fileName: string };
}

/** Reads the built widget; throws when it was never built. */
export function loadWidgetAssets(dir = widgetAssetsDir()): WidgetAssets {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    loader: string;
    bundle: string;
    hash: string;
  };
  return {
    loader: loadStaticBody(path.join(dir, manifest.loader)),
    bundle: { ...loadStaticBody(path.join(dir, manifest.bundle)), hash: manifest.hash, fileName: manifest.bundle },
  };
}
