import { execFileSync } from 'node:child_process';
import { Agent, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  bootServer,
  fromSource,
  killAll,
  ownerWithAgent,
  postJson,
  stopServer,
  serverEnv,
  unlimitedPlansFile,
  withTimeout,
  type ServerProcess,
} from '../helpers/server-process.js';

/**
 * docs/DURABILITY.md "Disk full", on a real full disk: the server's DATA_DIR is a 16 MB tmpfs that
 * the test fills with a file. Mounting needs root (CI runs as root); elsewhere the test is skipped
 * and says so.
 *
 * Before: the rate-limit flush (a 2 s timer) took SQLITE_FULL as fatal and the process died 2-6 s
 * after the first refused write; restarted on the still-full disk it died again; health said ok.
 */

const root = mkdtempSync(path.join(tmpdir(), 'chat-agent-full-disk-'));
const mountPoint = path.join(root, 'disk');
mkdirSync(mountPoint);

function mountSmallDisk(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const mounted = mountSmallDisk();
if (!mounted) console.warn('full-disk test skipped: mounting a tmpfs needs root');

afterEach(async () => {
  await killAll();
}, 60_000);
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
  rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Writes zeros until the file system refuses: the disk is then full to the last block. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const get = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

/** Writes until one is refused for the full disk (the WAL may still hold room for the first few). */
async function writeUntilRefused(base: string, token: string, agentId: string): Promise<Response> {
  for (let i = 0; i < 200; i++) {
    const res =
      i % 2 === 0
        ? await postJson(`${base}/api/chatbots`, { name: `Bot ${i}`, instructions: 'x'.repeat(4000) }, token)
        : await postJson(
            `${base}/api/chat`,
            { chatbot_id: agentId, message: `question ${i} ${'y'.repeat(3000)}`, session_id: 'full-disk' },
            token,
          );
    // nothing is ever a 500: a write fits and is acknowledged, or is refused as 507
    expect([200, 201, 507], await res.clone().text()).toContain(res.status);
    if (res.status === 507) return res;
    await res.arrayBuffer();
  }
  throw new Error('the full disk never refused a write');
}

async function healthOf(base: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/health`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function alive(server: ServerProcess): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/**
 * A server from source on DATA_DIR `<mount>/data-<name>` (plans without limits from
 * `<root>/plans-<name>.json`), with an owner and an agent.
 */
async function serverOnMount(name: string) {
  const dataDir = path.join(mountPoint, `data-${name}`);
  const plans = unlimitedPlansFile(path.join(root, `plans-${name}.json`));
  const { server, base } = await bootServer(fromSource(), { env: serverEnv(dataDir, { PLANS_FILE: plans }) });
  const { token, agentId } = await ownerWithAgent(base);
  return { dataDir, server, base, token, agentId };
}

describe.skipIf(!mounted)('a full disk', () => {
  it('refuses writes with 507, keeps reads, says so in health, survives its timers and a restart, and recovers once space is freed', {
    timeout: 120_000,
  }, async () => {
    const dataDir = path.join(mountPoint, 'data');
    const plans = unlimitedPlansFile(path.join(root, 'plans.json'));
    // debug: the rate-limit flush's failure on the full disk is logged at debug (once per start at error)
    const env = serverEnv(dataDir, { LOG_LEVEL: 'debug', PLANS_FILE: plans });
    const first = await bootServer(fromSource(), { env });
    const { token, agentId } = await ownerWithAgent(first.base);
    const chat = await postJson(
      `${first.base}/api/chat`,
      { chatbot_id: agentId, message: 'What are your opening hours?', session_id: 'before' },
      token,
    );
    expect(chat.status).toBe(200);
    expect((await healthOf(first.base)).body).toMatchObject({ status: 'ok', database: 'ok' });

    const filler = path.join(mountPoint, 'filler');
    fillDisk(filler);

    const refused = await writeUntilRefused(first.base, token, agentId);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/disk is full.*nothing was saved/i);
    // reads keep working
    expect((await get(`${first.base}/api/chatbots/${agentId}`, token)).status).toBe(200);
    const conversations = await get(`${first.base}/api/chat/conversations/${agentId}`, token);
    expect(conversations.status).toBe(200);
    // health reports it
    const health = await healthOf(first.base);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'error', database: 'full' });
    expect(String(health.body.detail)).toMatch(/disk .* is full/);
    // the 2 s rate-limit flush meets the full disk and the process lives on
    await first.server.waitFor(
      (r) => r.msg === 'writing the rate-limit counters failed: the disk is full',
      'a rate-limit flush on the full disk',
      20_000,
    );
    expect(alive(first.server)).toBe(true);
    expect((await get(`${first.base}/api/chatbots`, token)).status).toBe(200);
    // a graceful stop on a full disk is still graceful
    expect(await stopServer(first.server)).toEqual({ code: 0, signal: null });

    // a restart on the still-full disk serves (a supervisor does not loop)
    const second = await bootServer(fromSource(), { env });
    expect((await healthOf(second.base)).body).toMatchObject({ status: 'error', database: 'full' });
    expect((await get(`${second.base}/api/chatbots/${agentId}`, token)).status).toBe(200);
    const login = await postJson(`${second.base}/api/auth/login`, {
      email: 'owner@example.com',
      password: 'a long enough password',
    });
    // the owner can log in on the full disk (the session is kept in memory until it has room)
    expect(login.status, await login.clone().text()).toBe(200);
    const { access_token: restartToken } = (await login.json()) as { access_token: string };
    expect((await get(`${second.base}/api/system/status`, restartToken)).status).toBe(200);
    await writeUntilRefused(second.base, token, agentId);
    expect(alive(second.server)).toBe(true);

    // space is freed: writes are taken again without a restart, and health comes back by itself
    rmSync(filler);
    const created = await postJson(`${second.base}/api/chatbots`, { name: 'After the cleanup' }, token);
    expect(created.status).toBe(201);
    const recovered = await withTimeout(
      (async () => {
        // the server clears the state once no write has failed for 10 s and the disk has room:
        // polled as a monitor would
        for (;;) {
          const h = await healthOf(second.base);
          if (h.status === 200) return h;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })(),
      30_000,
      'health to report ok again',
    );
    expect(recovered.body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });

    // nothing half-written: the file is whole, and every acknowledged agent is there
    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(
      (db.prepare(`SELECT count(*) AS n FROM chatbots WHERE name = 'After the cleanup'`).get() as { n: number }).n,
    ).toBe(1);
    db.close();
  });

  /**
   * Issue 31 fault 2: after an upload refused with 507 a graceful stop took 8.5-9.3 s (once over
   * the 10 s grace, killed with exit 1). The refused upload's file stream was destroyed, which
   * stalled the multipart parser, so the rest of the body was never read: the connection was
   * neither free for its next request nor idle for the stop to close, until the 10 s keep-alive
   * timeout ended it. Seen here without a clock: the client's next request on the same
   * keep-alive connection is answered on that connection.
   */
  it('an upload refused with 507 leaves its connection free: the next request is answered on it, and a stop exits 0', {
    timeout: 120_000,
  }, async () => {
    const { dataDir, server, base, token, agentId } = await serverOnMount('upload');
    const filler = path.join(mountPoint, 'filler-upload');
    fillDisk(filler);
    try {
      // 32 MB: more than the loopback socket buffers hold, so most of it is still to come after the 507
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(32 * 1024 * 1024, 'Opening hours are nine to five. ')]), 'hours.txt');
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer());
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const send = (method: string, url: string, headers: Record<string, string>, payload?: Buffer) =>
        new Promise<{ res: IncomingMessage; text: string; socket: Socket }>((resolve, reject) => {
          const req = request(`${base}${url}`, {
            method,
            agent,
            headers: { authorization: `Bearer ${token}`, ...headers },
          });
          req.on('error', reject);
          req.on('response', (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () => resolve({ res, text, socket: req.socket as Socket }));
          });
          req.end(payload);
        });
      const refused = await send(
        'POST',
        `/api/sources/chatbot/${agentId}/file`,
        { 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) },
        body,
      );
      expect(refused.res.statusCode, refused.text).toBe(507);
      expect(refused.res.headers.connection).not.toBe('close');

      const next = await send('GET', `/api/chatbots/${agentId}`, {});
      expect(next.res.statusCode).toBe(200);
      expect(next.socket, 'the next request went over the same keep-alive connection').toBe(refused.socket);
      agent.destroy();

      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
      expect(server.records.some((r) => r.msg === 'shutdown complete: database closed')).toBe(true);
    } finally {
      rmSync(filler, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  /**
   * Issue 31 fault 1: renewing a session (at most once a minute per session) was a write inside
   * every authenticated read, so after about a minute on a full disk every logged-in route
   * answered 507, the status route that shows the disk-full banner included, and a login (a
   * session row) was refused too. Here the sessions are a minute past their last renewal when the
   * disk fills, as they would be a minute later.
   */
  it('every logged-in read answers on a full disk, renewals due or not; the owner can log in and see the banner; the sessions are saved once space is freed', {
    timeout: 120_000,
  }, async () => {
    const { dataDir, server, base, token, agentId } = await serverOnMount('sessions');
    const login = () =>
      postJson(`${base}/api/auth/login`, { email: 'owner@example.com', password: 'a long enough password' });
    const tabs: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await login();
      expect(res.status).toBe(200);
      tabs.push(((await res.json()) as { access_token: string }).access_token);
    }
    const lastUsed = new Date(Date.now() - 2 * 60_000).toISOString();
    const dbFile = path.join(dataDir, 'chat-agent.db');
    const writer = new Database(dbFile);
    writer.prepare('UPDATE sessions SET last_used_at = ?').run(lastUsed);
    writer.close();

    const filler = path.join(mountPoint, 'filler-sessions');
    fillDisk(filler);
    try {
      await writeUntilRefused(base, token, agentId);
      for (const tab of tabs) {
        const status = await get(`${base}/api/system/status`, tab);
        expect(status.status, await status.clone().text()).toBe(200);
        expect(((await status.json()) as { database: { state: string } }).database.state).toBe('full');
        expect((await get(`${base}/api/auth/me`, tab)).status).toBe(200);
      }
      // the owner logs in on the full disk and sees the banner
      const onFullDisk = await login();
      expect(onFullDisk.status, await onFullDisk.clone().text()).toBe(200);
      const fresh = ((await onFullDisk.json()) as { access_token: string }).access_token;
      const banner = await get(`${base}/api/system/status`, fresh);
      expect(banner.status).toBe(200);
      expect(((await banner.json()) as { database: { state: string; detail: string } }).database).toMatchObject({
        state: 'full',
        detail: expect.stringMatching(/disk .* is full/),
      });
      // logging out is a write: refused like any other, and the session stays
      expect((await postJson(`${base}/api/auth/logout`, {}, tabs[0])).status).toBe(507);
      expect((await get(`${base}/api/auth/me`, tabs[0]!)).status).toBe(200);

      // space is freed: once health says so, the next requests save what was kept in memory
      rmSync(filler);
      await withTimeout(
        (async () => {
          for (;;) {
            if ((await healthOf(base)).status === 200) return;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        })(),
        30_000,
        'health to report ok again',
      );
      expect((await get(`${base}/api/auth/me`, fresh)).status).toBe(200);
      expect((await get(`${base}/api/auth/me`, tabs[1]!)).status).toBe(200);
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });

      const sessionOf = (jwt: string) =>
        (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { sid: string }).sid;
      const db = new Database(dbFile, { readonly: true });
      try {
        const row = (id: string) =>
          db.prepare('SELECT last_used_at FROM sessions WHERE id = ?').get(id) as { last_used_at: string } | undefined;
        expect(row(sessionOf(fresh)), 'the session started on the full disk is saved').toBeDefined();
        expect(row(sessionOf(tabs[1]!))!.last_used_at > lastUsed, 'its renewal is saved').toBe(true);
      } finally {
        db.close();
      }
    } finally {
      rmSync(filler, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
