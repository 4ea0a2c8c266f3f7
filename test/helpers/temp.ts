import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import type { Closable } from './app.js';

/**
 * Temp dirs for a test file (`<tmp>/<prefix>XXXXXX`), removed after each test, or after the
 * file's last with `after: 'all'`; so is what `remove` is given. What `closeFirst` registers (a database on a file in one) is
 * closed before, newest last.
 */
export function useTempDirs(
  prefix: string,
  opts: { after?: 'each' | 'all' } = {},
): { tempDir(): string; remove(p: string): string; closeFirst<T extends Closable>(thing: T): T } {
  const dirs: string[] = [];
  const open: Closable[] = [];
  const cleanUp = async () => {
    for (const o of open.splice(0)) await o.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  if (opts.after === 'all') afterAll(cleanUp, 30_000);
  else afterEach(cleanUp, 30_000);
  return {
    tempDir() {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    /** removes `p` (made otherwise) with the temp dirs; gives it back */
    remove(p) {
      dirs.push(p);
      return p;
    },
    closeFirst(thing) {
      open.push(thing);
      return thing;
    },
  };
}
