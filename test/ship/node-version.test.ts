import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServerBundle } from '../helpers/server-bundle.js';
import { repoRoot } from '../helpers/server-process.js';
import { useTempDirs } from '../helpers/temp.js';

/**
 * Issue 31 point 1: on Node 20 `npm ci && npm start` printed 20 EBADENGINE warnings and died with
 * "Segmentation fault". Now `npm ci` refuses at once (.npmrc engine-strict), and `npm start` and
 * `node dist/main.js` stop with one line naming the Node found, the Node needed and how to get it.
 * Run with the machine's own Node 20 (/usr/bin/node and its npm).
 */

const OLD_NODE = '/usr/bin/node';
const OLD_NPM = '/usr/bin/npm';
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
const requiredMajor = Number(/^>=(\d+)$/.exec(pkg.engines.node)?.[1]);

function majorOf(node: string): number | null {
  if (!existsSync(node)) return null;
  const run = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return run.status === 0 ? Number(run.stdout.trim().split('.')[0]) : null;
}
const oldMajor = majorOf(OLD_NODE);
const oldVersion = oldMajor === null ? '' : spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
// Skipped, and said so, where the machine has no Node older than the one required.
const haveOldNode = oldMajor !== null && oldMajor < requiredMajor;
if (!haveOldNode)
  console.warn(`node-version.test: skipped, ${OLD_NODE} is ${oldMajor === null ? 'missing' : `Node ${oldMajor}`}`);

/** PATH finds the old node first; npm's cache and config stay in `dir`; npm never looks for updates. */
function oldEnv(dir: string): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    npm_config_cache: path.join(dir, '.npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/** The one line, as the check prints it: found, needed, how to get it. */
function expectTheOneLine(stderr: string): void {
  const lines = stderr.split('\n').filter((l) => l.startsWith('chat-agent needs'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(
    `chat-agent needs Node.js ${requiredMajor} or newer; this is Node.js ${oldVersion.slice(1)} (${OLD_NODE})`,
  );
  expect(lines[0]).toContain(`nvm install ${requiredMajor}`);
  expect(stderr).not.toMatch(/Segmentation fault|SIGSEGV/);
}

const { tempDir, remove } = useTempDirs('chat-agent-node-version-', { after: 'all' });

describe('package.json engines', () => {
  it('names a minimum major version, the one the check asks for', () => {
    expect(requiredMajor).toBeGreaterThanOrEqual(24);
    const check = readFileSync(path.join(repoRoot, 'src', 'require-node.mjs'), 'utf8');
    expect(/var REQUIRED_MAJOR = (\d+);/.exec(check)?.[1]).toBe(String(requiredMajor));
    expect(readFileSync(path.join(repoRoot, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
  });
});

describe.skipIf(!haveOldNode)(`on the machine's older Node (${oldVersion})`, () => {
  /** dist/main.js and the rest of the server, built into a temp dir (test/helpers/server-bundle.ts) */
  let built: string;
  beforeAll(async () => {
    built = await buildServerBundle();
    remove(built);
  }, 60_000);

  it('`node dist/main.js` stops with one line and exit code 1, before any native module loads', () => {
    const dataDir = path.join(built, 'data');
    const run = spawnSync(OLD_NODE, [path.join(built, 'dist', 'main.js'), 'serve'], {
      env: { ...oldEnv(built), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
      encoding: 'utf8',
    });
    expect({ status: run.status, signal: run.signal, stdout: run.stdout }).toEqual({
      status: 1,
      signal: null,
      stdout: '',
    });
    expectTheOneLine(run.stderr);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(dataDir)).toBe(false);

    // the same file on the Node it needs goes on to the server
    const ok = spawnSync(process.execPath, [path.join(built, 'dist', 'main.js'), '--version'], { encoding: 'utf8' });
    expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: '' });
    expect(ok.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('`npm start` stops with the same line before it builds anything', () => {
    const dir = tempDir();
    copyFileSync(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
    mkdirSync(path.join(dir, 'src'));
    copyFileSync(path.join(repoRoot, 'src', 'require-node.mjs'), path.join(dir, 'src', 'require-node.mjs'));
    const run = spawnSync(OLD_NPM, ['start'], { cwd: dir, env: oldEnv(dir), encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.signal).toBeNull();
    expectTheOneLine(run.stderr);
    // the build (and with it the server) never ran
    expect(`${run.stdout}${run.stderr}`).not.toContain('scripts/build.mjs');
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('`npm ci` fails at once on the engine (EBADENGINE) and installs nothing', () => {
    const dir = tempDir();
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(path.join(repoRoot, file), path.join(dir, file));
    // offline: nothing may be fetched before the refusal
    const run = spawnSync(OLD_NPM, ['ci', '--offline'], { cwd: dir, env: oldEnv(dir), encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('EBADENGINE');
    expect(run.stderr).toContain(`Required: {"node":">=${requiredMajor}"}`);
    expect(run.stderr).not.toContain('ENOTCACHED');
    expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);
  });
});

describe('src/require-node.mjs on the Node it needs', () => {
  it('says nothing and lets the process go on', () => {
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'src', 'require-node.mjs')], { encoding: 'utf8' });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  });
});
