import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import {
  auth,
  createAgent,
  makeDataDir,
  ManualClock,
  registerUser,
  startTestApp,
  type TestApp,
  accountWithAgent,
} from '../helpers/app.js';
import { clientBlock } from '../../src/platform/http/client-address.js';

/**
 * Plans, quotas and rate limits (docs/API.md "Plans"), with small plans from a PLANS_FILE and a
 * clock the test moves, so every window is crossed and reset without waiting.
 */

const PLANS = {
  // request rates of 5 a minute and 8 an hour
  tiny: {
    max_agents: 5,
    max_account_leads: 5,
    monthly_messages: 1000,
    requests_per_minute: 5,
    requests_per_hour: 8,
    custom_branding: false,
  },
  // 3 messages a month
  quota3: {
    max_agents: 5,
    max_account_leads: 5,
    monthly_messages: 3,
    requests_per_minute: 10_000,
    requests_per_hour: 10_000,
    custom_branding: false,
  },
  // rates that never matter, for the tests about something else
  roomy: {
    max_agents: 5,
    max_account_leads: 5,
    monthly_messages: 1000,
    requests_per_minute: 10_000,
    requests_per_hour: 10_000,
    custom_branding: true,
  },
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}, 60_000);

function plansFile(plans: object = PLANS): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return file;
}

async function start(
  opts: { defaultPlan?: string; env?: Record<string, string>; clock?: ManualClock; dataDir?: string } = {},
) {
  const clock = opts.clock ?? new ManualClock('2026-03-10T12:00:00.000Z');
  const t = await startTestApp({
    clock,
    dataDir: opts.dataDir,
    env: { PLANS_FILE: plansFile(), DEFAULT_PLAN: opts.defaultPlan ?? 'roomy', ...opts.env },
  });
  cleanups.push(() => t.close());
  return { t, clock };
}

const visitorChat = (agentId: string, sessionId: string, extra: Partial<InjectOptions> = {}): InjectOptions => ({
  method: 'POST',
  url: `/api/public/chat/${agentId}`,
  payload: { message: 'What are your opening hours?', session_id: sessionId },
  ...extra,
});

async function chatAs(t: TestApp, token: string, agentId: string, sessionId = 'owner-session') {
  return t.app.inject({
    method: 'POST',
    url: '/api/chat',
    headers: auth(token),
    payload: { chatbot_id: agentId, message: 'hello', session_id: sessionId },
  });
}

async function updateAgent(t: TestApp, token: string, id: string, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'PUT', url: `/api/chatbots/${id}`, headers: auth(token), payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function messageCount(t: TestApp, token: string, agentId: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `/api/chatbots/${agentId}`, headers: auth(token) });
  return res.json().messages_count;
}

