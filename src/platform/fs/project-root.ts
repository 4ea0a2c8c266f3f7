import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningAsSea, seaAssetRoot } from './sea-assets.js';

/**
 * The folder holding package.json and migrations/. Found by walking up from this file, so the
 * same code works from src/ (tests, tsx) and from the bundle in dist/. In the single executable it
 * is the unpacked asset dir, which has the same layout.
 */
export function projectRoot(): string {
  if (runningAsSea()) return seaAssetRoot();
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'migrations'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('project root (package.json + migrations/) not found');
    dir = parent;
  }
}
