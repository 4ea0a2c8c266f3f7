import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { auth, createAgent, makeDataDir, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * docs/DURABILITY.md "Damage inside the file": a page in the middle of the file overwritten (a
 * bad disk block, a copy torn by hand). Before: health said ok, and the transcripts on that page
 * answered 500 with nothing telling the owner what had happened or what to do.
 */

const apps: TestApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((t) => t.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function start(dataDir: string): Promise<TestApp> {
  const t = await startTestApp({ dataDir });
  apps.push(t);
  return t;
}

/** Overwrites one leaf page of the messages table (from the middle of its pages) with garbage. */
function damageAMessagesPage(file: string): number {
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = (
    db
      .prepare(`SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno`)
      .all() as Array<{ pageno: number }>
  ).map((r) => r.pageno);
  db.close();
  expect(pages.length).toBeGreaterThan(4);
  const page = pages[Math.floor(pages.length / 2)]!;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return page;
}

describe('damage in the middle of the database file', () => {
  it('is found by the integrity check, reported by health and the admin status with the restore command, and requests on it answer 503', {
    timeout: 60_000,
  }, async () => {
    const dataDir = makeDataDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    const { token } = await registerUser(first.app);
    const agent = await createAgent(first.app, token);
    // enough conversations for the messages table to span many pages
    for (let i = 0; i < 60; i++) {
      const res = await first.app.inject({
        method: 'POST',
        url: '/api/chat',
        headers: auth(token),
        payload: {
          chatbot_id: agent.id,
          session_id: `visitor-${i}`,
          message: `Question ${i}: ${'about the shop '.repeat(40)}`,
        },
      });
      expect(res.statusCode).toBe(200);
    }
    await first.close(); // folds the WAL into the file
    apps.splice(0);

    damageAMessagesPage(first.config.databaseFile);

    const t = await start(dataDir);
    await t.app.integrity.checkNow();

    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'error', database: 'corrupt' });
    expect(health.json().detail).toContain('chat-agent restore <backup file>');

    const status = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
    expect(status.json().database).toMatchObject({ state: 'corrupt', integrity_checked_at: expect.any(String) });
    expect(status.json().database.detail).toContain('chat-agent restore <backup file>');

    // every transcript either reads or says the database is damaged: none is a bare 500
    const conversations = await t.app.inject({
      method: 'GET',
      url: `/api/chat/conversations/${agent.id}`,
      headers: auth(token),
    });
    expect(conversations.statusCode).toBe(200);
    const statuses: number[] = [];
    for (const c of conversations.json() as Array<{ id: string }>) {
      const res = await t.app.inject({ method: 'GET', url: `/api/chat/messages/${c.id}`, headers: auth(token) });
      statuses.push(res.statusCode);
      if (res.statusCode === 503) expect(res.json().detail).toMatch(/damaged.*chat-agent restore/);
    }
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses).toContain(503);
    expect(statuses).toContain(200);
  });

  it('a sound database passes: health ok, and the admin status says when it was checked', async () => {
    const dataDir = makeDataDir();
    dirs.push(dataDir);
    const t = await start(dataDir);
    const { token } = await registerUser(t.app);
    await t.app.integrity.checkNow();
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).json()).toMatchObject({
      status: 'ok',
      database: 'ok',
    });
    const status = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
    expect(status.json().database).toEqual({ state: 'ok', detail: null, integrity_checked_at: expect.any(String) });
  });
});
