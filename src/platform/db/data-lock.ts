import { chmodSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from './index.js';

export class DatabaseInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseInUseError';
  }
}

/**
 * One server per database: an exclusive SQLite lock on `<database>.lock`, taken at start and
 * held for the life of the process (the operating system drops it when the process ends, however
 * it ends, so there is never a stale lock to clean up). Two servers on one DATA_DIR failed each
 * other's writes with "database is locked" and ran each other's jobs; the second one now refuses
 * to start. SQLite's own lock on the database cannot serve: WAL mode lets several processes in.
 */
export function lockDatabase(databaseFile: string): { release: () => void } {
  const file = `${databaseFile}.lock`;
  let conn: Database.Database;
  try {
    conn = openSqlite(file, { timeout: 0 });
  } catch (err) {
    throw new DatabaseInUseError(`cannot create the lock file ${file}: ${(err as Error).message}`);
  }
  try {
    // no journal file beside it (exclusive mode would keep one, with the umask's permissions)
    conn.pragma('journal_mode = MEMORY');
    // the lock taken by the first write is kept until the connection closes
    conn.pragma('locking_mode = EXCLUSIVE');
    conn.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    conn.transaction(() => {
      conn.exec('DELETE FROM holder');
      conn.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    })();
  } catch (err) {
    conn.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new DatabaseInUseError(
        `${path.dirname(databaseFile)} is in use by another chat-agent process (a server, or a migrate or restore): stop it first; two servers on one database fail each other's writes`,
      );
    }
    throw err;
  }
  chmodSync(file, 0o600);
  return { release: () => conn.close() };
}
