import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/platform/db/index.js';
import { RowCache } from '../../src/platform/db/row-cache.js';
import { makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import path from 'node:path';
import { rmSync } from 'node:fs';
import type Database from 'better-sqlite3';

/** The next event-loop iteration: the cache reads `PRAGMA data_version` at most once per iteration. */
const nextIteration = () => new Promise((resolve) => setImmediate(resolve));

describe('RowCache on a real SQLite file', () => {
  let dir: string;
  let main: Database.Database;
  let other: Database.Database;

  function setup() {
    dir = makeDataDir();
    const file = path.join(dir, 'cache.db');
    main = openSqlite(file);
    main.pragma('journal_mode = WAL');
    main.exec("CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT NOT NULL); INSERT INTO items VALUES ('a', 'first')");
    other = openSqlite(file);
    const select = main.prepare<[string], { id: string; name: string }>('SELECT * FROM items WHERE id = ?');
    let loads = 0;
    const load = (id: string) => {
      loads += 1;
      return select.get(id);
    };
    return { cache: new RowCache<{ id: string; name: string }>(main), load, loads: () => loads };
  }

  afterEach(() => {
    other?.close();
    main?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('reads a row once, then serves it from memory, frozen', () => {
    const { cache, load, loads } = setup();
    const row = cache.get('a', load);
    expect(row).toEqual({ id: 'a', name: 'first' });
    expect(cache.get('a', load)).toBe(row);
    expect(loads()).toBe(1);
    expect(Object.isFrozen(row)).toBe(true);
    expect(cache.get('missing', load)).toBeUndefined();
    expect(cache.get('missing', load)).toBeUndefined();
    expect(loads()).toBe(3); // a missing row is not remembered: an insert needs no bookkeeping
  });

  it('reads again after forget (what the owning repo calls on its own writes)', () => {
    const { cache, load } = setup();
    expect(cache.get('a', load)?.name).toBe('first');
    main.prepare("UPDATE items SET name = 'second' WHERE id = 'a'").run();
    cache.forget('a');
    expect(cache.get('a', load)?.name).toBe('second');
  });

  it("sees another connection's commit from the next event-loop iteration on", async () => {
    const { cache, load } = setup();
    expect(cache.get('a', load)?.name).toBe('first');
    other.prepare("UPDATE items SET name = 'changed elsewhere' WHERE id = 'a'").run();
    await nextIteration();
    expect(cache.get('a', load)?.name).toBe('changed elsewhere');
  });

  it('does not keep a row read inside a transaction, which may roll back', () => {
    const { cache, load } = setup();
    const rollback = new Error('rollback');
    expect(() =>
      main.transaction(() => {
        main.prepare("UPDATE items SET name = 'uncommitted' WHERE id = 'a'").run();
        cache.forget('a');
        expect(cache.get('a', load)?.name).toBe('uncommitted');
        throw rollback;
      })(),
    ).toThrow(rollback);
    expect(cache.get('a', load)?.name).toBe('first');
  });
});

describe('cached agent and account rows in the app', () => {
  let t: TestApp;
  afterEach(async () => t?.cleanup(), 60_000);

  async function ownerWithAgent(base: string) {
    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Owner', email: 'owner@example.com', password: 'correct horse battery' }),
    }).then((r) => r.json() as Promise<any>);
    const token = reg.access_token as string;
    const agent = await fetch(`${base}/api/chatbots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Before' }),
    }).then((r) => r.json() as Promise<any>);
    const me = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.json() as Promise<any>,
    );
    return { token, agentId: agent.id as string, userId: me.id as string };
  }

  it('answers with what the API itself just changed', async () => {
    t = await startTestApp();
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { token, agentId } = await ownerWithAgent(base);
    expect((await fetch(`${base}/api/public/chatbot/${agentId}`).then((r) => r.json() as Promise<any>)).name).toBe(
      'Before',
    );
    const put = await fetch(`${base}/api/chatbots/${agentId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'After', public_access: false }),
    });
    expect(put.status).toBe(200);
    expect((await fetch(`${base}/api/public/chatbot/${agentId}`)).status).toBe(403);
    const del = await fetch(`${base}/api/chatbots/${agentId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(del.status).toBe(204);
    expect((await fetch(`${base}/api/public/chatbot/${agentId}`)).status).toBe(404);
    expect(
      (await fetch(`${base}/api/chatbots/${agentId}`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(404);
  });

  it('answers with what another process (the CLI beside the server) committed', async () => {
    t = await startTestApp();
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { token, agentId, userId } = await ownerWithAgent(base);
    const me = () => fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await fetch(`${base}/api/public/chatbot/${agentId}`).then((r) => r.json() as Promise<any>)).name).toBe(
      'Before',
    );
    expect((await me()).status).toBe(200);

    const cli = openSqlite(t.config.databaseFile);
    try {
      cli.prepare("UPDATE chatbots SET name = 'Renamed elsewhere' WHERE id = ?").run(agentId);
      cli.prepare("UPDATE users SET status = 'suspended' WHERE id = ?").run(userId);
    } finally {
      cli.close();
    }
    // over real HTTP: each request arrives in a later event-loop iteration than the commit
    expect((await fetch(`${base}/api/public/chatbot/${agentId}`).then((r) => r.json() as Promise<any>)).name).toBe(
      'Renamed elsewhere',
    );
    expect((await me()).status).toBe(403);
  });
});
