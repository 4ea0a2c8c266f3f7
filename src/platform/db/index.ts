import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as sqliteVec from 'sqlite-vec';
import { migrationsDir, nativeAddon, sqliteVecExtension } from '../assets.js';
import { enableIncrementalVacuum } from './space.js';
import { WalSync } from './durability.js';
import { withStatementCache } from './statement-cache.js';

/** drizzle over the connection; `$client` is the better-sqlite3 handle, for the few raw statements drizzle cannot express */
export type Db = BetterSQLite3Database & { $client: Database.Database };

export interface AppDatabase {
  /** drizzle over the one writer connection; all queries of the app go through it. */
  db: Db;
  /** the raw connection, for pragmas, sqlite-vec and virtual tables drizzle cannot express. */
  sqlite: Database.Database;
  /** await before acknowledging a write: the group commit of durability.ts */
  durability: WalSync;
  close(): void;
}

/**
 * Opens (creating if needed) the one SQLite file, sets the pragmas, loads sqlite-vec and applies
 * the drizzle-kit generated migrations.
 *
 * WAL with synchronous=NORMAL plus a group commit (durability.ts): commits do not fsync one by
 * one on the event loop; the HTTP layer awaits `durability.barrier()` before a response that
 * acknowledges a write, so an acknowledged lead or message is on disk as with synchronous=FULL.
 */
export function openDatabase(file: string): AppDatabase {
  makePrivate(file);
  const sqlite = openSqlite(file);
  try {
    // first: a new file takes auto_vacuum only before its first table
    enableIncrementalVacuum(sqlite, (message) => process.stderr.write(`${message}\n`));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    loadSqliteVec(sqlite);
    migrate(drizzle(sqlite), { migrationsFolder: migrationsDir() });
    // drizzle compiles its SQL on every call: let it reuse compiled statements (statement-cache.ts)
    const db = drizzle(withStatementCache(sqlite)) as Db;
    db.$client = sqlite;
    const durability = new WalSync(sqlite, `${file}-wal`);
    return {
      db,
      sqlite,
      durability,
      close: () => {
        durability.close();
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (err) {
    sqlite.close();
    throw err;
  }
}

/**
 * The database readable by its owner only: created 0600 (whatever the umask), or an existing
 * file set to 0600. SQLite gives its -wal and -shm files the database file's permissions.
 */
function makePrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  for (const companion of [`${file}-wal`, `${file}-shm`]) {
    if (existsSync(companion)) chmodSync(companion, 0o600);
  }
}

/**
 * A plain better-sqlite3 connection (no pragmas, no migrations) with the native binding the
 * current run mode needs; backups, restores and the data-dir lock use it.
 */
export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = nativeAddon('better-sqlite3');
  return new Database(file, nativeBinding ? { ...options, nativeBinding: nativeBinding as string } : options);
}

/** sqlite-vec into a connection, from the package or from the executable's assets. */
export function loadSqliteVec(sqlite: Database.Database): void {
  const extension = sqliteVecExtension();
  if (extension) sqlite.loadExtension(extension);
  else sqliteVec.load(sqlite);
}

/** Cheap liveness check for /api/health: the connection answers and sqlite-vec is loaded. */
export function databaseIsHealthy(sqlite: Database.Database): boolean {
  try {
    const row = sqlite.prepare('SELECT vec_version() AS v').get() as { v?: string } | undefined;
    return typeof row?.v === 'string';
  } catch {
    return false;
  }
}
