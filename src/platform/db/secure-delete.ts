import type { Db } from './index.js';

/**
 * Runs `fn` (the erasure of a visitor's data, GDPR art. 17) with SQLite's `secure_delete` on:
 * the deleted rows' bytes are overwritten with zeros in the pages that held them, instead of
 * staying in the file's free space until reused or given back (docs/API-NOTES.md "Erasure"). Only for
 * erasures: ordinary deletions keep the cheaper default.
 */
export function secureDeleting<T>(db: Db, fn: () => T): T {
  const sqlite = db.$client;
  const before = sqlite.pragma('secure_delete', { simple: true }) as number;
  sqlite.pragma('secure_delete = ON');
  try {
    return fn();
  } finally {
    sqlite.pragma(`secure_delete = ${Number(before) === 0 ? 'OFF' : Number(before) === 1 ? 'ON' : 'FAST'}`);
  }
}
