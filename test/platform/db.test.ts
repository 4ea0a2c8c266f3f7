import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseIsHealthy, openDatabase, type AppDatabase } from '../../src/platform/db/index.js';

let dir: string;
let file: string;
const opened: AppDatabase[] = [];
function open(): AppDatabase {
  const d = openDatabase(file);
  opened.push(d);
  return d;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'chat-agent-db-'));
  file = path.join(dir, 'test.db');
}, 30_000);
afterEach(() => {
  for (const d of opened.splice(0)) d.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

function insertUser(d: AppDatabase, id: string, email: string): void {
  d.sqlite
    .prepare(
      `INSERT INTO users (id, name, email, password_hash, role, status, plan_id, plan_expires_at, created_at, last_login)
       VALUES (?, 'Someone', ?, 'hash', 'user', 'active', 'free', NULL, '2026-01-01T00:00:00.000Z', NULL)`,
    )
    .run(id, email);
}

function tableNames(d: AppDatabase): string[] {
  return (
    d.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
}

describe('openDatabase', () => {
  it('creates the file and sets the pragmas', () => {
    const d = open();
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(d.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(d.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(d.sqlite.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(d.sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: acknowledged writes are synced by the group commit (durability.ts)
  });

  it('loads sqlite-vec', () => {
    const d = open();
    const row = d.sqlite.prepare('SELECT vec_version() AS v').get() as { v: string };
    expect(row.v).toMatch(/^v?\d+\.\d+/);
    // and the functions work, not just the version call
    const dist = d.sqlite.prepare(`SELECT vec_distance_l2(vec_f32('[0, 0]'), vec_f32('[3, 4]')) AS d`).get() as {
      d: number;
    };
    expect(dist.d).toBeCloseTo(5);
    expect(databaseIsHealthy(d.sqlite)).toBe(true);
  });

  it('applies the migrations: users, sessions and chatbots exist with their columns', () => {
    const d = open();
    const tables = tableNames(d);
    expect(tables).toEqual(expect.arrayContaining(['users', 'sessions', 'chatbots']));
    const cols = (t: string) =>
      (d.sqlite.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols('users')).toEqual(
      expect.arrayContaining(['id', 'email', 'password_hash', 'role', 'status', 'plan_id', 'plan_expires_at']),
    );
    expect(cols('sessions')).toEqual(expect.arrayContaining(['id', 'user_id', 'expires_at', 'last_used_at']));
    expect(cols('chatbots')).toEqual(expect.arrayContaining(['id', 'user_id', 'name', 'status', 'public_access']));
  });

  it('enforces foreign keys and unique emails', () => {
    const d = open();
    expect(() =>
      d.sqlite
        .prepare(
          `INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at) VALUES ('s1', 'no-such-user', 'x', 'x', 'x')`,
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    insertUser(d, 'u1', 'a@example.com');
    expect(() => insertUser(d, 'u2', 'a@example.com')).toThrow(/UNIQUE/);
  });

  it('deleting a user cascades to their sessions', () => {
    const d = open();
    insertUser(d, 'u1', 'a@example.com');
    d.sqlite
      .prepare(
        `INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at) VALUES ('s1', 'u1', 'x', 'x', 'x')`,
      )
      .run();
    d.sqlite.prepare(`DELETE FROM users WHERE id = 'u1'`).run();
    expect(d.sqlite.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
  });

  it('opening again re-runs migrations harmlessly and keeps the rows', () => {
    const first = open();
    insertUser(first, 'u1', 'keep@example.com');
    const tablesBefore = tableNames(first);
    const migrationsBefore = first.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as {
      n: number;
    };
    expect(migrationsBefore.n).toBeGreaterThan(0);
    first.close();

    const second = open();
    expect(tableNames(second)).toEqual(tablesBefore);
    expect(second.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual(migrationsBefore);
    expect(second.sqlite.prepare('SELECT email FROM users').all()).toEqual([{ email: 'keep@example.com' }]);
    expect(second.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('a second connection opened while the first is open sees the same data', () => {
    const first = open();
    insertUser(first, 'u1', 'shared@example.com');
    const second = open();
    expect(second.sqlite.prepare('SELECT id FROM users').all()).toEqual([{ id: 'u1' }]);
    insertUser(second, 'u2', 'other@example.com');
    expect(first.sqlite.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: 2 });
  });

  it('close() is idempotent and health reports a closed connection', () => {
    const d = open();
    const raw = d.sqlite;
    d.close();
    expect(() => d.close()).not.toThrow();
    expect(raw.open).toBe(false);
    expect(databaseIsHealthy(raw)).toBe(false);
  });

  it('refuses a file that is not a database', () => {
    const bad = path.join(dir, 'not-a-db.db');
    writeFileSync(bad, 'this is plainly not an SQLite database file, it is text '.repeat(100));
    expect(() => openDatabase(bad)).toThrow();
  });
});

describe('file permissions', () => {
  it('the database and its WAL are readable by their owner only (0600), even under a permissive umask, and an existing 0644 file is made private', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'db-modes-'));
    const previous = process.umask(0o022);
    try {
      const file = path.join(dir, 'chat-agent.db');
      const db = openDatabase(file);
      db.sqlite.prepare('CREATE TABLE t (x)').run();
      db.sqlite.prepare('INSERT INTO t VALUES (1)').run();
      const mode = (f: string) => statSync(f).mode & 0o777;
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
      expect(mode(`${file}-shm`)).toBe(0o600);
      db.close();

      chmodSync(file, 0o644);
      openDatabase(file).close();
      expect(mode(file)).toBe(0o600);
    } finally {
      process.umask(previous);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
