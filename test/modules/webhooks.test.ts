import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries, webhooks } from '../../src/modules/webhooks/tables.js';
import {
  auth,
  createAgent,
  makeDataDir,
  ManualClock,
  registerUser,
  ROOMY_PLAN,
  useTestApps,
  type TestApp,
  send,
  accountWithAgent,
} from '../helpers/app.js';

type Json = Record<string, any>;

/**
 * A receiver as an integrator writes one (docs/API-NOTES.md "Webhooks"): it checks the signature with its own
 * copy of the secret, independently of the app's code, and answers 401 when it does not match.
 */
class Receiver {
  server: http.Server | undefined;
  port = 0;
  /** what to answer a correctly signed request */
  answer = 200;
  secret = '';
  received: Array<{ headers: http.IncomingHttpHeaders; body: string; verified: boolean }> = [];

  constructor(private readonly clock: ManualClock) {}

  async up(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verified = verify(
          this.secret,
          body,
          String(req.headers['chat-agent-signature'] ?? ''),
          Math.floor(this.clock.now().getTime() / 1000),
        );
        this.received.push({ headers: req.headers, body, verified });
        res.statusCode = verified ? this.answer : 401;
        res.end(verified ? 'ok' : 'bad signature');
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }
}

/** The 10-line verification of docs/API-NOTES.md "Webhooks", written out here. */
function verify(secret: string, rawBody: string, header: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=')));
  const t = Number(parts.t);
  if (!secret || !Number.isInteger(t) || Math.abs(nowSeconds - t) > 300 || typeof parts.v1 !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return parts.v1.length === expected.length && timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
}

const apps = useTestApps();

async function start(
  env: Record<string, string> = { ALLOW_PRIVATE_URLS: 'true' },
): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const t = await apps.start({ clock, env });
  return { t, clock };
}

function receiver(clock: ManualClock): Receiver {
  const r = new Receiver(clock);
  apps.before({ close: () => r.down() });
  return r;
}