describe('request rate per account on bearer routes', () => {
  it('allows requests_per_minute, refuses the next with 429, Retry-After and RateLimit-* headers, and resets with the minute', async () => {
    const { t, clock } = await start({ defaultPlan: 'tiny' });
    // registration is a public route: it counted against the address, not the account
    const me = await registerUser(t.app);
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
      expect(Number(res.headers['ratelimit-reset'])).toBe(60); // 12:00:00 sharp: the whole minute is left
    }
    const refused = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toMatch(/Rate limit exceeded/);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['ratelimit-remaining']).toBe('0');

    // another account has its own allowance
    const other = await registerUser(t.app);
    expect((await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(other.token) })).statusCode).toBe(
      200,
    );

    clock.advance(59_000);
    const stillRefused = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
    expect(stillRefused.statusCode).toBe(429);
    expect(stillRefused.headers['retry-after']).toBe('1');
    clock.advance(1_000);
    expect((await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) })).statusCode).toBe(200);
  });

  it('also holds requests_per_hour across minutes, and resets with the hour', async () => {
    const { t, clock } = await start({ defaultPlan: 'tiny' });
    const me = await registerUser(t.app);
    const call = () => t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(me.token) });
    for (let i = 0; i < 5; i++) expect((await call()).statusCode).toBe(200);
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect((await call()).statusCode).toBe(200);
    const refused = await call(); // 9th in the hour, 4th in this minute
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('8');
    expect(refused.headers['retry-after']).toBe(String(3600 - 60));
    clock.advance(3600_000 - 60_000);
    expect((await call()).statusCode).toBe(200);
  });

  it('a restart does not hand out a fresh window: counters come back from the database', async () => {
    const clock = new ManualClock('2026-03-10T12:00:00.000Z');
    const dataDir = makeDataDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const file = plansFile();
    const env = { PLANS_FILE: file, DEFAULT_PLAN: 'tiny' };
    const first = await startTestApp({ clock, dataDir, env });
    const me = await registerUser(first.app);
    for (let i = 0; i < 5; i++)
      await first.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
    await first.close();

    const second = await startTestApp({ clock, dataDir, env });
    cleanups.push(() => second.close());
    const res = await second.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) });
    expect(res.statusCode).toBe(429);
    clock.advance(60_000);
    expect((await second.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(me.token) })).statusCode).toBe(
      200,
    );
  });

  it('GET /api/health is never limited (monitors poll it)', async () => {
    const { t } = await start({ defaultPlan: 'tiny' });
    for (let i = 0; i < 12; i++)
      expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});

