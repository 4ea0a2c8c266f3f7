import { readdirSync } from 'node:fs';
import path from 'node:path';
import { staticDir } from '../../platform/assets.js';
import { loadStaticBody, type StaticBody } from '../../platform/http/static-file.js';

/**
 * The one place that knows where the built admin UI lives: dist/admin (index.html and
 * assets/<name>-<hash>.<ext>), written by scripts/build-admin.mjs. The single executable unpacks
 * dist/ to a directory of the same layout, which staticDir() points at.
 */
export function adminAssetsDir(): string {
  return staticDir('admin');
}

/** The bytes, their strong ETag, the .br/.gz variants the build wrote beside them, and the type. */
export interface StaticFile extends StaticBody {
  contentType: string;
}

export interface AdminAssets {
  index: StaticFile;
  /** the service worker, served at /sw.js */
  sw: StaticFile;
  /** hashed files under assets/, by file name */
  files: Map<string, StaticFile>;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
};

function load(file: string): StaticFile {
  return {
    ...loadStaticBody(file),
    contentType:
      path.extname(file) === '.html'
        ? 'text/html; charset=utf-8'
        : (TYPES[path.extname(file)] ?? 'application/octet-stream'),
  };
}

/** Reads the whole built UI into memory (about 100 KB); throws when it was never built. */
export function loadAdminAssets(dir = adminAssetsDir()): AdminAssets {
  const index = load(path.join(dir, 'index.html'));
  const sw = load(path.join(dir, 'sw.js'));
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(path.join(dir, 'assets'))) {
    // source maps stay on disk for debugging; only what the page loads is served (the .br/.gz
    // variants beside a file are loaded with it)
    if (Object.hasOwn(TYPES, path.extname(name))) files.set(name, load(path.join(dir, 'assets', name)));
  }
  return { index, sw, files };
}
