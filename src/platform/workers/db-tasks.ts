import { nativeAddon } from '../assets.js';
import { runInBackground } from './task-thread.js';

// ---- WAL checkpoints (db/checkpointer.ts) ----
// Not parsing, but the same worker file: a checkpoint copies committed pages from the WAL into
// the database file and fsyncs both, tens of milliseconds that would otherwise stop the main
// thread every ~4 MB written. It changes no data, so "only the main thread writes" still holds.

let connection: import('better-sqlite3').Database | undefined;

/**
 * This thread's connection to the database file, opened on its first task. Each pool using it
 * (checkpoints, read queries) has its own thread, so a thread holds one connection.
 */
async function connectionTo(
  file: string,
  setup: (db: import('better-sqlite3').Database) => void,
): Promise<import('better-sqlite3').Database> {
  if (!connection) {
    const { default: Database } = await import('better-sqlite3');
    const nativeBinding = nativeAddon('better-sqlite3');
    connection = new Database(file, {
      fileMustExist: true,
      ...(nativeBinding ? { nativeBinding: nativeBinding as string } : {}),
    });
    setup(connection);
  }
  return connection;
}

export interface CheckpointResult {
  /** 1 when a reader or writer kept it from finishing (PASSIVE never waits) */
  busy: number;
  /** frames in the WAL, and how many of them are now in the database file */
  log: number;
  checkpointed: number;
}

/** A checkpoint SQLite refused (a full disk): the code crosses the thread, which an error's class would not. */
export interface CheckpointRefusal {
  refused: { code: string; message: string };
}

export async function checkpoint({ file }: { file: string }): Promise<CheckpointResult | CheckpointRefusal> {
  runInBackground();
  const db = await connectionTo(file, (c) => c.pragma('busy_timeout = 1000'));
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    return row!;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_'))
      return { refused: { code, message: (err as Error).message } };
    throw err;
  }
}

// ---- Integrity checks (db/integrity.ts) ----
// quick_check reads every page of the file: seconds on a large database, on a thread of its own
// with a read transaction (WAL lets writers go on meanwhile).

/** What quick_check found: nothing (an empty list) or its first messages. */
export async function quickCheck({ file }: { file: string }): Promise<{ problems: string[] }> {
  runInBackground();
  try {
    const db = await connectionTo(file, (c) => c.pragma('busy_timeout = 5000'));
    const rows = db.pragma('quick_check(10)') as Array<{ quick_check: string }>;
    const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
    return { problems };
  } catch (err) {
    // a file too damaged to walk is itself the finding
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return { problems: [(err as Error).message] };
    throw err;
  }
}

// ---- Read-only queries (knowledge/keyword-searcher.ts) ----
// Also not parsing: a read whose CPU is worth another core, such as the bm25 ranking of a chat
// turn's keyword search (~2 ms at 10k chunks), runs here while the main thread waits for the
// question's embedding. The caller owns the SQL; the connection is query_only.

const statements = new Map<string, import('better-sqlite3').Statement>();

export interface ReadQueryTask {
  file: string;
  sql: string;
  params: unknown[];
}

function readOnlyConnection(file: string): Promise<import('better-sqlite3').Database> {
  return connectionTo(file, (c) => {
    c.pragma('busy_timeout = 5000');
    c.pragma('query_only = ON');
  });
}

function preparedRaw(db: import('better-sqlite3').Database, sql: string): import('better-sqlite3').Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql).raw();
    statements.set(sql, statement);
  }
  return statement;
}

/** The rows of one read-only statement, as arrays (raw mode). */
export async function readQuery({ file, sql, params }: ReadQueryTask): Promise<unknown[][]> {
  const db = await readOnlyConnection(file);
  return preparedRaw(db, sql).all(...params) as unknown[][];
}

export interface ReadColumnsTask {
  file: string;
  /** statements whose every column is a number */
  queries: Array<{ sql: string; params: unknown[] }>;
}

/**
 * Several read-only statements in one read transaction, so all see the same committed state
 * (the keyword score cache keys what it reads by the index's change count, read alongside).
 * Each answers its columns, as arrays of numbers: a typed array crosses the thread as one copy,
 * where rows would be cloned one by one.
 */
export async function readColumns({ file, queries }: ReadColumnsTask): Promise<Float64Array[][]> {
  const db = await readOnlyConnection(file);
  return db.transaction(() =>
    queries.map(({ sql, params }) => {
      const statement = preparedRaw(db, sql);
      const rows = statement.all(...params) as number[][];
      return statement.columns().map((_, c) => Float64Array.from(rows, (row) => row[c]!));
    }),
  )();
}
