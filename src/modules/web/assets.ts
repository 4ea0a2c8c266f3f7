import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../platform/fs/project-root.js';

/**
 * The one place that knows where the built widget lives (dist/widget, written by
 * scripts/build.mjs and by the test setup). A packaging that keeps the files elsewhere swaps
 * this function.
 */
export function widgetAssetsDir(): string {
  return path.join(projectRoot(), 'dist', 'widget');
}

export interface WidgetFile {
  body: Buffer;
  /** strong validator: a hash of the bytes */
  etag: string;
}

export interface WidgetAssets {
  /** /widget.js, the loader the embed snippet names */
  loader: WidgetFile;
  /** the widget itself, served as /widget-<hash>.js */
  bundle: WidgetFile & { hash: string; fileName: string };
}

function file(dir: string, name: string): WidgetFile {
  const body = readFileSync(path.join(dir, name));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Reads the built widget; throws when it was never built. */
export function loadWidgetAssets(dir = widgetAssetsDir()): WidgetAssets {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { loader: string; bundle: string; hash: string };
  return { loader: file(dir, manifest.loader), bundle: { ...file(dir, manifest.bundle), hash: manifest.hash, fileName: manifest.bundle } };
}
