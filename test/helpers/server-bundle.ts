import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { serverBuildOptions, workerBuildOptions } from '../../scripts/build.mjs';
import { killAll, repoRoot } from './server-process.js';

/**
 * The server as `npm run build` makes it (dist/main.js, dist/server.js, chunks, worker-tasks.js),
 * built into `<temp>/dist` beside links to node_modules (its native modules), package.json and
 * migrations/, and to the widget and admin UI bundles the test run's global setup built, so the
 * repository's own dist/ is left alone. Returns the temp dir; the caller removes it.
 */
export async function buildServerBundle(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chat-agent-bundle-'));
  for (const name of ['node_modules', 'package.json', 'migrations'])
    symlinkSync(path.join(repoRoot, name), path.join(dir, name));
  const dist = path.join(dir, 'dist');
  await build({ ...serverBuildOptions(dist), logLevel: 'silent' });
  await build({ ...workerBuildOptions(dist), logLevel: 'silent' });
  mkdirSync(dist, { recursive: true });
  for (const name of ['widget', 'admin']) symlinkSync(path.join(repoRoot, 'dist', name), path.join(dist, name));
  return dir;
}

/**
 * The built server for a test file: built before its first test, every server process killed
 * after each test, the bundle removed after the last. `dir` is set by the beforeAll; `serve` is
 * the command that starts it as `npm start` does.
 */
export function useServerBundle(): { dir: string; serve(): { command: string; args: string[] } } {
  const bundle = {
    dir: '',
    serve: () => ({ command: process.execPath, args: [path.join(bundle.dir, 'dist', 'main.js'), 'serve'] }),
  };
  beforeAll(async () => {
    bundle.dir = await buildServerBundle();
  }, 60_000);
  afterEach(async () => killAll(), 60_000);
  afterAll(() => {
    if (bundle.dir) rmSync(bundle.dir, { recursive: true, force: true });
  }, 30_000);
  return bundle;
}
