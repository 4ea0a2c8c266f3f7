// The V8 flags the server runs with, named once: in package.json's `start` script (`node <flags>
// dist/main.js`), which is what a reader of `npm start` sees. The single executable carries the
// same flags in its SEA config's execArgv (scripts/build-sea.mjs reads them from here), the
// container runs that executable, and `npm run bench` starts dist/main.js with them too.
// docs/DEPLOY.md "Memory" explains the values.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The flags between `node` and `dist/main.js` in the start script, e.g.
 * ['--max-semi-space-size=1', '--max-old-space-size=256']. Throws when the script does not have
 * that shape, so a change to it cannot silently leave the executable without its flags.
 * @param {string} [startScript] package.json's scripts.start (read from the file by default)
 * @returns {string[]}
 */
export function serverNodeFlags(startScript) {
  const script = startScript ?? JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const m = /(?:^|&&\s*)node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/main\.js(?:\s|$)/.exec(script);
  if (!m) throw new Error(`package.json's start script does not run "node <flags> dist/main.js": ${script}`);
  return m[1].trim().split(/\s+/).filter(Boolean);
}
