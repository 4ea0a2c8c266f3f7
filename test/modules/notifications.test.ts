import { createECDH } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { vapidKeyPair } from '../../src/modules/notifications/push.js';
import {
  accountWithAgent,
  makeDataDir,
  registerUser,
  say,
  send,
  sendExpect,
  type TestApp,
  useTestApps,
} from '../helpers/app.js';
import { startPushService, type TestPushService, verifyVapid } from '../helpers/push-service.js';
import { joinOperator, visitorEscalates } from '../helpers/team.js';

/**
 * Notifications that reach a person (issue 34 part 3, docs/API-NOTES.md "Notifications"): real Web
 * Push requests to a local push service on 127.0.0.1, their VAPID JWT verified and their aes128gcm
 * payload decrypted with the keys this test made for the subscription; preferences per person.
 */
const apps = useTestApps();
let push: TestPushService | undefined;
afterEach(async () => {
  await push?.close();
  push = undefined;
});

/** after the request's commit the notices go out from a setImmediate; then the pushes under way */
async function settled(app: App) {
  await new Promise((resolve) => setImmediate(resolve));
  await app.notifications.idle();
}

async function setup(env: Record<string, string> = { ALLOW_PRIVATE_URLS: 'true' }, dataDir?: string) {
  const t = await apps.start({ env: { EMBEDDINGS: 'none', ...env }, ...(dataDir ? { dataDir } : {}) });
  push = await startPushService();
  const { agent, ...owner } = await accountWithAgent(t.app, { name: 'Helpdesk' });
  const member = await joinOperator(t, owner.token);
  const { public_key } = await sendExpect(t.app, member.token, 'GET', '/api/notifications/vapid-public-key');
  return { t, push, owner, member, agent, publicKey: public_key as string };
}

/** A visitor in `session` asks for a person: the conversation's id. */
const escalate = async (t: TestApp, agentId: string, session: string) =>
  (await visitorEscalates(t, agentId, session)).conversation_id as string;

const mailsTo = (t: TestApp) =>
  (
    t.database.sqlite
      .prepare(
        "SELECT to_address FROM mail_outbox WHERE subject LIKE 'A visitor asked for a person%' ORDER BY to_address",
      )
      .all() as Array<{ to_address: string }>
  ).map((r) => r.to_address);

