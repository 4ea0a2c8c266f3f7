import type Database from 'better-sqlite3';
import { eq, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './index.js';

/** Rows kept at most; past it the cache starts over (a plain bound, not LRU: misses are cheap). */
const MAX_ROWS = 10_000;

/**
 * `PRAGMA data_version` of one connection, read at most once per event-loop iteration: every
 * request handled in the same iteration shares the reading (one statement instead of one per
 * cached lookup). Another connection's commit is seen by the next iteration.
 */
class DataVersion {
  private value = -1;
  private fresh = false;
  private readonly statement: Database.Statement<[], number>;
  private readonly expire = () => {
    this.fresh = false;
  };

  constructor(sqlite: Database.Database) {
    this.statement = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  current(): number {
    if (!this.fresh) {
      this.value = this.statement.get()!;
      this.fresh = true;
      setImmediate(this.expire);
    }
    return this.value;
  }
}

const versions = new WeakMap<Database.Database, DataVersion>();

function dataVersionOf(sqlite: Database.Database): DataVersion {
  let version = versions.get(sqlite);
  if (!version) {
    version = new DataVersion(sqlite);
    versions.set(sqlite, version);
  }
  return version;
}

/**
 * Rows read on nearly every request (an agent on the public routes, an account on every
 * authenticated one), kept in memory by id. Reading a wide row from SQLite costs tens of
 * microseconds (mostly building the JS object), a large share of a public request.
 *
 * Staleness is ruled out two ways:
 * - the repo owning the table calls `forget(id)` (or `clear()`) on every write it makes;
 * - `PRAGMA data_version` changes when another connection commits (the CLI run beside the
 *   server, a restore tool), and then the whole cache is dropped.
 * Rows read inside a transaction are not kept: the transaction may still roll back.
 * Returned rows are frozen, since every caller shares them.
 */
export class RowCache<T extends object> {
  private readonly rows = new Map<string, Readonly<T>>();
  private seenVersion = -1;
  private readonly dataVersion: DataVersion;

  constructor(private readonly sqlite: Database.Database) {
    this.dataVersion = dataVersionOf(sqlite);
  }

  get(id: string, load: (id: string) => T | undefined): Readonly<T> | undefined {
    const version = this.dataVersion.current();
    if (version !== this.seenVersion) {
      this.rows.clear();
      this.seenVersion = version;
    }
    const cached = this.rows.get(id);
    if (cached) return cached;
    const row = load(id);
    if (!row || this.sqlite.inTransaction) return row;
    if (this.rows.size >= MAX_ROWS) this.rows.clear();
    const frozen = Object.freeze(row);
    this.rows.set(id, frozen);
    return frozen;
  }

  forget(id: string): void {
    this.rows.delete(id);
  }

  clear(): void {
    this.rows.clear();
  }
}

/**
 * A table's rows read by primary key through one statement prepared once, kept in a RowCache:
 * the repo calls `forget(id)` before every write it makes to a row.
 */
export class CachedRowsById<Row extends object> {
  private readonly byId: { get(params: { id: string }): Row | undefined };
  private readonly cache: RowCache<Row>;

  constructor(db: Db, table: SQLiteTable & { id: SQLiteColumn }) {
    this.byId = db
      .select()
      .from(table)
      .where(eq(table.id, sql.placeholder('id')))
      .prepare() as unknown as { get(params: { id: string }): Row | undefined };
    this.cache = new RowCache(db.$client);
  }

  get(id: string): Readonly<Row> | undefined {
    return this.cache.get(id, (key) => this.byId.get({ id: key }));
  }

  forget(id: string): void {
    this.cache.forget(id);
  }
}
