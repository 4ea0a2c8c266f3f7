// The V8 flags the server runs with, named once: in package.json's `start` script (`<VAR=value>
// node <flags> dist/main.js`), which is what a reader of `npm start` sees. The single executable
// carries the same flags in its SEA config's execArgv (scripts/build-sea.mjs reads them from
// here), the container runs that executable, and `npm run bench` starts dist/main.js with them
// too. The variables before `node` (MALLOC_ARENA_MAX) are the container's ENV and the systemd
// units' Environment= as well. docs/DEPLOY.md "Memory" explains the values.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `[VAR=value ...] node <flags> dist/main.js` as the start script runs it (after `npm run build &&`) */
const START = /(?:^|&&\s*)((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/main\.js(?:\s|$)/;

/** @param {string} [startScript] */
function startCommand(startScript) {
  const script = startScript ?? JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const m = START.exec(script);
  if (!m) throw new Error(`package.json's start script does not run "node <flags> dist/main.js": ${script}`);
  return { env: m[1], flags: m[2] };
}

/**
 * The flags between `node` and `dist/main.js` in the start script, e.g.
 * ['--max-semi-space-size=1', '--max-old-space-size=256']. Throws when the script does not have
 * that shape, so a change to it cannot silently leave the executable without its flags.
 * @param {string} [startScript] package.json's scripts.start (read from the file by default)
 * @returns {string[]}
 */
export function serverNodeFlags(startScript) {
  return startCommand(startScript).flags.trim().split(/\s+/).filter(Boolean);
}

/**
 * The environment variables the start script sets before `node`, e.g. { MALLOC_ARENA_MAX: '2' }
 * (the C library's allocator: docs/DEPLOY.md "Memory"). The executable cannot set them for
 * itself; the container and the systemd units do.
 * @param {string} [startScript] package.json's scripts.start (read from the file by default)
 * @returns {Record<string, string>}
 */
export function serverNodeEnv(startScript) {
  const pairs = startCommand(startScript).env.trim().split(/\s+/).filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}