const subscriptionCount = (t: TestApp) =>
  (t.database.sqlite.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;

describe('Web Push', () => {
  it('an escalation reaches every teammate who subscribed: VAPID-signed, encrypted to their keys, with the link', async () => {
    const { t, push, owner, member, agent, publicKey } = await setup();
    const ownerSub = push.subscription('/push/owner');
    const memberSub = push.subscription('/push/member');
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', ownerSub, 201);
    await sendExpect(t.app, member.token, 'POST', '/api/notifications/push-subscriptions', memberSub, 201);

    const conversationId = await escalate(t, agent.id, 'v1');
    const requests = await push.waitFor(2);
    await settled(t.app);
    expect(push.requests).toHaveLength(2);
    for (const [path, sub] of [
      ['/push/owner', ownerSub],
      ['/push/member', memberSub],
    ] as const) {
      const req = requests.find((r) => r.path === path)!;
      expect(req.headers['content-encoding']).toBe('aes128gcm');
      expect(Number(req.headers.ttl)).toBeGreaterThan(0);
      const claims = await verifyVapid(req.headers, publicKey, push.origin);
      expect(claims.sub).toMatch(/^mailto:/);
      const payload = JSON.parse(sub.decrypt(req.body));
      expect(payload).toMatchObject({
        title: 'A visitor asked for a person',
        conversation_id: conversationId,
        chatbot_id: agent.id,
        url: `${t.config.publicUrl}/#/agents/${agent.id}/conversations/${conversationId}`,
      });
      expect(payload.body).toContain('Helpdesk');
    }
    // e-mail by default: the owner (as before teams), not the teammate
    expect(mailsTo(t)).toEqual([owner.email.toLowerCase()]);
  });

  it('a visitor writing into a conversation a teammate took tells that teammate only', async () => {
    const { t, push, owner, member, agent } = await setup();
    const ownerSub = push.subscription('/push/owner');
    const memberSub = push.subscription('/push/member');
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', ownerSub, 201);
    await sendExpect(t.app, member.token, 'POST', '/api/notifications/push-subscriptions', memberSub, 201);
    await say(t, agent.id, 'v2', 'Hello');
    const list = await sendExpect(t.app, member.token, 'GET', `/api/chat/conversations/${agent.id}`);
    const conversationId = list[0].id as string;
    await sendExpect(t.app, member.token, 'POST', `/api/chat/conversations/${agent.id}/${conversationId}/take`);
    await say(t, agent.id, 'v2', 'Are you there? My order 4711 is late');
    const [req] = await push.waitFor(1);
    await settled(t.app);
    expect(push.requests).toHaveLength(1);
    expect(req!.path).toBe('/push/member');
    expect(JSON.parse(memberSub.decrypt(req!.body))).toMatchObject({
      title: 'New message on Helpdesk',
      body: 'Are you there? My order 4711 is late',
      conversation_id: conversationId,
    });
  });

  it('a 410 from the push service removes that subscription; the next escalation skips it', async () => {
    const { t, push, owner, agent } = await setup();
    const gone = push.subscription('/push/gone');
    const alive = push.subscription('/push/alive');
    push.answer('/push/gone', 410);
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', gone, 201);
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', alive, 201);
    await escalate(t, agent.id, 'a');
    await push.waitFor(2);
    await settled(t.app);
    expect(subscriptionCount(t)).toBe(1);
    await escalate(t, agent.id, 'b');
    await push.waitFor(3);
    await settled(t.app);
    expect(push.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/push/gone', '/push/alive']));
    expect(push.requests[2]!.path).toBe('/push/alive');
  });

  it('the VAPID keys are made once and kept across restarts', async () => {
    const dataDir = makeDataDir();
    const first = await setup({ ALLOW_PRIVATE_URLS: 'true' }, dataDir);
    await first.t.close();
    const again = await apps.start({ dataDir, env: { EMBEDDINGS: 'none' } });
    const res = await sendExpect(again.app, first.owner.token, 'GET', '/api/notifications/vapid-public-key');
    expect(res.public_key).toBe(first.publicKey);
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
  });

  it('a VAPID key pair is a P-256 point of 65 bytes and its 32-byte private scalar', () => {
    for (let i = 0; i < 50; i++) {
      const { publicKey, privateKey } = vapidKeyPair();
      const scalar = Buffer.from(privateKey, 'base64url');
      expect(scalar).toHaveLength(32);
      const curve = createECDH('prime256v1');
      curve.setPrivateKey(scalar);
      expect(curve.getPublicKey().toString('base64url')).toBe(publicKey);
      expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    }
  });
});

describe('preferences', () => {
  it('defaults per person; push off, e-mail on and browser off are each respected', async () => {
    const { t, push, owner, member, agent } = await setup();
    expect(await sendExpect(t.app, owner.token, 'GET', '/api/notifications/preferences')).toEqual({
      browser: true,
      push: true,
      email: true,
    });
    expect(await sendExpect(t.app, member.token, 'GET', '/api/notifications/preferences')).toEqual({
      browser: true,
      push: true,
      email: false,
    });
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', push.subscription('/o'), 201);
    await sendExpect(
      t.app,
      member.token,
      'POST',
      '/api/notifications/push-subscriptions',
      push.subscription('/m'),
      201,
    );
    const prefs = { browser: false, push: false, email: true };
    expect(await sendExpect(t.app, member.token, 'PUT', '/api/notifications/preferences', prefs)).toEqual(prefs);
    await sendExpect(t.app, owner.token, 'PUT', '/api/notifications/preferences', {
      browser: true,
      push: true,
      email: false,
    });
    // the owner's choice is the owner's, the teammate's the teammate's
    expect(await sendExpect(t.app, member.token, 'GET', '/api/notifications/preferences')).toEqual(prefs);

    await escalate(t, agent.id, 'p1');
    await push.waitFor(1);
    await settled(t.app);
    expect(push.requests.map((r) => r.path)).toEqual(['/o']);
    expect(mailsTo(t)).toEqual([member.email.toLowerCase()]);
  });

  it('an open admin tab gets the notifications meant for its person on the stream', async () => {
    const { t, owner, agent } = await setup();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const controller = new AbortController();
    const res = await fetch(`${address}/api/notifications/events`, {
      headers: { authorization: `Bearer ${owner.token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) text += (await reader.read()).value ?? '';
    };
    await until('event: ready');
    const conversationId = await escalate(t, agent.id, 'tab');
    await until('event: notification');
    const data = JSON.parse(/event: notification\ndata: (.*)\n/.exec(text)![1]!);
    expect(data).toMatchObject({ kind: 'escalated', conversation_id: conversationId, chatbot_id: agent.id });
    controller.abort();
  });
});

describe('refusals', () => {
  it('a push endpoint on a private address is refused unless ALLOW_PRIVATE_URLS', async () => {
    const { t, push, owner } = await setup({});
    for (const endpoint of [
      `${push.origin}/x`,
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://10.0.0.8/push',
      'http://push.example.com/plain-http',
    ]) {
      const res = await send(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', {
        ...push.subscription('/x'),
        endpoint,
      });
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.json().detail).toMatch(/^endpoint: /);
    }
    // a public https endpoint is taken (it is only fetched when there is something to send)
    const ok = push.subscription('/x');
    await sendExpect(
      t.app,
      owner.token,
      'POST',
      '/api/notifications/push-subscriptions',
      { ...ok, endpoint: 'https://push.example.com/abc' },
      201,
    );
  });

  it('bad input is a 4xx with a detail', async () => {
    const { t, push, owner } = await setup();
    const good = push.subscription('/y');
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/api/notifications/push-subscriptions', { endpoint: good.endpoint }],
      ['POST', '/api/notifications/push-subscriptions', { ...good, endpoint: 'ftp://example.com/x' }],
      ['POST', '/api/notifications/push-subscriptions', { ...good, endpoint: `https://e.com/${'a'.repeat(3000)}` }],
      ['POST', '/api/notifications/push-subscriptions', { ...good, keys: { ...good.keys, p256dh: 'AAAA' } }],
      ['POST', '/api/notifications/push-subscriptions', { ...good, keys: { ...good.keys, auth: 'not base64!' } }],
      ['PUT', '/api/notifications/preferences', { browser: true, push: true }],
      ['PUT', '/api/notifications/preferences', { browser: 'yes', push: true, email: true }],
      ['DELETE', '/api/notifications/push-subscriptions', {}],
    ];
    for (const [method, url, body] of cases) {
      const res = await send(t.app, owner.token, method as 'POST', url, body);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(typeof res.json().detail, res.body).toBe('string');
    }
    for (const url of ['/api/notifications/preferences', '/api/notifications/vapid-public-key']) {
      expect((await send(t.app, null, 'GET', url)).statusCode).toBe(401);
    }
  });

  it("another person's subscriptions and preferences are out of reach, in the account and outside it", async () => {
    const { t, push, owner, member, agent } = await setup();
    const stranger = await registerUser(t.app, { name: 'Stranger' });
    const ownerSub = push.subscription('/mine');
    await sendExpect(t.app, owner.token, 'POST', '/api/notifications/push-subscriptions', ownerSub, 201);
    // deleting someone else's endpoint removes nothing of theirs
    for (const token of [member.token, stranger.token]) {
      const res = await send(t.app, token, 'DELETE', '/api/notifications/push-subscriptions', {
        endpoint: ownerSub.endpoint,
      });
      expect(res.statusCode).toBe(204);
    }
    expect(subscriptionCount(t)).toBe(1);
    // the same endpoint posted by a stranger is the stranger's own row: it does not take the owner's
    await sendExpect(t.app, stranger.token, 'POST', '/api/notifications/push-subscriptions', ownerSub, 201);
    await sendExpect(t.app, stranger.token, 'PUT', '/api/notifications/preferences', {
      browser: false,
      push: false,
      email: false,
    });
    expect((await sendExpect(t.app, owner.token, 'GET', '/api/notifications/preferences')).push).toBe(true);
    // the owner's escalation reaches the owner's row only, once
    await escalate(t, agent.id, 's');
    await push.waitFor(1);
    await settled(t.app);
    expect(push.requests).toHaveLength(1);
    // the owner deletes their own: gone
    const del = await send(t.app, owner.token, 'DELETE', '/api/notifications/push-subscriptions', {
      endpoint: ownerSub.endpoint,
    });
    expect(del.statusCode).toBe(204);
    expect(subscriptionCount(t)).toBe(1);
  });
});