describe('request rate per client address on public routes', () => {
  async function tinyOwnerAgent() {
    const { t, clock } = await start({ defaultPlan: 'tiny' });
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    return { t, clock, owner, agent };
  }

  it('rotating session ids does not escape the per-address limit; another address is not affected', async () => {
    const { t, agent } = await tinyOwnerAgent();
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject(visitorChat(agent.id, `session-${i}`, { remoteAddress: '203.0.113.7' }));
      expect(res.statusCode, res.body).toBe(200);
    }
    const refused = await t.app.inject(visitorChat(agent.id, 'session-fresh', { remoteAddress: '203.0.113.7' }));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // lead and info routes share the address's allowance
    const lead = await t.app.inject({
      method: 'POST',
      url: `/api/public/lead/${agent.id}`,
      remoteAddress: '203.0.113.7',
      payload: { name: 'Ann', phone: '555 0100' },
    });
    expect(lead.statusCode).toBe(429);
    const elsewhere = await t.app.inject(visitorChat(agent.id, 'session-x', { remoteAddress: '198.51.100.20' }));
    expect(elsewhere.statusCode).toBe(200);
  });

  it('ignores a spoofed X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const { t, agent } = await tinyOwnerAgent();
    for (let i = 0; i < 5; i++) {
      await t.app.inject(
        visitorChat(agent.id, `s${i}`, {
          remoteAddress: '203.0.113.7',
          headers: { 'x-forwarded-for': `192.0.2.${i}` },
        }),
      );
    }
    const spoofed = await t.app.inject(
      visitorChat(agent.id, 's-new', { remoteAddress: '203.0.113.7', headers: { 'x-forwarded-for': '192.0.2.99' } }),
    );
    expect(spoofed.statusCode).toBe(429);
  });

  it('with TRUST_PROXY the forwarded address is the client, so clients behind one proxy count apart', async () => {
    const { t } = await start({ defaultPlan: 'tiny', env: { TRUST_PROXY: 'true' } });
    const { agent } = await accountWithAgent(t.app);
    const viaProxy = (client: string, session: string) =>
      t.app.inject(
        visitorChat(agent.id, session, { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } }),
      );
    for (let i = 0; i < 5; i++) expect((await viaProxy('192.0.2.1', `a${i}`)).statusCode).toBe(200);
    expect((await viaProxy('192.0.2.1', 'a-more')).statusCode).toBe(429);
    expect((await viaProxy('192.0.2.2', 'b0')).statusCode).toBe(200);
  });

  it('with TRUST_PROXY=true only the proxy in front is believed: an address the client put in X-Forwarded-For does not escape its limit', async () => {
    const { t } = await start({ defaultPlan: 'tiny', env: { TRUST_PROXY: 'true' } });
    const { agent } = await accountWithAgent(t.app);
    // nginx's $proxy_add_x_forwarded_for appends the address it saw to what the client sent
    const spoofing = (fake: string, session: string) =>
      t.app.inject(
        visitorChat(agent.id, session, {
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': `${fake}, 192.0.2.1` },
        }),
      );
    for (let i = 0; i < 5; i++) expect((await spoofing(`198.51.100.${i}`, `s${i}`)).statusCode).toBe(200);
    expect((await spoofing('198.51.100.77', 's-more')).statusCode).toBe(429);
  });

  it("TRUST_PROXY as a number of hops, or as the proxies' addresses", async () => {
    for (const trust of ['2', '10.0.0.1, 10.0.0.2']) {
      const { t } = await start({ defaultPlan: 'tiny', env: { TRUST_PROXY: trust } });
      const owner = await registerUser(t.app);
      const agent = await createAgent(t.app, owner.token);
      // client -> proxy 10.0.0.2 -> proxy 10.0.0.1 -> app; the client's own header is not believed
      const chain = (fake: string, client: string, session: string) =>
        t.app.inject(
          visitorChat(agent.id, session, {
            remoteAddress: '10.0.0.1',
            headers: { 'x-forwarded-for': `${fake}, ${client}, 10.0.0.2` },
          }),
        );
      for (let i = 0; i < 5; i++)
        expect((await chain(`198.51.100.${i}`, '192.0.2.1', `a${i}`)).statusCode, trust).toBe(200);
      expect((await chain('198.51.100.99', '192.0.2.1', 'a-more')).statusCode, trust).toBe(429);
      expect((await chain('198.51.100.99', '192.0.2.2', 'b0')).statusCode, trust).toBe(200);
    }
  });

  it('IPv6 clients count per /64, so hopping addresses inside one block does not escape', async () => {
    const { t, agent } = await tinyOwnerAgent();
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.app.inject(visitorChat(agent.id, `v6-${i}`, { remoteAddress: `2001:db8:1:2::${i + 1}` }))).statusCode,
      ).toBe(200);
    }
    expect(
      (await t.app.inject(visitorChat(agent.id, 'v6-x', { remoteAddress: '2001:db8:1:2:ffff::9' }))).statusCode,
    ).toBe(429);
    expect((await t.app.inject(visitorChat(agent.id, 'v6-y', { remoteAddress: '2001:db8:1:3::1' }))).statusCode).toBe(
      200,
    );
  });

  it("visitor routes use the agent owner's plan", async () => {
    const { t } = await start({ defaultPlan: 'tiny' });
    const admin = await registerUser(t.app); // first account: admin
    const roomyOwner = await registerUser(t.app);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(roomyOwner.token) });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${me.json().id}`,
      headers: auth(admin.token),
      payload: { plan_id: 'roomy' },
    });
    const agent = await createAgent(t.app, roomyOwner.token);
    for (let i = 0; i < 8; i++) {
      const res = await t.app.inject(visitorChat(agent.id, `r${i}`, { remoteAddress: '203.0.113.50' }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('10000');
    }
  });
});

describe('monthly message quota', () => {
  it('counts visitor and owner messages; the one over the quota is 429 with the limit object and stores nothing; next month resets', async () => {
    const { t, clock } = await start();
    const admin = await registerUser(t.app);
    const owner = await registerUser(t.app);
    const ownerId = (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(owner.token) })).json().id;
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${ownerId}`,
      headers: auth(admin.token),
      payload: { plan_id: 'quota3' },
    });
    const agent = await createAgent(t.app, owner.token);
    const other = await createAgent(t.app, owner.token, { name: 'Second' });

    expect((await t.app.inject(visitorChat(agent.id, 'v1'))).statusCode).toBe(200);
    expect((await chatAs(t, owner.token, agent.id)).statusCode).toBe(200);
    expect((await t.app.inject(visitorChat(other.id, 'v2'))).statusCode).toBe(200);
    const before = await messageCount(t, owner.token, other.id);

    const visitor = await t.app.inject(visitorChat(other.id, 'v2'));
    const owners = await chatAs(t, owner.token, other.id);
    for (const res of [visitor, owners]) {
      expect(res.statusCode).toBe(429);
      // 2026-03-10T12:00Z to 2026-04-01T00:00Z
      expect(res.headers['retry-after']).toBe(String(21 * 86400 + 12 * 3600));
    }
    // the owner reads which limit it is; a visitor reads a sentence for them (not the owner's plan)
    expect(owners.json().detail).toEqual({
      message: expect.stringMatching(/Monthly message quota.*quota3 plan/),
      current: 3,
      max: 3,
      upgrade_required: true,
    });
    expect(visitor.json().detail).toEqual({
      message: 'This assistant is unavailable right now, please try again later.',
      current: 3,
      max: 3,
      upgrade_required: true,
    });
    const streamed = await t.app.inject(visitorChat(other.id, 'v3', { headers: { accept: 'text/event-stream' } }));
    expect(streamed.statusCode).toBe(429);
    expect(streamed.headers['content-type']).toMatch(/application\/json/);
    expect(await messageCount(t, owner.token, other.id)).toBe(before);
    const conversations = await t.app.inject({
      method: 'GET',
      url: `/api/chat/conversations/${other.id}`,
      headers: auth(owner.token),
    });
    expect(conversations.json().map((c: { session_id: string }) => c.session_id)).toEqual(['v2']);

    // deleting an agent does not give the month's messages back
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/chatbots/${agent.id}`, headers: auth(owner.token) }))
        .statusCode,
    ).toBe(204);
    expect((await t.app.inject(visitorChat(other.id, 'v2'))).statusCode).toBe(429);

    clock.set('2026-04-01T00:00:00.000Z');
    expect((await t.app.inject(visitorChat(other.id, 'v2'))).statusCode).toBe(200);
  });

  it('another account is not affected by one account reaching its quota', async () => {
    const { t } = await start({ defaultPlan: 'quota3' });
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const agentA = await createAgent(t.app, a.token);
    const agentB = await createAgent(t.app, b.token);
    for (let i = 0; i < 3; i++)
      await t.app.inject(visitorChat(agentA.id, 'x', { remoteAddress: `203.0.113.${i + 1}` }));
    expect((await t.app.inject(visitorChat(agentA.id, 'x', { remoteAddress: '203.0.113.9' }))).statusCode).toBe(429);
    expect((await t.app.inject(visitorChat(agentB.id, 'x', { remoteAddress: '203.0.113.10' }))).statusCode).toBe(200);
  });
});

describe('widget session rate (rate_limit_enabled, messages_per_hour)', () => {
  it('allows messages_per_hour per session in any rolling hour; other sessions and the owner are not affected', async () => {
    const { t, clock } = await start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    await updateAgent(t, owner.token, agent.id, { rate_limit_enabled: true, messages_per_hour: 2 });

    expect((await t.app.inject(visitorChat(agent.id, 's1'))).statusCode).toBe(200); // 12:00
    clock.advance(40 * 60_000);
    expect((await t.app.inject(visitorChat(agent.id, 's1'))).statusCode).toBe(200); // 12:40
    clock.advance(10 * 60_000);
    const refused = await t.app.inject(visitorChat(agent.id, 's1')); // 12:50
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toMatch(/2 messages per hour/);
    expect(refused.headers['retry-after']).toBe(String(10 * 60)); // the 12:00 message leaves the hour at 13:00
    expect((await t.app.inject(visitorChat(agent.id, 's2'))).statusCode).toBe(200);
    expect((await chatAs(t, owner.token, agent.id, 'owner-session')).statusCode).toBe(200);

    clock.advance(10 * 60_000 + 1); // 13:00: one message in the last hour
    expect((await t.app.inject(visitorChat(agent.id, 's1'))).statusCode).toBe(200);
  });

  it('does nothing while rate_limit_enabled is false', async () => {
    const { t } = await start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    await updateAgent(t, owner.token, agent.id, { messages_per_hour: 1 });
    for (let i = 0; i < 3; i++) expect((await t.app.inject(visitorChat(agent.id, 's1'))).statusCode).toBe(200);
  });
});

describe('per-agent daily message cap (daily_message_limit, beyond the spec)', () => {
  it('is null on a new agent, settable by PUT, and validated', async () => {
    const { t } = await start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    expect(agent.daily_message_limit).toBeNull();
    expect((await updateAgent(t, owner.token, agent.id, { daily_message_limit: 50 })).daily_message_limit).toBe(50);
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(owner.token),
      payload: { daily_message_limit: 0 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^daily_message_limit/);
    expect((await updateAgent(t, owner.token, agent.id, { daily_message_limit: null })).daily_message_limit).toBeNull();
  });

  it('refuses visitor messages past the cap until the next UTC day; the owner can still test', async () => {
    const { t, clock } = await start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    await updateAgent(t, owner.token, agent.id, { daily_message_limit: 2 });
    expect((await t.app.inject(visitorChat(agent.id, 'a'))).statusCode).toBe(200);
    expect((await t.app.inject(visitorChat(agent.id, 'b'))).statusCode).toBe(200);
    const refused = await t.app.inject(visitorChat(agent.id, 'c'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toMatch(/limit for today/);
    expect(refused.headers['retry-after']).toBe(String(12 * 3600)); // 12:00 UTC to midnight
    expect((await chatAs(t, owner.token, agent.id)).statusCode).toBe(200);
    clock.set('2026-03-11T00:00:00.000Z');
    expect((await t.app.inject(visitorChat(agent.id, 'c'))).statusCode).toBe(200);
  });
});

describe('public chat abuse guards', () => {
  it('a message over 4,000 characters is 413 and stores nothing', async () => {
    const { t } = await start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}`,
      payload: { message: 'x'.repeat(4001), session_id: 's' },
    });
    expect(res.statusCode).toBe(413);
    expect(await messageCount(t, owner.token, agent.id)).toBe(0);
    const exact = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}`,
      payload: { message: 'x'.repeat(4000), session_id: 's' },
    });
    expect(exact.statusCode).toBe(200);
  });
});

describe('allowed_domains (beyond the spec)', () => {
  async function agentWithDomains(domains: string[]) {
    const { t } = await start({ env: { PUBLIC_URL: 'https://bots.example.net' } });
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    const updated = await updateAgent(t, owner.token, agent.id, { allowed_domains: domains });
    return { t, owner, agent: updated };
  }

  const visitorRequests = (id: string): InjectOptions[] => [
    { method: 'GET', url: `/api/public/chatbot/${id}` },
    { method: 'POST', url: `/api/public/chat/${id}`, payload: { message: 'hi', session_id: 's-origin' } },
    { method: 'POST', url: `/api/public/lead/${id}`, payload: { name: 'Ann', phone: '555 0100' } },
  ];

  it('is [] on a new agent; PUT normalises pasted addresses, drops duplicates and names a bad entry', async () => {
    const { t, owner, agent } = await agentWithDomains([]);
    expect(agent.allowed_domains).toEqual([]);
    const updated = await updateAgent(t, owner.token, agent.id, {
      allowed_domains: ['https://Shop.Example.com/contact?x=1', '*.example.org', 'localhost:5173', 'shop.example.com'],
    });
    expect(updated.allowed_domains).toEqual(['shop.example.com', '*.example.org', 'localhost:5173']);
    for (const bad of ['not a host', 'ex*ample.com', 'user@example.com', '', 'intranet']) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/chatbots/${agent.id}`,
        headers: auth(owner.token),
        payload: { allowed_domains: ['ok.example.com', bad] },
      });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().detail).toMatch(/^allowed_domains\.1/);
    }
    const kept = await t.app.inject({ method: 'GET', url: `/api/chatbots/${agent.id}`, headers: auth(owner.token) });
    expect(kept.json().allowed_domains).toEqual(['shop.example.com', '*.example.org', 'localhost:5173']);
  });

  it('an allowed origin passes with CORS headers; another origin gets 403 without them; no Origin passes', async () => {
    const { t, agent } = await agentWithDomains(['shop.example.com', '*.example.org', 'localhost:5173']);
    for (const req of visitorRequests(agent.id)) {
      for (const origin of [
        'https://shop.example.com',
        'http://shop.example.com',
        'https://a.b.example.org',
        'http://localhost:5173',
        'https://bots.example.net',
      ]) {
        const res = await t.app.inject({ ...req, headers: { origin } });
        expect(res.statusCode, `${req.method} ${req.url} from ${origin}: ${res.body}`).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers.vary).toMatch(/Origin/);
      }
      for (const origin of [
        'https://evil.example.com',
        'https://example.org',
        'https://shop.example.com.evil.io',
        'http://localhost:3000',
        'null',
      ]) {
        const res = await t.app.inject({ ...req, headers: { origin } });
        expect(res.statusCode, `${req.method} ${req.url} from ${origin}`).toBe(403);
        expect(res.json().detail).toMatch(/allowed domains/);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
      const serverSide = await t.app.inject(req);
      expect(serverSide.statusCode).toBe(200);
    }
  });

  it('answers the preflight for an allowed origin and refuses it for another', async () => {
    const { t, agent } = await agentWithDomains(['shop.example.com']);
    for (const url of [
      `/api/public/chat/${agent.id}`,
      `/api/public/lead/${agent.id}`,
      `/api/public/chatbot/${agent.id}`,
    ]) {
      const ok = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://shop.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, accept',
        },
      });
      expect(ok.statusCode).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example.com');
      expect(ok.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(String(ok.headers['access-control-allow-headers']).toLowerCase()).toMatch(/content-type/);
      const refused = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    }
    const unknown = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/public/chat/no-such-agent',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('an empty list lets any site embed the agent', async () => {
    const { t, agent } = await agentWithDomains([]);
    for (const req of visitorRequests(agent.id)) {
      const res = await t.app.inject({ ...req, headers: { origin: 'https://anyone.example' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://anyone.example');
    }
  });

  it('a visitor-facing 429 carries CORS headers and exposes Retry-After, so the widget can read it', async () => {
    const { t } = await start({ defaultPlan: 'tiny' });
    const { agent } = await accountWithAgent(t.app);
    let last;
    for (let i = 0; i < 6; i++)
      last = await t.app.inject(visitorChat(agent.id, `c${i}`, { headers: { origin: 'https://shop.example.com' } }));
    expect(last!.statusCode).toBe(429);
    expect(last!.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    expect(String(last!.headers['access-control-expose-headers'])).toMatch(/Retry-After/);
  });

  it('authenticated routes never send CORS headers, whatever the Origin', async () => {
    const { t, owner, agent } = await agentWithDomains([]);
    for (const req of [
      { method: 'GET', url: '/api/chatbots' },
      { method: 'GET', url: `/api/chatbots/${agent.id}` },
      { method: 'GET', url: '/api/leads' },
      { method: 'GET', url: '/api/auth/me' },
    ] as const) {
      const res = await t.app.inject({ ...req, headers: { ...auth(owner.token), origin: 'https://evil.example.com' } });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/chatbots',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('clientBlock (the address a public request is counted under)', () => {
  it('keeps canonical IPv4, unwraps IPv4-mapped IPv6, and counts IPv6 per /64', () => {
    expect(clientBlock('203.0.113.7')).toBe('203.0.113.7');
    expect(clientBlock('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientBlock('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientBlock('2001:db8:1:2:bbbb::9')).toBe('2001:db8:1:2::/64');
  });

  it('does not let a non-canonical spelling of an IPv4 address count separately', () => {
    // the fast path takes only canonical dotted quads; others go through the parser
    expect(clientBlock('203.0.113.07')).toBe(clientBlock('203.0.113.7'));
  });
});
