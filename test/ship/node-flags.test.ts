import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverNodeEnv, serverNodeFlags } from '../../scripts/node-flags.mjs';
import { repoRoot } from '../helpers/server-process.js';

/**
 * Issue 31: the server's V8 flags (the main thread's share of the 512 MB budget, docs/DEPLOY.md
 * "Memory") are named once, in package.json's start script, and apply however it is started:
 * `npm start` runs them, the single executable carries them in its SEA config's execArgv (read
 * from the start script by scripts/build-sea.mjs; test/ship/binary.test.ts checks the built file),
 * and the container runs that executable without overriding them.
 */
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };

describe('V8 flags of the server', () => {
  it('npm start runs dist/main.js with a small young generation, a capped old generation and V8 threads by the cores', () => {
    const flags = serverNodeFlags();
    expect(flags).toContain('--max-semi-space-size=1');
    expect(flags.some((f) => /^--max-old-space-size=\d+$/.test(f))).toBe(true);
    // V8's background threads sized to the cores less one (docs/DEPLOY.md "Speed on a small box")
    expect(flags).toContain('--v8-pool-size=0');
    expect(pkg.scripts.start).toBe(`npm run build && MALLOC_ARENA_MAX=2 node ${flags.join(' ')} dist/main.js`);
  });

  it('npm start, the container and the systemd units set the C allocator to two arenas', () => {
    expect(serverNodeEnv()).toEqual({ MALLOC_ARENA_MAX: '2' });
    const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    const deploy = readFileSync(path.join(repoRoot, 'docs', 'DEPLOY.md'), 'utf8');
    // option A (the executable) and option B (dist/main.js)
    expect(deploy.match(/^Environment=MALLOC_ARENA_MAX=2$/gm)).toHaveLength(2);
  });

  it('a start script that no longer names them the expected way is an error, not an executable without flags', () => {
    expect(serverNodeFlags('npm run build && node --a=1 --b dist/main.js')).toEqual(['--a=1', '--b']);
    expect(serverNodeFlags('node dist/main.js')).toEqual([]);
    expect(serverNodeFlags('npm run build && A=1 B_2=x node --a dist/main.js')).toEqual(['--a']);
    expect(serverNodeEnv('npm run build && A=1 B_2=x=y node --a dist/main.js')).toEqual({ A: '1', B_2: 'x=y' });
    expect(serverNodeEnv('node dist/main.js')).toEqual({});
    expect(() => serverNodeFlags('tsx src/main.ts')).toThrow(/does not run/);
  });

  it('the single executable is built with them as execArgv', () => {
    const script = readFileSync(path.join(repoRoot, 'scripts', 'build-sea.mjs'), 'utf8');
    expect(script).toMatch(/execArgv: serverNodeFlags\(pkg\.scripts\.start\)/);
  });

  it('the container runs that executable, with no NODE_OPTIONS of its own', () => {
    const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN npm run build:sea/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["chat-agent"\]$/m);
    expect(dockerfile).not.toMatch(/NODE_OPTIONS/);
  });
});