async function addHook(t: TestApp, token: string, body: Json): Promise<Json> {
  const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: auth(token), payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The clock moved on by `ms`, then the deliveries that came due are done. */
async function later(t: TestApp, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await t.app.webhookJobs.idle();
}

/** A receiver that is up, an account with an agent, and a lead.created hook to the receiver, whose secret it checks. */
async function leadHook(t: TestApp, clock: ManualClock) {
  const r = receiver(clock);
  await r.up();
  const { token, agent } = await accountWithAgent(t.app);
  const hook = await addHook(t, token, { url: r.url, events: ['lead.created'] });
  r.secret = hook.secret;
  return { r, token, agent, hook };
}

async function postLead(t: TestApp, agentId: string, name = 'Ann', phone = '+1 555 0100'): Promise<Json> {
  const res = await send(t.app, null, 'POST', `/api/public/lead/${agentId}`, { name, phone, session_id: 's-1' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function log(t: TestApp, token: string, hookId: string): Promise<Json[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/webhooks/${hookId}/deliveries`, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('webhooks', () => {
  it('delivers a signed lead.created when a visitor leaves a lead', async () => {
    const { t, clock } = await start();
    const r = receiver(clock);
    await r.up();
    const { token, agent } = await accountWithAgent(t.app);
    const hook = await addHook(t, token, { url: r.url, events: ['lead.created'] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(hook).toMatchObject({ url: r.url, events: ['lead.created'], active: true });
    r.secret = hook.secret;

    const lead = await postLead(t, agent.id);
    await t.app.webhookJobs.idle();

    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.verified).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('chat-agent-webhooks');
    expect(got.headers['chat-agent-event']).toBe('lead.created');
    expect(got.headers['chat-agent-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const body = JSON.parse(got.body);
    expect(body).toEqual({
      id: got.headers['chat-agent-delivery'],
      event: 'lead.created',
      created_at: '2026-03-01T12:00:00.000Z',
      data: {
        chatbot_id: agent.id,
        lead: { id: lead.id, name: 'Ann', phone: '+1 555 0100', session_id: 's-1', created_at: lead.created_at },
      },
    });

    const entries = await log(t, token, hook.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      id: body.id,
      event: 'lead.created',
      status: 'delivered',
      attempts: 1,
      last_status: 200,
      last_error: null,
      payload: got.body,
    });
    expect(entries[0]!.delivered_at).toBe('2026-03-01T12:00:00.000Z');
  });

  it('retries with backoff while the receiver is down, and delivers exactly once when it is up', async () => {
    const { t, clock } = await start();
    const r = receiver(clock);
    await r.up();
    await r.down(); // the port is known, nothing listens on it: connections are refused
    const { token, agent } = await accountWithAgent(t.app);
    const hook = await addHook(t, token, { url: r.url, events: ['lead.created'] });
    r.secret = hook.secret;

    await postLead(t, agent.id);
    await t.app.webhookJobs.idle();
    let [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: null });
    expect(d!.last_error).toMatch(/refused the connection/);

    // up, but failing: 500 is retried too, 10 s after the first try
    await r.up();
    r.answer = 500;
    await later(t, clock, 9_000);
    expect(r.received).toHaveLength(0);
    await later(t, clock, 1_000);
    [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 2, last_status: 500, last_error: 'HTTP 500: ok' });

    // the next try waits a minute; the receiver is fixed meanwhile
    r.answer = 204;
    await later(t, clock, 59_000);
    expect(r.received).toHaveLength(1);
    await later(t, clock, 1_000);
    [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, last_status: 204, last_error: null });
    expect(r.received.map((x) => x.verified)).toEqual([true, true]);
    // every try carries the same delivery id and body (receivers de-duplicate on it)
    expect(new Set(r.received.map((x) => x.headers['chat-agent-delivery'])).size).toBe(1);

    // nothing more is sent, however long we wait
    await later(t, clock, 24 * 3600_000);
    expect(r.received).toHaveLength(2);
  });

  it('a 410 (or a signature the receiver rejects) fails for good, shows in the log, and can be retried by hand', async () => {
    const { t, clock } = await start();
    const { r, token, agent, hook } = await leadHook(t, clock);
    r.answer = 410;

    await postLead(t, agent.id);
    await t.app.webhookJobs.idle();
    clock.advance(12 * 3600_000); // longer than every retry wait (a session lasts a day idle)
    await t.app.webhookJobs.idle();
    let [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status: 410 });
    expect(r.received).toHaveLength(1);

    // only a failed delivery may be retried; another account's id is 404
    const other = await registerUser(t.app);
    const foreign = await send(t.app, other.token, 'POST', `/api/webhooks/${hook.id}/deliveries/${d!.id}/retry`);
    expect(foreign.statusCode).toBe(404);
    r.answer = 200;
    const retry = await send(t.app, token, 'POST', `/api/webhooks/${hook.id}/deliveries/${d!.id}/retry`);
    expect(retry.statusCode, retry.body).toBe(202);
    expect(retry.json()).toMatchObject({ id: d!.id, status: 'pending', attempts: 0 });
    await t.app.webhookJobs.idle();
    [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200 });
    const again = await send(t.app, token, 'POST', `/api/webhooks/${hook.id}/deliveries/${d!.id}/retry`);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/failed/);

    // a receiver holding a wrong secret answers 401: that is final too (the receiver says no)
    r.secret = 'whsec_not-the-one';
    await postLead(t, agent.id, 'Bob', '+1 555 0101');
    await t.app.webhookJobs.idle();
    const entries = await log(t, token, hook.id);
    expect(entries[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_status: 401,
      last_error: 'HTTP 401: bad signature',
    });
    expect(r.received.at(-1)!.verified).toBe(false);
  });

  it('rotating the secret signs later deliveries with the new one; a test event is a signed ping', async () => {
    const { t, clock } = await start();
    const r = receiver(clock);
    await r.up();
    const { token } = await registerUser(t.app);
    const hook = await addHook(t, token, { url: r.url, events: ['lead.created'] });
    const rotated = await send(t.app, token, 'POST', `/api/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const secret = rotated.json().secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);

    r.secret = secret;
    const test = await t.app.inject({ method: 'POST', url: `/api/webhooks/${hook.id}/test`, headers: auth(token) });
    expect(test.statusCode, test.body).toBe(202);
    expect(test.json()).toMatchObject({ event: 'ping', status: 'pending' });
    await t.app.webhookJobs.idle();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.verified).toBe(true);
    expect(r.received[0]!.headers['chat-agent-event']).toBe('ping');
    expect(
      verify(
        hook.secret,
        r.received[0]!.body,
        String(r.received[0]!.headers['chat-agent-signature']),
        Math.floor(clock.now().getTime() / 1000),
      ),
    ).toBe(false);
    expect((await log(t, token, hook.id))[0]).toMatchObject({ event: 'ping', status: 'delivered' });
  });

  it('never shows the secret again, and keeps it encrypted at rest', async () => {
    const { t } = await start();
    const { token } = await registerUser(t.app);
    const hook = await addHook(t, token, {
      url: 'https://hooks.example.com/in',
      events: ['lead.created', 'message.created'],
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: auth(token) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      {
        id: hook.id,
        url: 'https://hooks.example.com/in',
        events: ['lead.created', 'message.created'],
        active: true,
        created_at: hook.created_at,
        updated_at: hook.updated_at,
      },
    ]);
    expect(list.body).not.toContain(hook.secret);
    const patched = await send(t.app, token, 'PATCH', `/api/webhooks/${hook.id}`, { active: false });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).not.toHaveProperty('secret');
    expect(patched.json().active).toBe(false);
    const stored = t.database.db.select().from(webhooks).all();
    expect(stored[0]!.secret).not.toContain(hook.secret.slice(6));
  });

  it("another account's webhook answers exactly like a missing one", async () => {
    const { t } = await start();
    const owner = await registerUser(t.app);
    const other = await registerUser(t.app);
    const hook = await addHook(t, owner.token, { url: 'https://hooks.example.com/in', events: ['lead.created'] });
    const calls: Array<[string, string, Json?]> = [
      ['PATCH', '', { active: false }],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
      ['POST', '/test'],
      ['POST', '/deliveries/nope/retry'],
    ];
    for (const [method, suffix, payload] of calls) {
      const foreign = await t.app.inject({
        method: method as 'GET',
        url: `/api/webhooks/${hook.id}${suffix}`,
        headers: auth(other.token),
        ...(payload ? { payload } : {}),
      });
      const missing = await t.app.inject({
        method: method as 'GET',
        url: `/api/webhooks/no-such-id${suffix}`,
        headers: auth(other.token),
        ...(payload ? { payload } : {}),
      });
      expect(foreign.statusCode, `${method} ${suffix}`).toBe(404);
      expect(foreign.json()).toEqual(missing.json());
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: auth(other.token) })).json()).toEqual(
      [],
    );
    expect((await t.app.inject({ method: 'GET', url: '/api/webhooks' })).statusCode).toBe(401);
    // still there and active
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: auth(owner.token) })).json()[0],
    ).toMatchObject({ id: hook.id, active: true });
  });

  it('validates URLs and events with a 400 that says why', async () => {
    const { t } = await start({});
    const { token } = await registerUser(t.app);
    const bad = async (body: Json, pattern: RegExp) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: auth(token), payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().detail, JSON.stringify(body)).toMatch(pattern);
    };
    const events = ['lead.created'];
    await bad({ url: 'https://127.0.0.1/hook', events }, /not a public address/);
    await bad({ url: 'https://10.1.2.3/hook', events }, /not a public address/);
    await bad({ url: 'https://[::1]/hook', events }, /not a public address/);
    await bad({ url: 'https://169.254.169.254/latest', events }, /not a public address/);
    await bad({ url: 'https://localhost/hook', events }, /internal host name/);
    await bad({ url: 'http://hooks.example.com/in', events }, /https/);
    await bad({ url: 'ftp://hooks.example.com/in', events }, /http/);
    await bad({ url: 'not a url', events }, /url/);
    await bad(
      { url: 'https://hooks.example.com/in', events: ['lead.created', 'lead.deleted'] },
      /lead\.deleted.*allowed: lead\.created, conversation\.escalated, conversation\.resolved, message\.created/,
    );
    await bad({ url: 'https://hooks.example.com/in', events: [] }, /events/);
    await bad({ url: 'https://hooks.example.com/in' }, /events/);
    const hook = await addHook(t, token, { url: 'https://hooks.example.com/in', events });
    const patch = await send(t.app, token, 'PATCH', `/api/webhooks/${hook.id}`, { url: 'https://192.168.1.1/' });
    expect(patch.statusCode).toBe(400);
    const limit = await send(t.app, token, 'GET', `/api/webhooks/${hook.id}/deliveries?limit=0`);
    expect(limit.statusCode).toBe(400);
    for (let i = 1; i < 10; i++) await addHook(t, token, { url: `https://hooks.example.com/${i}`, events });
    const eleventh = await send(t.app, token, 'POST', '/api/webhooks', { url: 'https://hooks.example.com/11', events });
    expect(eleventh.statusCode).toBe(403);
    expect(eleventh.json().detail).toMatch(/at most 10/);
  });

  it('deleting a webhook stops its deliveries, pending retries included; a disabled one gets no new events', async () => {
    const { t, clock } = await start();
    const r = receiver(clock);
    await r.up();
    await r.down();
    const { token, agent } = await accountWithAgent(t.app);
    const hook = await addHook(t, token, { url: r.url, events: ['lead.created'] });
    const second = await addHook(t, token, { url: r.url, events: ['lead.created'] });
    r.secret = hook.secret;
    await send(t.app, token, 'PATCH', `/api/webhooks/${second.id}`, { active: false });

    await postLead(t, agent.id);
    await t.app.webhookJobs.idle();
    expect((await log(t, token, hook.id))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await log(t, token, second.id)).toEqual([]);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${hook.id}`, headers: auth(token) });
    expect(del.statusCode).toBe(204);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries`, headers: auth(token) }))
        .statusCode,
    ).toBe(404);
    await r.up();
    await postLead(t, agent.id, 'Carl', '+1 555 0102');
    await later(t, clock, 24 * 3600_000);
    expect(r.received).toHaveLength(0);
    expect(t.database.db.select().from(webhookDeliveries).all()).toEqual([]);
  });

  // The chat module emits these itself (built alongside); here the event bus is driven directly,
  // so this test is about the webhooks' side only: subscription filtering and account isolation.
  it('conversation and message events (emitted on app.events directly) reach only subscribed webhooks of that account', async () => {
    const { t, clock } = await start();
    const r = receiver(clock);
    await r.up();
    const owner = await registerUser(t.app);
    const other = await registerUser(t.app);
    const hook = await addHook(t, owner.token, { url: r.url, events: ['conversation.escalated', 'message.created'] });
    r.secret = hook.secret;
    const otherHook = await addHook(t, other.token, {
      url: r.url,
      events: ['conversation.escalated', 'message.created', 'conversation.resolved'],
    });
    const me = (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(owner.token) })).json();

    const base = { account_id: me.id as string, chatbot_id: 'bot-1', conversation_id: 'conv-1' };
    t.app.events.emit('conversation.escalated', {
      ...base,
      session_id: 's',
      at: '2026-03-01T12:00:00.000Z',
      reason: 'visitor',
    });
    t.app.events.emit('conversation.resolved', {
      ...base,
      session_id: 's',
      at: '2026-03-01T12:01:00.000Z',
      by: 'owner',
    });
    t.app.events.emit('message.created', {
      ...base,
      message: { id: 'm1', role: 'user', content: 'hello', timestamp: '2026-03-01T12:00:00.000Z' },
    });
    await t.app.webhookJobs.idle();

    expect(r.received.map((x) => x.headers['chat-agent-event']).sort()).toEqual([
      'conversation.escalated',
      'message.created',
    ]);
    expect(r.received.every((x) => x.verified)).toBe(true);
    const escalated = JSON.parse(
      r.received.find((x) => x.headers['chat-agent-event'] === 'conversation.escalated')!.body,
    );
    expect(escalated.data).toEqual({
      chatbot_id: 'bot-1',
      conversation_id: 'conv-1',
      session_id: 's',
      at: '2026-03-01T12:00:00.000Z',
      reason: 'visitor',
    });
    expect(await log(t, other.token, otherHook.id)).toEqual([]);
  });
});

