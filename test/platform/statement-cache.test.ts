import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { openDatabase, openSqlite, type AppDatabase } from '../../src/platform/db/index.js';
import { withStatementCache } from '../../src/platform/db/statement-cache.js';
import { users } from '../../src/modules/auth/tables.js';
import { makeDataDir } from '../helpers/app.js';
import type Database from 'better-sqlite3';

describe('statement cache (what drizzle sees of the connection)', () => {
  let dir: string;
  let sqlite: Database.Database | undefined;
  let database: AppDatabase | undefined;
  afterEach(() => {
    sqlite?.close();
    database?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  function connection() {
    dir = makeDataDir();
    sqlite = openSqlite(path.join(dir, 'cache.db'));
    sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')");
    return withStatementCache(sqlite);
  }

  it('compiles a SQL text once and hands the same statement out again', () => {
    const cached = connection();
    const a = cached.prepare('SELECT name FROM t WHERE id = ?');
    expect(cached.prepare('SELECT name FROM t WHERE id = ?')).toBe(a);
    expect(cached.prepare('SELECT id FROM t WHERE name = ?')).not.toBe(a);
    expect(a.get(2)).toEqual({ name: 'two' });
  });

  it('hands a statement out with raw mode off, whatever the last user left', () => {
    const cached = connection();
    expect(cached.prepare('SELECT id, name FROM t ORDER BY id').raw().all()).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    expect(cached.prepare('SELECT id, name FROM t ORDER BY id').all()).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
  });

  it('keeps at most 500 statements, dropping the least recently used', () => {
    const cached = connection();
    const first = cached.prepare('SELECT 0 AS n');
    const second = cached.prepare('SELECT 1 AS n');
    for (let i = 2; i < 500; i++) cached.prepare(`SELECT ${i} AS n`);
    cached.prepare('SELECT 0 AS n'); // used again: now the most recent
    cached.prepare('SELECT 500 AS n'); // over the bound: drops the least recently used, 'SELECT 1'
    expect(cached.prepare('SELECT 0 AS n')).toBe(first);
    expect(cached.prepare('SELECT 1 AS n')).not.toBe(second);
  });

  it('passes everything else through to the connection (transactions, pragmas)', () => {
    const cached = connection();
    const insert = cached.transaction(
      (name: string) => cached.prepare('INSERT INTO t (name) VALUES (?)').run(name).lastInsertRowid,
    );
    expect(Number(insert('three'))).toBe(3);
    expect(cached.inTransaction).toBe(false);
    expect(cached.pragma('user_version', { simple: true })).toBe(0);
  });

  it('serves repeated drizzle queries of the app correctly, and $client stays the raw connection', () => {
    dir = makeDataDir();
    database = openDatabase(path.join(dir, 'app.db'));
    const { db } = database;
    expect(db.$client).toBe(database.sqlite);
    const now = new Date().toISOString();
    for (const id of ['u1', 'u2']) {
      db.insert(users)
        .values({ id, name: id, email: `${id}@example.com`, password_hash: 'x', plan_id: 'free', created_at: now })
        .run();
    }
    // the same query shape twice (one compiled statement), with different values each time
    expect(db.select().from(users).where(eq(users.id, 'u1')).get()?.email).toBe('u1@example.com');
    expect(db.select().from(users).where(eq(users.id, 'u2')).get()?.email).toBe('u2@example.com');
    expect(
      db
        .select({ email: users.email })
        .from(users)
        .all()
        .map((u) => u.email)
        .sort(),
    ).toEqual(['u1@example.com', 'u2@example.com']);
  });
});
