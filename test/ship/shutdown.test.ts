import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startLocalSite, type LocalSite } from '../helpers/local-site.js';
import {
  bootServer,
  fromSource,
  ownerWithAgent,
  postJson,
  stopServer,
  serverEnv,
  unlimitedPlansFile,
  useServerProcesses,
} from '../helpers/server-process.js';

/**
 * Graceful shutdown (SIGTERM), on the real server: in-flight HTTP finishes, a running ingestion job
 * stops at a safe point and runs again at the next start, the database is closed (WAL folded back).
 */

const closers: Array<{ close(): Promise<void> }> = [];
// registered before useServerProcesses, so it runs after it: the servers are stopped first
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
}, 60_000);
const { tempDir, remove } = useServerProcesses('chat-agent-shutdown-');

/** plan limits high enough for polling a source's status */
function env(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const plans = remove(unlimitedPlansFile(`${dataDir}-plans.json`));
  return serverEnv(dataDir, { REGISTRATION: 'open', PLANS_FILE: plans, ...extra });
}

describe('graceful shutdown', () => {
  it('lets a streaming chat in flight finish and stores its answer before closing the database', {
    timeout: 90_000,
  }, async () => {
    const dataDir = tempDir();
    const llm: FakeLlm = await startFakeLlm('openai', {
      reply: 'Our shop opens at nine.',
      chunks: 3,
      pauseAfterChunks: 1,
    });
    closers.push(llm);
    const { server, base } = await bootServer(fromSource(), {
      env: env(dataDir, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: llm.baseURL }),
    });
    const { token } = await ownerWithAgent(base);
    const agent = await postJson(`${base}/api/chatbots`, { name: 'LLM bot', provider: 'openai' }, token);
    const agentId = ((await agent.json()) as { id: string }).id;

    const chat = fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ chatbot_id: agentId, message: 'When do you open?' }),
    });
    await llm.waitForPause();
    server.child.kill('SIGTERM');
    await server.waitFor((r) => r.msg === 'shutting down', 'the shutdown to begin');
    llm.release();

    const res = await chat;
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('event: done');
    expect(body).toContain('Our shop opens at nine.');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.records.some((r) => r.msg === 'shutdown complete: database closed')).toBe(true);

    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      const answer = db.prepare(`SELECT content FROM messages WHERE role = 'assistant'`).get() as
        | { content: string }
        | undefined;
      expect(answer?.content).toBe('Our shop opens at nine.');
    } finally {
      db.close();
    }
  });

  it('stops a running ingestion job at a safe point; it runs again at the next start and completes', {
    timeout: 120_000,
  }, async () => {
    const dataDir = tempDir();
    const site: LocalSite = await startLocalSite({
      '/': '<html><body><main><h1>Delivery</h1><p>Delivery to Madeira takes three working days.</p></main></body></html>',
    });
    closers.push(site);
    const held = site.hold('/');
    const serverEnv = env(dataDir, { ALLOW_PRIVATE_URLS: 'true' });
    const first = await bootServer(fromSource(), { env: serverEnv });
    const { token, agentId } = await ownerWithAgent(first.base);
    const created = await postJson(
      `${first.base}/api/sources/chatbot/${agentId}/website`,
      { url: `${site.url}/`, max_pages: 1 },
      token,
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const sourceId = ((await created.json()) as { id: string }).id;

    await held.reached; // the crawl is running, waiting on the page
    expect(await stopServer(first.server)).toEqual({ code: 0, signal: null });
    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      const job = db.prepare('SELECT status FROM jobs WHERE subject_id = ?').get(sourceId) as
        | { status: string }
        | undefined;
      expect(job, 'the job row stays for the next start').toBeDefined();
      const source = db.prepare('SELECT status FROM sources WHERE id = ?').get(sourceId) as
        | { status: string }
        | undefined;
      expect(source?.status).not.toBe('failed');
    } finally {
      db.close();
    }

    held.release();
    const second = await bootServer(fromSource(), { env: serverEnv });
    const login = await postJson(`${second.base}/api/auth/login`, {
      email: 'owner@example.com',
      password: 'a long enough password',
    });
    const token2 = ((await login.json()) as { access_token: string }).access_token;
    // no log line marks a finished source: its status over HTTP is the observable (each poll is a round trip)
    let status = '';
    const deadline = Date.now() + 60_000;
    while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
      const list = await fetch(`${second.base}/api/sources/chatbot/${agentId}`, {
        headers: { authorization: `Bearer ${token2}` },
      });
      expect(list.status).toBe(200);
      status = ((await list.json()) as Array<{ id: string; status: string }>).find((s) => s.id === sourceId)!.status;
    }
    expect(status).toBe('completed');
    const chat = await postJson(
      `${second.base}/api/chat`,
      { chatbot_id: agentId, message: 'How long is delivery to Madeira?' },
      token2,
    );
    expect(((await chat.json()) as { message: string }).message).toMatch(/three working days/);
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
  });
});