describe('deliveries per account per hour (issue 31 point 4)', () => {
  async function visitorSays(t: TestApp, agentId: string, message: string): Promise<void> {
    const res = await send(t.app, null, 'POST', `/api/public/chat/${agentId}`, { message, session_id: 'visitor-1' });
    expect(res.statusCode, res.body).toBe(200);
  }

  it('a free account with 10 webhooks: 5 visitor messages make 100 deliveries, of which 50 are sent and the rest logged as not sent', async () => {
    const { t, clock } = await start();
    await registerUser(t.app); // the server's owner (the `owner` plan)
    const { token } = await registerUser(t.app); // a free account
    const agent = await createAgent(t.app, token);
    const hooks: Json[] = [];
    const rs: Receiver[] = [];
    for (let i = 0; i < 10; i++) {
      const r = receiver(clock);
      await r.up();
      const hook = await addHook(t, token, { url: r.url, events: ['message.created'] });
      r.secret = hook.secret;
      hooks.push(hook);
      rs.push(r);
    }
    const received = () => rs.reduce((n, r) => n + r.received.length, 0);
    // each visitor message and its answer are two message.created events: 10 events for 10 webhooks
    for (let i = 0; i < 5; i++) await visitorSays(t, agent.id, `Question number ${i}?`);
    await t.app.webhookJobs.idle();

    expect(received()).toBe(50);
    const entries = (await Promise.all(hooks.map((h) => log(t, token, h.id)))).flat();
    expect(entries).toHaveLength(100);
    expect(entries.filter((d) => d.status === 'delivered')).toHaveLength(50);
    const refused = entries.filter((d) => d.status === 'failed');
    expect(refused).toHaveLength(50);
    for (const d of refused) {
      expect(d).toMatchObject({ attempts: 0, last_status: null });
      expect(d.last_error).toBe(
        'Not sent: the webhooks of this account made 50 deliveries in the last hour (retries included), the most the free plan allows; retry it after 13:00 UTC',
      );
    }
    // a test event asked for now is refused at once (429, the reason, when to try again)
    const ping = await send(t.app, token, 'POST', `/api/webhooks/${hooks[0]!.id}/test`);
    expect(ping.statusCode, ping.body).toBe(429);
    expect(ping.headers['retry-after']).toBe('3600');
    expect(ping.json().detail).toBe(
      'the webhooks of this account made 50 deliveries in the last hour (retries included), the most the free plan allows; retry it after 13:00 UTC',
    );

    // an hour later the allowance is back: a refused one can be retried by hand
    clock.advance(3600_000);
    const again = refused[0]!;
    const retry = await send(t.app, token, 'POST', `/api/webhooks/${again.webhook_id}/deliveries/${again.id}/retry`);
    expect(retry.statusCode, retry.body).toBe(202);
    await t.app.webhookJobs.idle();
    expect(received()).toBe(51);
    expect((await log(t, token, again.webhook_id)).find((d) => d.id === again.id)).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });
  });

  it('retries count: with 3 an hour, a delivery the receiver keeps refusing is tried 3 times, then logged as not sent; the next hour a retry by hand goes out', async () => {
    const dir = makeDataDir();
    const plans = path.join(dir, 'plans.json');
    writeFileSync(
      plans,
      JSON.stringify({ free: { ...ROOMY_PLAN, max_storage_mb: 10, webhook_deliveries_per_hour: 3 } }),
    );
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const t = await apps.start({
      clock,
      dataDir: dir,
      env: { ALLOW_PRIVATE_URLS: 'true', PLANS_FILE: plans, FIRST_ACCOUNT_PLAN: 'free' },
    });
    const { r, token, agent, hook } = await leadHook(t, clock);
    r.answer = 500;
    await postLead(t, agent.id);
    await t.app.webhookJobs.idle();
    await later(t, clock, 10_000);
    await later(t, clock, 60_000);
    expect(r.received).toHaveLength(3);
    await later(t, clock, 5 * 60_000);
    expect(r.received).toHaveLength(3);
    let [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 3, last_status: null });
    expect(d!.last_error).toBe(
      'Not sent: the webhooks of this account made 3 deliveries in the last hour (retries included), the most the free plan allows; retry it after 13:00 UTC',
    );
    // nothing more goes out by itself: a refused delivery has no job left
    expect(t.database.sqlite.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'queued'").get()).toEqual({
      n: 0,
    });

    r.answer = 200;
    const retryIt = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/webhooks/${hook.id}/deliveries/${d!.id}/retry`,
        headers: auth(token),
      });
    // within the hour a retry by hand is refused at once, with the reason and when to try
    clock.set('2026-03-01T12:59:00.000Z');
    const early = await retryIt();
    expect(early.statusCode, early.body).toBe(429);
    expect(early.headers['retry-after']).toBe('60');
    expect(early.json().detail).toBe(
      'the webhooks of this account made 3 deliveries in the last hour (retries included), the most the free plan allows; retry it after 13:00 UTC',
    );
    expect((await log(t, token, hook.id))[0]).toMatchObject({ id: d!.id, status: 'failed' });
    clock.set('2026-03-01T14:00:00.000Z');
    const retry = await retryIt();
    expect(retry.statusCode, retry.body).toBe(202);
    await t.app.webhookJobs.idle();
    [d] = await log(t, token, hook.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200 });
    expect(r.received).toHaveLength(4);
  });
});
