import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as sqliteVec from 'sqlite-vec';
import { migrationsDir, nativeAddon, sqliteVecExtension } from '../assets.js';
import { registerStemFunction } from '../text/stemming.js';
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
  // only a missing file is a new install: an existing one must hold this product's data
  const existed = existsSync(file);
  if (existed && statSync(file).size === 0)
    throw new DatabaseRefusal(`${file} is empty (0 bytes), so it holds no data. ${IF_NEW_OR_RESTORE}`);
  makePrivate(file);
  const sqlite = openSqlite(file);
  try {
    if (existed) assertOwnDatabase(sqlite, file);
    // first: a new file takes auto_vacuum only before its first table
    enableIncrementalVacuum(sqlite, (message) => process.stderr.write(`${message}\n`));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    loadSqliteVec(sqlite);
    // the keyword index's triggers stem passages with it (migration 0027)
    registerStemFunction(sqlite);
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

/** The database file cannot be used as it is: the message says why and what to do. */
export class DatabaseRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseRefusal';
  }
}

const IF_NEW_OR_RESTORE =
  'If this is a new install, delete the file; otherwise restore a backup with `chat-agent restore <backup file>`.';

/**
 * An existing file must be an SQLite database written by this product (it has the migrations
 * table), and by this version or an older one: a newer version's migrations are unknown here,
 * and running on its schema would lose data in ways no one could see.
 */
function assertOwnDatabase(sqlite: Database.Database, file: string): void {
  let migrations: number | null;
  try {
    const table = sqlite
      .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`)
      .get();
    migrations = table
      ? ((sqlite.prepare('SELECT max(created_at) AS last FROM __drizzle_migrations').get() as { last: number | null })
          .last ?? null)
      : null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
      throw new DatabaseRefusal(`${file} is not a database (${(err as Error).message}). ${IF_NEW_OR_RESTORE}`);
    throw err;
  }
  if (migrations === null)
    throw new DatabaseRefusal(
      `${file} is a database, but not a chat-agent one (it has no migrations table). ${IF_NEW_OR_RESTORE}`,
    );
  const known = knownMigrations();
  if (Number(migrations) > known) {
    throw new DatabaseRefusal(
      `${file} was written by a newer version of chat-agent (its last migration is from ${new Date(Number(migrations)).toISOString()}, this version knows up to ${new Date(known).toISOString()}). Run that version, or restore a backup made by this one.`,
    );
  }
}

/** When the newest migration this version carries was made (drizzle-kit's journal). */
function knownMigrations(): number {
  const journal = JSON.parse(readFileSync(path.join(migrationsDir(), 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ when: number }>;
  };
  return Math.max(...journal.entries.map((e) => e.when));
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
