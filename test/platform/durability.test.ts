import { readdirSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalSync } from '../../src/platform/db/durability.js';
import { openDatabase, type AppDatabase } from '../../src/platform/db/index.js';
import { auth, createAgent, registerUser, useTestApps } from '../helpers/app.js';
import { useTempDirs } from '../helpers/temp.js';

/**
 * The group commit: a barrier resolves only after an fdatasync of the WAL that began after the
 * caller's writes, concurrent barriers share syncs, and the app waits for it before answering a
 * write (but never for a read).
 */

const { tempDir, closeFirst } = useTempDirs('durability-');
const apps = useTestApps();

function database(): { d: AppDatabase; file: string } {
  const file = path.join(tempDir(), 'chat-agent.db');
  const d = closeFirst(openDatabase(file));
  d.sqlite.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
  return { d, file };
}

/** A real fdatasync that the test can hold until it says go, recording which file it synced. */
function heldSync() {
  const calls: Array<{ file: string; release: () => void }> = [];
  const waiters: Array<() => void> = [];
  const syncFile = async (file: string) => {
    await new Promise<void>((release) => {
      calls.push({ file, release });
      for (const wake of waiters.splice(0)) wake();
    });
    const handle = await open(file, 'r');
    await handle.datasync();
    await handle.close();
  };
  const nextCall = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (calls.length >= n ? resolve() : waiters.push(check));
      check();
    });
  return { calls, syncFile, nextCall };
}

/** A new database with a WalSync over its WAL file whose syncs are held (heldSync). */
function heldWalSync() {
  const { d, file } = database();
  const held = heldSync();
  return { d, file, held, sync: new WalSync(d.sqlite, `${file}-wal`, held.syncFile) };
}

describe('WalSync', () => {
  it('does not sync when nothing was written since the last sync', async () => {
    const { held, sync } = heldWalSync();
    await sync.barrier();
    expect(held.calls).toHaveLength(0);
  });

  it('resolves after a sync of the WAL file that began after the write', async () => {
    const { d, file, held, sync } = heldWalSync();
    d.sqlite.prepare("INSERT INTO notes (text) VALUES ('a lead')").run();
    let resolved = false;
    const barrier = sync.barrier().then(() => (resolved = true));
    await held.nextCall(1);
    expect(held.calls[0]!.file).toBe(`${file}-wal`);
    await new Promise((r) => setImmediate(r));
    expect(resolved).toBe(false);
    held.calls[0]!.release();
    await barrier;
    expect(resolved).toBe(true);
    expect(sync.syncs).toBe(1);
    // nothing new: the next barrier does not sync again
    await sync.barrier();
    expect(held.calls).toHaveLength(1);
  });

  it('a write made while a sync is in flight waits for the next sync; concurrent barriers share syncs', async () => {
    const { d, held, sync } = heldWalSync();
    const insert = d.sqlite.prepare('INSERT INTO notes (text) VALUES (?)');
    insert.run('first');
    const early = Array.from({ length: 20 }, () => sync.barrier());
    await held.nextCall(1);
    insert.run('second, after the first sync began');
    let lateDone = false;
    const late = Array.from({ length: 20 }, () => sync.barrier().then(() => (lateDone = true)));
    held.calls[0]!.release();
    await Promise.all(early);
    expect(lateDone).toBe(false);
    await held.nextCall(2);
    held.calls[1]!.release();
    await Promise.all(late);
    expect(held.calls).toHaveLength(2); // 40 barriers, 2 syncs
  });

  it('syncs through one descriptor of the WAL file, kept across checkpoints and released on close', async () => {
    const { d, file } = database();
    const walDescriptors = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === `${file}-wal`;
        } catch {
          return false; // the descriptor readdir itself used, closed by now
        }
      });
    const sqliteOwn = walDescriptors().length; // SQLite's own descriptor of its WAL
    const sync = new WalSync(d.sqlite, `${file}-wal`);
    const insert = d.sqlite.prepare('INSERT INTO notes (text) VALUES (?)');
    insert.run('first');
    await sync.barrier();
    expect(sync.syncs).toBe(1);
    expect(walDescriptors()).toHaveLength(sqliteOwn + 1);
    // a checkpoint that truncates the WAL leaves the same file: the next write is synced through it
    d.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    insert.run('second');
    await sync.barrier();
    insert.run('third');
    await sync.barrier();
    expect(sync.syncs).toBe(3);
    expect(walDescriptors()).toHaveLength(sqliteOwn + 1);
    sync.close();
    expect(walDescriptors()).toHaveLength(sqliteOwn);
  });
});

describe('the app acknowledges writes only after the WAL is synced', () => {
  it('a write request syncs before its response; a read does not sync', async () => {
    const t = await apps.start();
    const me = await registerUser(t.app);
    const before = t.database.durability.syncs;
    await createAgent(t.app, me.token);
    expect(t.database.durability.syncs).toBeGreaterThan(before);
    const afterWrite = t.database.durability.syncs;
    for (let i = 0; i < 5; i++) await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
    expect(t.database.durability.syncs).toBe(afterWrite);
  });

  it('a streamed chat answer syncs before its done event', async () => {
    const t = await apps.start();
    const me = await registerUser(t.app);
    const agent = await createAgent(t.app, me.token);
    const before = t.database.durability.syncs;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}`,
      headers: { accept: 'text/event-stream' },
      payload: { message: 'hello', session_id: 'stream-1' },
    });
    expect(res.body).toContain('event: done');
    expect(t.database.durability.syncs).toBeGreaterThan(before);
  });
});
