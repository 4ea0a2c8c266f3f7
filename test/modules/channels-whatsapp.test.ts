import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { accountWithAgent, ManualClock, type StartOptions, send, sendExpect, useTestApps } from '../helpers/app.js';
import { channelsIdle, OPENING_HOURS } from '../helpers/channels.js';
import { type FakeWhatsApp, signBody, startFakeWhatsApp, textMessageBody } from '../helpers/fake-whatsapp.js';
import { addText } from '../helpers/sources.js';

type Json = Record<string, any>;
const PERSON = { from: '31612345678', name: 'Ana de Vries' };
const WINDOW = "WhatsApp allows replies only within 24 hours of the person's last message";

/** the four fields the owner pastes, for a number of the fake */
function credentials(n: number) {
  return {
    phone_number_id: String(106540352240000 + n),
    access_token: `EAAG${randomBytes(40).toString('base64url')}`,
    app_secret: randomBytes(16).toString('hex'),
    verify_token: `verify-${randomBytes(8).toString('hex')}`,
  };
}
type Credentials = ReturnType<typeof credentials>;

describe('channels: WhatsApp (Cloud API) on the channel layer', () => {
  const apps = useTestApps();

  /** an app listening on loopback (Meta posts to it) beside a fake Graph API, and an agent that knows its hours */
  async function start(opts: StartOptions = {}) {
    const whatsapp: FakeWhatsApp = apps.before(await startFakeWhatsApp());
    const t = await apps.start({ ...opts, env: { WHATSAPP_API_ROOT: whatsapp.root, ...opts.env } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { token, agent } = await accountWithAgent(t.app, { lead_capture_enabled: false });
    await addText(t, token, agent.id, 'Hours', OPENING_HOURS);
    await t.app.jobs.idle();
    const hook = `${base}/api/channels/whatsapp/${agent.id}`;
    return { t, whatsapp, token, agent: agent as Json, hook };
  }

  /** a number of the fake, connected to the agent */
  async function connected(s: Awaited<ReturnType<typeof start>>, n: number): Promise<Credentials> {
    const c = credentials(n);
    s.whatsapp.addNumber({
      phoneNumberId: c.phone_number_id,
      token: c.access_token,
      display: '+1 555-078-3881',
      name: 'Acme Shop',
    });
    await sendExpect(s.t.app, s.token, 'PUT', `/api/chatbots/${s.agent.id}/channels/whatsapp`, c, 200);
    return c;
  }

  const message = (c: Credentials, id: string, text: string) =>
    textMessageBody({ phoneNumberId: c.phone_number_id, from: PERSON.from, name: PERSON.name, id, text });
  const inboundCount = (s: { t: { database: { sqlite: any } } }) =>
    s.t.database.sqlite.prepare('SELECT count(*) AS n FROM channel_inbound').get().n as number;

  it('connects a number by its four fields: each checked, the number shown back, no secret ever returned', async () => {
    const s = await start();
    const { t, whatsapp, token, agent } = s;
    const url = `/api/chatbots/${agent.id}/channels/whatsapp`;
    const c = credentials(1);
    whatsapp.addNumber({
      phoneNumberId: c.phone_number_id,
      token: c.access_token,
      display: '+1 555-078-3881',
      name: 'Acme Shop',
    });

    for (const [field, bad] of [
      ['phone_number_id', '+1 555 078'],
      ['access_token', 'short'],
      ['app_secret', 'not-hex'],
      ['verify_token', 'a b'],
    ] as const) {
      const res = await send(t.app, token, 'PUT', url, { ...c, [field]: bad });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().detail).toMatch(new RegExp(`^${field}: `));
    }
    const missing = await send(t.app, token, 'PUT', url, { phone_number_id: c.phone_number_id });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/access_token/);
    // Meta refuses the token; the number is unknown
    const refused = await send(t.app, token, 'PUT', url, { ...c, access_token: `EAAG${'x'.repeat(40)}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/^access_token: WhatsApp: Error validating access token/);
    const unknown = await send(t.app, token, 'PUT', url, { ...c, phone_number_id: '999999999' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toMatch(/^phone_number_id: WhatsApp: Unsupported get request/);

    const view = await sendExpect(t.app, token, 'PUT', url, c, 200);
    expect(view).toMatchObject({
      channel: 'whatsapp',
      state: 'connected',
      account_name: '+1 555-078-3881',
      display_name: 'Acme Shop',
      mode: 'webhook',
      error: null,
    });
    expect([...whatsapp.versions]).toEqual(['v21.0']);
    const listed = await send(t.app, token, 'GET', `/api/chatbots/${agent.id}/channels`);
    expect(listed.json()).toEqual([
      expect.objectContaining({ channel: 'telegram', state: 'not_connected' }),
      view,
      expect.objectContaining({ channel: 'email', state: 'not_connected' }),
    ]);
    const stored = JSON.stringify(t.database.sqlite.prepare('SELECT * FROM channel_connections').all());
    for (const secret of [c.access_token, c.app_secret, c.verify_token]) {
      expect(listed.body).not.toContain(secret);
      expect(stored).not.toContain(secret);
    }

    // one agent per number: another account's agent is refused it
    const other = await accountWithAgent(t.app);
    const taken = await send(t.app, other.token, 'PUT', `/api/chatbots/${other.agent.id}/channels/whatsapp`, c);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().detail).toMatch(/^phone_number_id: this account already answers for another agent/);
    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(204);
    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(404);
  });

  it('Meta unreachable at connect: 502, nothing saved', async () => {
    const t = await apps.start({ env: { WHATSAPP_API_ROOT: 'http://127.0.0.1:9' } });
    const { token, agent } = await accountWithAgent(t.app);
    const res = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}/channels/whatsapp`, credentials(2));
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toMatch(/could not be reached/);
    expect(t.database.sqlite.prepare('SELECT count(*) AS n FROM channel_connections').get()).toEqual({ n: 0 });
  });

  it("Meta's verification of the webhook URL: the challenge back for the right verify token only", async () => {
    const s = await start();
    const c = await connected(s, 3);
    const verify = (query: Record<string, string>) => fetch(`${s.hook}?${new URLSearchParams(query)}`);
    const right = await verify({
      'hub.mode': 'subscribe',
      'hub.verify_token': c.verify_token,
      'hub.challenge': '1158201444',
    });
    expect(right.status).toBe(200);
    expect(right.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await right.text()).toBe('1158201444');
    const wrong = await verify({
      'hub.mode': 'subscribe',
      'hub.verify_token': `${c.verify_token}x`,
      'hub.challenge': '1',
    });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as Json).detail).toMatch(/^hub.verify_token: /);
    expect(
      (await verify({ 'hub.mode': 'unsubscribe', 'hub.verify_token': c.verify_token, 'hub.challenge': '1' })).status,
    ).toBe(403);
    expect((await verify({})).status).toBe(403);
    // an agent with no WhatsApp number
    const other = await accountWithAgent(s.t.app);
    const elsewhere = await fetch(
      `${s.hook.replace(s.agent.id, other.agent.id)}?${new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': c.verify_token, 'hub.challenge': '1' })}`,
    );
    expect(elsewhere.status).toBe(403);
  });

  it('a message in, the answer out; delivered twice, answered once; a wrongly signed body is refused and not stored', async () => {
    const s = await start();
    const { t, whatsapp, token, agent, hook } = s;
    const c = await connected(s, 4);
    const body = message(c, 'wamid.HBgLMzE2MTIzNDU2NzgVAgASGBQzQUE', 'When are you open on Saturdays?');

    // refused before anything is read: unsigned, signed with another secret, and the same JSON re-serialized
    const raw = JSON.stringify(body, null, 2);
    const post = (bytes: string, signature?: string) =>
      fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
        body: bytes,
      });
    for (const [label, res] of [
      ['unsigned', await post(raw)],
      ['another secret', await post(raw, signBody(raw, randomBytes(16).toString('hex')))],
      ['re-serialized', await post(JSON.stringify(body), signBody(raw, c.app_secret))],
      ['not sha256=', await post(raw, signBody(raw, c.app_secret).replace('sha256=', 'sha1='))],
    ] as const) {
      expect(res.status, label).toBe(401);
      expect(((await res.json()) as Json).detail, label).toMatch(/X-Hub-Signature-256/);
    }
    expect(inboundCount(s)).toBe(0);

    // the exact bytes Meta signed: stored before the 200; Meta posts it again (it did not see our 200)
    expect((await whatsapp.deliver(hook, Buffer.from(raw), c.app_secret)).status).toBe(200);
    expect(inboundCount(s)).toBe(1);
    expect((await whatsapp.deliver(hook, body, c.app_secret)).status).toBe(200);
    const [answer] = await whatsapp.waitForSent(c.phone_number_id, 1);
    expect(answer).toMatchObject({ to: PERSON.from });
    expect(answer!.body).toMatch(/Saturdays the shop opens at 10/);
    // statuses (sent, delivered, read) are acknowledged and dropped
    const status = {
      object: 'whatsapp_business_account',
      entry: [
        { id: '1', changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.out1', status: 'read' }] } }] },
      ],
    };
    expect((await whatsapp.deliver(hook, status, c.app_secret)).status).toBe(200);
    // another number of the same Meta app (one callback URL per app): acknowledged, not this agent's to answer
    const elsewhere = textMessageBody({ ...PERSON, phoneNumberId: '999000999', id: 'wamid.other', text: 'Hi?' });
    expect((await whatsapp.deliver(hook, elsewhere, c.app_secret)).status).toBe(200);
    await channelsIdle(t);
    expect(whatsapp.sent(c.phone_number_id)).toHaveLength(1);
    expect(inboundCount(s)).toBe(1);

    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({ channel: 'whatsapp', user_name: PERSON.name, message_count: 2 });
    const activity = await sendExpect(t.app, token, 'GET', `/api/analytics/chatbot/${agent.id}/channels?days=7`);
    expect(activity.channels).toEqual([{ channel: 'whatsapp', conversations: 1, messages: 2 }]);
  });

  it("a teammate's reply goes out within 24 hours of the person's last message; after them it is refused with 409", async () => {
    const clock = new ManualClock(new Date().toISOString());
    const s = await start({ clock });
    const { t, whatsapp, token, agent, hook } = s;
    const c = await connected(s, 5);
    expect((await whatsapp.deliver(hook, message(c, 'wamid.1', 'When are you open?'), c.app_secret)).status).toBe(200);
    await whatsapp.waitForSent(c.phone_number_id, 1);
    await channelsIdle(t);
    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    const base = `/api/chat/conversations/${agent.id}/${conversation.id}`;
    await sendExpect(t.app, token, 'POST', `${base}/take`, {}, 200);

    clock.advance(23 * 3600_000);
    await sendExpect(t.app, token, 'POST', `${base}/reply`, { message: 'Sorry for the wait: 9 to 5.' }, 201);
    const sent = await whatsapp.waitForSent(c.phone_number_id, 2);
    expect(sent[1]).toMatchObject({ to: PERSON.from, body: 'Sorry for the wait: 9 to 5.' });
    await channelsIdle(t);

    clock.advance(1 * 3600_000 + 1000);
    const late = await send(t.app, token, 'POST', `${base}/reply`, { message: 'Are you still there?' });
    expect(late.statusCode).toBe(409);
    expect(late.json().detail).toBe(WINDOW);
    const messages = await sendExpect(t.app, token, 'GET', `/api/chat/messages/${conversation.id}`);
    expect(messages.map((m: Json) => m.content)).not.toContain('Are you still there?');

    // the person writes again: the window opens again
    expect((await whatsapp.deliver(hook, message(c, 'wamid.2', 'Hello?'), c.app_secret)).status).toBe(200);
    await t.app.channelJobs.receive.idle();
    await sendExpect(t.app, token, 'POST', `${base}/reply`, { message: 'Yes, still here!' }, 201);
    expect((await whatsapp.waitForSent(c.phone_number_id, 3))[2]!.body).toBe('Yes, still here!');
  });

  it('an answer still waiting when the window closes is not sent: failed, with the reason', async () => {
    const clock = new ManualClock(new Date().toISOString());
    const s = await start({ clock });
    const { t, whatsapp, hook } = s;
    const c = await connected(s, 6);
    whatsapp.failSends(c.phone_number_id, 1, { status: 503, code: 2, message: 'Service temporarily unavailable' });
    expect((await whatsapp.deliver(hook, message(c, 'wamid.1', 'When are you open?'), c.app_secret)).status).toBe(200);
    await whatsapp.waitForSendCalls(c.phone_number_id, 1);
    await channelsIdle(t);
    const outbox = () => t.database.sqlite.prepare('SELECT state, error FROM channel_outbox').get();
    expect(outbox()).toEqual({ state: 'queued', error: 'WhatsApp: Service temporarily unavailable' });
    clock.advance(25 * 3600_000);
    await channelsIdle(t);
    expect(outbox()).toEqual({ state: 'failed', error: WINDOW });
    expect(whatsapp.sendCalls(c.phone_number_id)).toBe(1);
  });

  it("Meta's refusals: a rate limit is retried later, a message outside the window (131047) is failed for good", async () => {
    const clock = new ManualClock(new Date().toISOString());
    const s = await start({ clock });
    const { t, whatsapp, hook } = s;
    const c = await connected(s, 8);
    whatsapp.failSends(c.phone_number_id, 1, { status: 429, code: 130429, message: 'Rate limit hit' });
    expect((await whatsapp.deliver(hook, message(c, 'wamid.1', 'When are you open?'), c.app_secret)).status).toBe(200);
    await whatsapp.waitForSendCalls(c.phone_number_id, 1);
    await channelsIdle(t);
    const outbox = () =>
      t.database.sqlite.prepare('SELECT state, attempts, error FROM channel_outbox ORDER BY rowid').all();
    expect(outbox()).toEqual([{ state: 'queued', attempts: 1, error: 'WhatsApp: Rate limit hit' }]);
    clock.advance(59_000);
    await channelsIdle(t);
    expect(whatsapp.sendCalls(c.phone_number_id)).toBe(1);
    clock.advance(1_000);
    expect((await whatsapp.waitForSent(c.phone_number_id, 1))[0]!.body).toMatch(/opens at 10/);

    whatsapp.failSends(c.phone_number_id, 1, {
      status: 400,
      code: 131047,
      message: 'Re-engagement message',
    });
    expect((await whatsapp.deliver(hook, message(c, 'wamid.2', 'And on Sundays?'), c.app_secret)).status).toBe(200);
    await whatsapp.waitForSendCalls(c.phone_number_id, 3);
    await channelsIdle(t);
    clock.advance(86_400_000);
    await channelsIdle(t);
    expect(whatsapp.sendCalls(c.phone_number_id)).toBe(3);
    expect(outbox()[1]).toEqual({
      state: 'failed',
      attempts: 0,
      error: `WhatsApp: Re-engagement message: ${WINDOW}`,
    });
  });

  it('a revoked token: the channel goes to error, the owner is told once', async () => {
    const s = await start();
    const { t, whatsapp, token, agent, hook } = s;
    const c = await connected(s, 7);
    whatsapp.revoke(c.phone_number_id);
    expect((await whatsapp.deliver(hook, message(c, 'wamid.1', 'When are you open?'), c.app_secret)).status).toBe(200);
    const url = `/api/chatbots/${agent.id}/channels`;
    await vi.waitFor(async () => expect((await sendExpect(t.app, token, 'GET', url))[1].state).toBe('error'), {
      timeout: 10_000,
    });
    // another message while it is down: stored, its answer waits; no second notice
    expect((await whatsapp.deliver(hook, message(c, 'wamid.2', 'Hello?'), c.app_secret)).status).toBe(200);
    await channelsIdle(t);
    const [, channel] = await sendExpect(t.app, token, 'GET', url);
    expect(channel.error).toMatch(/^WhatsApp: Error validating access token/);
    const notices = t.database.sqlite
      .prepare("SELECT subject, body FROM mail_outbox WHERE kind = 'account_notice' AND subject LIKE '%whatsapp%'")
      .all() as Json[];
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toContain('Error validating access token');
    expect(notices[0]!.body).not.toContain(c.access_token);
    expect(whatsapp.sendCalls(c.phone_number_id)).toBe(1);
    expect(t.database.sqlite.prepare("SELECT count(*) AS n FROM channel_outbox WHERE state = 'queued'").get()).toEqual({
      n: 2,
    });
  });
});
