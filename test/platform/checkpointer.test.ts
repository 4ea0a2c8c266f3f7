import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../../src/platform/db/checkpointer.js';
import { openDatabase } from '../../src/platform/db/index.js';
import { threadNiceness, threadsVisible } from '../helpers/threads.js';

/**
 * WAL checkpoints in a worker thread (a real piscina worker with its own SQLite connection): the
 * main connection's automatic checkpoint is off, the worker moves the WAL into the database file,
 * and nothing written is lost.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}, 60_000);

const errors: string[] = [];
const log = { error: (_obj: unknown, msg: string) => errors.push(msg) } as unknown as FastifyBaseLogger;

function setUp() {
  const dir = mkdtempSync(path.join(tmpdir(), 'checkpointer-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'chat-agent.db');
  const database = openDatabase(file);
  cleanups.push(() => database.close());
  const checkpointer = new WalCheckpointer(database.sqlite, file, log);
  cleanups.push(() => checkpointer.stop());
  database.sqlite.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  return { file, database, checkpointer };
}

describe('WalCheckpointer', () => {
  it('turns off the main thread checkpoint and checkpoints a large WAL from the worker, losing nothing', async () => {
    const { file, database, checkpointer } = setUp();
    checkpointer.start();
    expect(database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

    const insert = database.sqlite.prepare('INSERT INTO notes (text) VALUES (?)');
    for (let t = 0; t < 20; t++)
      database.sqlite.transaction(() => {
        for (let i = 0; i < 100; i++) insert.run(`note ${t}-${i} ${'x'.repeat(2000)}`);
      })();
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(4 * 1024 * 1024); // the main thread did not checkpoint

    const result = await checkpointer.checkpointNow();
    expect(errors).toEqual([]);
    if (threadsVisible) {
      // background work: the checkpointing thread runs nicer than the process
      const threads = threadNiceness();
      const main = threads.find((t) => t.tid === process.pid)!.nice;
      expect(threads.some((t) => t.nice === Math.min(19, main + 10))).toBe(true);
    }
    expect(result).not.toBeNull();
    expect(result!.log).toBeGreaterThan(1000);
    expect(result!.checkpointed).toBe(result!.log);

    // the database file alone (read without the WAL's help) holds every row
    database.close();
    const reader = new Database(file, { readonly: true });
    cleanups.push(() => {
      reader.close();
    });
    expect((reader.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n).toBe(2000);
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
