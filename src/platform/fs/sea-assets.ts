import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import * as sea from 'node:sea';

/**
 * Inside the single executable (`npm run build:sea`) the migrations, worker bundles, static
 * bundles and native addons travel as SEA assets. They are written once to a cache dir named by
 * the hash of their contents, because worker threads, `process.dlopen` and SQLite's
 * `loadExtension` all need real files.
 *
 * Asset layout (written by scripts/build-sea.mjs): `manifest.json` = {hash, files: [relative
 * paths]}, and one asset per file under the key `file:<relative path>`. The unpacked dir mirrors
 * the project (package.json, migrations/, dist/...), so every lookup is the same relative path in
 * development, in dist/ and in the binary.
 */

export const SEA_MANIFEST_KEY = 'manifest.json';
export const SEA_FILE_KEY_PREFIX = 'file:';
const COMPLETE_MARKER = '.complete';

export interface SeaManifest {
  hash: string;
  files: string[];
}

export function runningAsSea(): boolean {
  return typeof sea.isSea === 'function' && sea.isSea();
}

let unpackedRoot: string | undefined;

/**
 * The unpacked asset dir, unpacking on first call (synchronously: native addons are loaded while
 * the bundle's modules initialise, before any async code runs).
 */
export function seaAssetRoot(): string {
  if (unpackedRoot) return unpackedRoot;
  const manifest = JSON.parse(sea.getAsset(SEA_MANIFEST_KEY, 'utf8')) as SeaManifest;
  const dir = path.join(cacheBase(), manifest.hash);
  if (!existsSync(path.join(dir, COMPLETE_MARKER))) {
    for (const rel of manifest.files) {
      writeFileAtomically(
        path.join(dir, rel),
        new Uint8Array(sea.getRawAsset(SEA_FILE_KEY_PREFIX + rel) as ArrayBuffer),
      );
    }
    writeFileAtomically(path.join(dir, COMPLETE_MARKER), new Uint8Array(0));
  }
  unpackedRoot = dir;
  return dir;
}

/**
 * A per-user dir: ~/.cache/chat-agent, or <tmpdir>/chat-agent-<uid> when the home dir is not
 * writable. It must be ours and private (0700, not a symlink): we load code from it. It must not
 * be on a noexec mount (set TMPDIR, or give the user a home dir, if it is).
 */
function cacheBase(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  const candidates = [path.join(homedir(), '.cache', 'chat-agent'), path.join(tmpdir(), `chat-agent-${uid}`)];
  const problems: string[] = [];
  for (const base of candidates) {
    try {
      mkdirSync(base, { recursive: true, mode: 0o700 });
      const st = lstatSync(base);
      if (!st.isDirectory()) throw new Error('not a directory');
      if (uid >= 0 && st.uid !== uid) throw new Error('owned by another user');
      if ((st.mode & 0o077) !== 0) throw new Error('readable or writable by other users (want mode 0700)');
      return base;
    } catch (err) {
      problems.push(`${base}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no usable cache dir for the executable's assets (${problems.join('; ')})`);
}

/** Temp file, fsync, rename: a concurrent start or a crash never leaves a half-written addon. */
function writeFileAtomically(file: string, data: Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o700);
  try {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
