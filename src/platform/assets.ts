import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from './fs/project-root.js';
import { runningAsSea, seaAssetRoot } from './fs/sea-assets.js';

/**
 * Where the files the server needs besides its own code live: migrations, the worker threads' file,
 * static bundles (dist/widget/, dist/admin/, ...) and native addons. One answer for the three ways
 * it runs: from source (vitest, tsx), from the bundles in dist/ (`npm start`), and as the single
 * executable, whose assets are unpacked to a cache dir with the same layout (see fs/sea-assets.ts).
 */

export type RunMode = 'source' | 'dist' | 'sea';

export function runMode(): RunMode {
  if (runningAsSea()) return 'sea';
  return isBundled() ? 'dist' : 'source';
}

/** True when this code runs from a bundle (dist/main.js), not from src/ */
function isBundled(): boolean {
  return !import.meta.url.endsWith('/assets.ts');
}

export function migrationsDir(): string {
  return path.join(projectRoot(), 'migrations');
}

/**
 * The file every worker thread runs (document parsing, checkpoints, integrity checks, read
 * queries): the CJS bundle in the executable, dist/worker-tasks.js beside dist/main.js, or the
 * TypeScript source (run under tsx) in development.
 */
export function workerTasksFile(): string {
  const root = projectRoot();
  if (runningAsSea()) return seaWorkerFile();
  const candidates = isBundled()
    ? [path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-tasks.js')]
    : [path.join(root, 'src', 'platform', 'workers', 'worker-tasks.ts')];
  for (const file of candidates) if (existsSync(file)) return file;
  throw new Error(`worker threads' file not found (looked for ${candidates.join(', ')})`);
}

/**
 * A static bundle directory that scripts/build.mjs writes under dist/ (e.g. `widget`, `admin`).
 * The executable embeds every directory there, so a new bundle needs no change to the SEA build.
 */
export function staticDir(name: string): string {
  return path.join(projectRoot(), 'dist', name);
}

/**
 * Inside the executable a pool's threads run one bundle: piscina's thread entry together with the
 * pool's tasks (one copy of piscina; see scripts/build-sea.mjs). It is both the threads' entry and
 * the tasks' file.
 */
export function seaWorkerFile(): string {
  return path.join(seaAssetRoot(), 'dist', 'worker.cjs');
}

/**
 * The file of the pools that only work on the database (WAL checkpoints, quick_check, keyword
 * searches). Inside the executable a bundle of its own without the parsers: a thread of the
 * whole worker bundle compiles its 5.6 MB, and V8 kept about 17 MB of that thread's memory after
 * the start's integrity check had ended. Elsewhere the split ESM build already loads no parser
 * before its first task of that kind, so it is the worker tasks' file.
 */
export function dbWorkerTasksFile(): string {
  return runningAsSea() ? path.join(seaAssetRoot(), 'dist', 'db-worker.cjs') : workerTasksFile();
}

/** Native addons the executable carries; outside it, packages find their own. */
export type NativeAddonName = 'better-sqlite3' | 'argon2';
const NATIVE_FILES: Record<NativeAddonName, string> = {
  'better-sqlite3': 'native/better_sqlite3.node',
  argon2: 'native/argon2.node',
};
const loadedAddons = new Map<NativeAddonName, unknown>();

/** The addon's exports inside the executable (loaded with process.dlopen); undefined elsewhere. */
export function nativeAddon(name: NativeAddonName): unknown {
  if (!runningAsSea()) return undefined;
  let exports = loadedAddons.get(name);
  if (!exports) {
    const mod = { exports: {} as unknown };
    process.dlopen(mod, path.join(seaAssetRoot(), NATIVE_FILES[name]));
    exports = mod.exports;
    loadedAddons.set(name, exports);
  }
  return exports;
}

/** sqlite-vec's loadable extension inside the executable; undefined elsewhere (sqlite-vec finds it). */
export function sqliteVecExtension(): string | undefined {
  return runningAsSea() ? path.join(seaAssetRoot(), 'native', 'vec0.so') : undefined;
}

/** A path inside the executable's unpacked assets (scripts/build-sea.mjs points dependencies here). */
export function seaPath(relative: string): string {
  return path.join(seaAssetRoot(), relative);
}

/**
 * A package the server loads on first use (platform/lazy.ts), inside the executable: a CJS bundle
 * of its own among the unpacked assets (scripts/build-sea.mjs LOADED_ON_FIRST_USE), read from
 * disk when first required. In the executable's one script those packages were half its 7.6 MB,
 * and every byte of that script is mapped from the executable and kept for as long as it runs.
 */
export function seaFirstUseModule(file: string): unknown {
  const full = seaPath(file);
  return createRequire(full)(full);
}
