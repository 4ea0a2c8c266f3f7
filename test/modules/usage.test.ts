import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  auth,
  createAgent,
  ManualClock,
  registerUser,
  startTestApp,
  type TestApp,
  send,
  accountWithAgent,
} from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';

/**
 * Issue 22.3: what an owner uses against the plan (GET /api/usage). Before: no way to see the
 * month's messages, storage or agents against the plan short of hitting a limit.
 */

const PLANS = {
  small: {
    max_agents: 2,
    max_account_leads: 5,
    monthly_messages: 10,
    requests_per_minute: 10_000,
    requests_per_hour: 10_000,
    custom_branding: false,
    max_storage_mb: 1,
  },
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}, 60_000);

async function start(
  clock = new ManualClock('2026-11-10T12:00:00.000Z'),
  env: Record<string, string> = {},
): Promise<TestApp> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify(PLANS));
  const t = await startTestApp({ clock, env: { PLANS_FILE: file, DEFAULT_PLAN: 'small', ...env } });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => t.cleanup(),
  );
  return t;
}

describe('GET /api/usage', () => {
  it("counts the caller's messages this month, storage and agents against the plan", async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const empty = await t.app.inject({ method: 'GET', url: '/api/usage', headers: auth(token) });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      plan_id: 'small',
      plan_expires_at: null,
      month: '2026-11',
      messages: { used: 0, max: 10 },
      storage: { used_bytes: 0, max_bytes: 1024 * 1024 },
      agents: { used: 0, max: 2 },
    });

    const agent = await createAgent(t.app, token);
    for (const session of ['a', 'b', 'c']) {
      const res = await send(t.app, null, 'POST', `/api/public/chat/${agent.id}`, {
        message: 'Hello there',
        session_id: session,
      });
      expect(res.statusCode).toBe(200);
    }
    const text = await send(t.app, token, 'POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'FAQ',
      content: 'We open at nine. '.repeat(100),
    });
    expect(text.statusCode).toBe(201);
    await t.app.jobs.idle();

    const used = (await t.app.inject({ method: 'GET', url: '/api/usage', headers: auth(token) })).json();
    expect(used.messages).toEqual({ used: 3, max: 10 });
    expect(used.agents).toEqual({ used: 1, max: 2 });
    expect(used.storage.used_bytes).toBeGreaterThanOrEqual('We open at nine. '.repeat(100).trim().length);
  });

  it("another account's usage is its own, and the route needs a token", async () => {
    const t = await start();
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const agent = await createAgent(t.app, a.token);
    await send(t.app, null, 'POST', `/api/public/chat/${agent.id}`, { message: 'Hello', session_id: 's' });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/usage', headers: auth(b.token) })).json().messages.used,
    ).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/api/usage' })).statusCode).toBe(401);
  });
});

describe("the owner's sentence for visitors when the month's messages are used up", () => {
  it('replaces the default one, and an empty text brings the default back', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      unavailable_message: '  We are closed until Monday; call 010 123 4567.  ',
    });
    expect(put.json().unavailable_message).toBe('We are closed until Monday; call 010 123 4567.');
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: `/api/public/chat/${agent.id}`,
            payload: { message: `Question ${i}`, session_id: `s${i}` },
          })
        ).statusCode,
      ).toBe(200);
    }
    const refused = await send(t.app, null, 'POST', `/api/public/chat/${agent.id}`, {
      message: 'One more',
      session_id: 'late',
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail.message).toBe('We are closed until Monday; call 010 123 4567.');

    await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, { unavailable_message: '' });
    const again = await send(t.app, null, 'POST', `/api/public/chat/${agent.id}`, {
      message: 'One more',
      session_id: 'late',
    });
    expect(again.json().detail.message).toBe('This assistant is unavailable right now, please try again later.');
  });
});

describe("the owner's warning e-mails", () => {
  it("one at 80% and one at 100% of the month's messages, to the account's own address, and again next month", async () => {
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const clock = new ManualClock('2026-11-10T12:00:00.000Z');
    const t = await start(clock, { SMTP_URL: smtp.url });
    const { token, email } = await registerUser(t.app);
    const agent = await createAgent(t.app, token);
    const chat = (i: number) =>
      t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${agent.id}`,
        payload: { message: `Question ${i}`, session_id: `s${i}` },
      });

    for (let i = 1; i <= 7; i++) expect((await chat(i)).statusCode).toBe(200);
    await t.app.mailJobs.idle();
    expect(smtp.messages).toHaveLength(0);
    expect((await chat(8)).statusCode).toBe(200); // 8 of 10
    const eighty = await smtp.waitFor(1);
    expect(eighty.to).toEqual([email]);
    expect(eighty.subject).toBe("Your agents have used 80% of this month's messages");
    expect(eighty.body).toContain('used 8 of the 10 messages its small plan allows in 2026-11');
    expect((await chat(9)).statusCode).toBe(200);
    expect((await chat(10)).statusCode).toBe(200);
    const full = await smtp.waitFor(2);
    expect(full.subject).toBe("Your agents have used this month's messages");
    // refused messages warn nobody again
    expect((await chat(11)).statusCode).toBe(429);
    await t.app.mailJobs.idle();
    expect(smtp.messages).toHaveLength(2);

    clock.set('2026-12-01T00:00:00.000Z');
    for (let i = 12; i <= 19; i++) expect((await chat(i)).statusCode).toBe(200);
    expect((await smtp.waitFor(3)).body).toContain('in 2026-12');
  });
});
