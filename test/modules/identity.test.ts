import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  accountWithAgent,
  createAgent,
  registerUser,
  send,
  sendExpect,
  type TestApp,
  useTestApps,
  joinAs,
} from '../helpers/app.js';

type Json = Record<string, any>;

/**
 * Verified visitors (issue 35 part 5, docs/API-NOTES.md "Verified visitors"): the owner's site
 * vouches for its signed-in user with hex HMAC-SHA256(secret, user id) in the public chat, and
 * with a short JWT for the user's past conversations. The hash and token are computed here as an
 * integrator's server would, with node:crypto and jose, not with the app's code.
 */
const apps = useTestApps();

const hashOf = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');

async function tokenFor(secret: string, userId: string | null, expiresIn: number | null): Promise<string> {
  let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
  if (userId !== null) jwt = jwt.setSubject(userId);
  if (expiresIn !== null) jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
}

async function newSecret(t: TestApp, token: string, agentId: string): Promise<string> {
  const body = await sendExpect(t.app, token, 'POST', `/api/chatbots/${agentId}/identity-secret`, undefined, 201);
  expect(Object.keys(body)).toEqual(['secret']);
  expect(body.secret).toMatch(/^idsec_[A-Za-z0-9_-]{43}$/);
  return body.secret;
}

function chat(t: TestApp, agentId: string, payload: Json, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: `/api/public/chat/${agentId}`, payload, headers });
}

/** The visitor's chat (200) and the conversation it is stored in, as the owner lists it. */
async function chatAndConversation(t: TestApp, token: string, agentId: string, payload: Json): Promise<Json> {
  const res = await chat(t, agentId, payload);
  expect(res.statusCode, res.body).toBe(200);
  return conversationOf(t, token, agentId, res.json().conversation_id);
}

async function conversationOf(t: TestApp, token: string, agentId: string, id: string): Promise<Json> {
  const list = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agentId}`);
  const found = list.find((c: Json) => c.id === id);
  expect(found, id).toBeDefined();
  return found;
}

async function setUp() {
  const t = await apps.start();
  const owner = await accountWithAgent(t.app);
  const secret = await newSecret(t, owner.token, owner.agent.id);
  return { t, owner, agentId: owner.agent.id as string, secret };
}

describe('the identity secret', () => {
  it('is shown once, then only whether it is set and since when; DELETE turns verification off', async () => {
    const { t, owner, agentId } = await setUp();
    const url = `/api/chatbots/${agentId}/identity-secret`;
    const status = await sendExpect(t.app, owner.token, 'GET', url);
    expect(Object.keys(status).sort()).toEqual(['configured', 'created_at']);
    expect(status.configured).toBe(true);
    expect(Number.isNaN(Date.parse(status.created_at))).toBe(false);
    expect(JSON.stringify(status)).not.toContain('idsec_');
    expect((await send(t.app, owner.token, 'DELETE', url)).statusCode).toBe(204);
    expect(await sendExpect(t.app, owner.token, 'GET', url)).toEqual({ configured: false, created_at: null });
    // nothing of the secret is shown with the agent either
    const agent = await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agentId}`);
    expect(JSON.stringify(agent)).not.toContain('idsec_');
  });

  it('is stored encrypted, not as its text', async () => {
    const { t, secret } = await setUp();
    const rows = t.database.sqlite.prepare('select secret from chatbot_identity').all() as Array<{ secret: string }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret).not.toContain(secret.slice(6));
  });

  it("is the owner's only: a teammate gets 403; another account's agent answers like a missing one (404)", async () => {
    const { t, owner, agentId } = await setUp();
    const manager = await joinAs(t, owner.token, 'manager', 'identity-manager@example.com');
    const operator = await joinAs(t, owner.token, 'operator', 'identity-operator@example.com');
    const url = `/api/chatbots/${agentId}/identity-secret`;
    for (const token of [manager, operator]) {
      for (const method of ['GET', 'POST', 'DELETE'] as const)
        expect((await send(t.app, token, method, url)).statusCode, `${method} as a teammate`).toBe(403);
    }
    const stranger = await registerUser(t.app);
    const missingUrl = '/api/chatbots/0190c2e0-0000-7000-8000-000000000000/identity-secret';
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const theirs = await send(t.app, stranger.token, method, url);
      const missing = await send(t.app, stranger.token, method, missingUrl);
      expect(theirs.statusCode, method).toBe(404);
      expect(theirs.json()).toEqual(missing.json());
    }
    // the owner's secret is untouched by all of that
    expect((await sendExpect(t.app, owner.token, 'GET', url)).configured).toBe(true);
  });
});

describe('a verified visitor in the public chat', () => {
  it('right hash: the conversation is verified as the user, name and e-mail prefilled', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const user = { id: 'customer-42', hash: hashOf(secret, 'customer-42'), name: 'Ada', email: 'ada@example.com' };
    const c = await chatAndConversation(t, owner.token, agentId, {
      message: 'Where is my order?',
      session_id: 'v-right',
      user,
    });
    expect(c).toMatchObject({
      verified: true,
      visitor_user_id: 'customer-42',
      user_name: 'Ada',
      user_email: 'ada@example.com',
    });
    // the inbox shows it too
    const inbox = await sendExpect(t.app, owner.token, 'GET', '/api/inbox');
    expect(inbox.find((i: Json) => i.id === c.id)).toMatchObject({ verified: true, visitor_user_id: 'customer-42' });
  });

  it('an upper-case hex hash verifies too, and so does the streamed chat', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const user = { id: 'u-7', hash: hashOf(secret, 'u-7').toUpperCase() };
    const res = await chat(
      t,
      agentId,
      { message: 'Hello', session_id: 'v-stream', user },
      { accept: 'text/event-stream' },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const done = /event: done\ndata: (.*)\n/.exec(res.body)!;
    const c = await conversationOf(t, owner.token, agentId, JSON.parse(done[1]!).conversation_id);
    expect(c).toMatchObject({ verified: true, visitor_user_id: 'u-7' });
  });

  it('wrong hash: the visitor is anonymous and nothing of `user` is stored', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const user = { id: 'customer-42', hash: hashOf(secret, 'customer-43'), name: 'Mallory', email: 'm@example.com' };
    const c = await chatAndConversation(t, owner.token, agentId, { message: 'Hi', session_id: 'v-wrong', user });
    expect(c).toMatchObject({ verified: false, visitor_user_id: null, user_name: null, user_email: null });
    // a hash of another length is wrong, not malformed
    const short = { message: 'Hi', session_id: 'v-short', user: { id: 'x', hash: 'abcd' } };
    expect((await chatAndConversation(t, owner.token, agentId, short)).verified).toBe(false);
  });

  it("another agent's secret does not verify", async () => {
    const { t, owner, agentId } = await setUp();
    const other = await createAgent(t.app, owner.token, { name: 'Other bot' });
    const otherSecret = await newSecret(t, owner.token, other.id);
    const user = { id: 'customer-42', hash: hashOf(otherSecret, 'customer-42'), name: 'Ada' };
    const res = await chat(t, agentId, { message: 'Hi', session_id: 'v-other', user });
    const c = await conversationOf(t, owner.token, agentId, res.json().conversation_id);
    expect(c).toMatchObject({ verified: false, visitor_user_id: null, user_name: null });
  });

  it("across accounts (the cross-account matrix): right hash verified, wrong hash anonymous, another account's secret rejected both ways", async () => {
    const { t, owner, agentId, secret } = await setUp();
    const intruder = await accountWithAgent(t.app);
    const intruderSecret = await newSecret(t, intruder.token, intruder.agent.id);
    const visit = async (agent: string, session: string, hash: string) => {
      const res = await chat(t, agent, { message: 'Hi', session_id: session, user: { id: 'customer-42', hash } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().conversation_id as string;
    };
    const right = await visit(agentId, 'x-right', hashOf(secret, 'customer-42'));
    const wrong = await visit(agentId, 'x-wrong', hashOf(secret, 'customer-41'));
    const foreign = await visit(agentId, 'x-foreign', hashOf(intruderSecret, 'customer-42'));
    const mineThere = await visit(intruder.agent.id, 'x-there', hashOf(secret, 'customer-42'));
    expect((await conversationOf(t, owner.token, agentId, right)).verified).toBe(true);
    for (const id of [wrong, foreign])
      expect(await conversationOf(t, owner.token, agentId, id)).toMatchObject({
        verified: false,
        visitor_user_id: null,
      });
    expect(await conversationOf(t, intruder.token, intruder.agent.id, mineThere)).toMatchObject({
      verified: false,
      visitor_user_id: null,
    });
    // and the intruder's token cannot read or rotate the owner's secret: as for a missing agent
    for (const method of ['GET', 'POST', 'DELETE'] as const)
      expect((await send(t.app, intruder.token, method, `/api/chatbots/${agentId}/identity-secret`)).statusCode).toBe(
        404,
      );
    // the owner's secret is as it was: it still verifies
    const after = await visit(agentId, 'x-after', hashOf(secret, 'customer-42'));
    expect((await conversationOf(t, owner.token, agentId, after)).verified).toBe(true);
  });

  it('rotation: the old secret stops verifying at once, the new one verifies', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const rotated = await newSecret(t, owner.token, agentId);
    expect(rotated).not.toBe(secret);
    const old = await chat(t, agentId, {
      message: 'Hi',
      session_id: 'v-old',
      user: { id: 'u1', hash: hashOf(secret, 'u1') },
    });
    expect((await conversationOf(t, owner.token, agentId, old.json().conversation_id)).verified).toBe(false);
    const fresh = await chat(t, agentId, {
      message: 'Hi',
      session_id: 'v-new',
      user: { id: 'u1', hash: hashOf(rotated, 'u1') },
    });
    expect((await conversationOf(t, owner.token, agentId, fresh.json().conversation_id)).verified).toBe(true);
  });

  it('no secret configured (never, or deleted): anonymous', async () => {
    const t = await apps.start();
    const owner = await accountWithAgent(t.app);
    const c = await chatAndConversation(t, owner.token, owner.agent.id, {
      message: 'Hi',
      session_id: 'v-none',
      user: { id: 'u1', hash: hashOf('idsec_guess', 'u1'), name: 'Ada' },
    });
    expect(c).toMatchObject({ verified: false, visitor_user_id: null, user_name: null });

    const secret = await newSecret(t, owner.token, owner.agent.id);
    await send(t.app, owner.token, 'DELETE', `/api/chatbots/${owner.agent.id}/identity-secret`);
    const after = await chat(t, owner.agent.id, {
      message: 'Hi',
      session_id: 'v-deleted',
      user: { id: 'u1', hash: hashOf(secret, 'u1') },
    });
    expect((await conversationOf(t, owner.token, owner.agent.id, after.json().conversation_id)).verified).toBe(false);
  });

  it('a conversation verified as one user never becomes another: a valid hash for another id is ignored there', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const first = await chat(t, agentId, {
      message: 'Hi',
      session_id: 'v-shared',
      user: { id: 'alice', hash: hashOf(secret, 'alice'), name: 'Alice' },
    });
    const second = await chat(t, agentId, {
      message: 'Me again',
      session_id: 'v-shared',
      user: { id: 'bob', hash: hashOf(secret, 'bob'), name: 'Bob', email: 'bob@example.com' },
    });
    expect(second.json().conversation_id).toBe(first.json().conversation_id);
    const c = await conversationOf(t, owner.token, agentId, first.json().conversation_id);
    expect(c).toMatchObject({ verified: true, visitor_user_id: 'alice', user_name: 'Alice', user_email: null });
  });

  it('an anonymous conversation becomes verified when a later message carries a valid hash', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const first = await chat(t, agentId, { message: 'Hi', session_id: 'v-later' });
    await chat(t, agentId, {
      message: 'Signed in now',
      session_id: 'v-later',
      user: { id: 'carol', hash: hashOf(secret, 'carol'), email: 'carol@example.com' },
    });
    const c = await conversationOf(t, owner.token, agentId, first.json().conversation_id);
    expect(c).toMatchObject({ verified: true, visitor_user_id: 'carol', user_email: 'carol@example.com' });
  });

  it('a `user` of the wrong shape is 400 with a detail naming the field, and nothing is stored', async () => {
    const { t, owner, agentId, secret } = await setUp();
    const hash = hashOf(secret, 'u1');
    const bad: Array<[unknown, RegExp]> = [
      ['u1', /user/],
      [{ id: 'u1' }, /user\.hash/],
      [{ hash }, /user\.id/],
      [{ id: '', hash }, /user\.id/],
      [{ id: 'x'.repeat(201), hash }, /user\.id/],
      [{ id: 'u1', hash: 'not-hex!' }, /user\.hash/],
      [{ id: 'u1', hash, email: 'not an address' }, /user\.email/],
      [{ id: 42, hash }, /user\.id/],
    ];
    for (const [user, detail] of bad) {
      const res = await chat(t, agentId, { message: 'Hi', session_id: 'v-bad', user });
      expect(res.statusCode, JSON.stringify(user)).toBe(400);
      expect(res.json().detail, JSON.stringify(user)).toMatch(detail);
    }
    expect(await sendExpect(t.app, owner.token, 'GET', `/api/chat/conversations/${agentId}`)).toEqual([]);
    // 200 characters is the longest id
    const longest = 'y'.repeat(200);
    const ok = await chat(t, agentId, {
      message: 'Hi',
      session_id: 'v-long',
      user: { id: longest, hash: hashOf(secret, longest) },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});

describe("a verified visitor's past conversations", () => {
  async function withHistory() {
    const s = await setUp();
    const say = async (session: string, userId: string, message: string) => {
      const res = await chat(s.t, s.agentId, {
        message,
        session_id: session,
        user: { id: userId, hash: hashOf(s.secret, userId) },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().conversation_id as string;
    };
    const older = await say('h-1', 'alice', 'First question');
    const newer = await say('h-2', 'alice', 'Second question');
    const bobs = await say('h-3', 'bob', 'Bob asks');
    await chat(s.t, s.agentId, { message: 'Anonymous', session_id: 'h-4' });
    const url = `/api/public/chatbots/${s.agentId}/visitor-conversations`;
    const get = (path: string, token?: string) =>
      s.t.app.inject({
        method: 'GET',
        url: `${url}${path}`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    return { ...s, older, newer, bobs, get };
  }

  it("a valid token lists the user's conversations newest first, and reads one", async () => {
    const { secret, older, newer, get } = await withHistory();
    const token = await tokenFor(secret, 'alice', 600);
    const res = await get('', token);
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json();
    expect(list.map((c: Json) => c.id)).toEqual([newer, older]);
    expect(Object.keys(list[0]).sort()).toEqual([
      'created_at',
      'id',
      'last_message_preview',
      'message_count',
      'updated_at',
    ]);
    expect(list[0].message_count).toBe(2);
    expect(typeof list[0].last_message_preview).toBe('string');
    const messages = await get(`/${older}`, token);
    expect(messages.statusCode, messages.body).toBe(200);
    expect(messages.json().map((m: Json) => m.role)).toEqual(['user', 'assistant']);
    expect(messages.json()[0].content).toBe('First question');
  });

  it("another user's conversation, and one that does not exist, are 404 alike", async () => {
    const { secret, bobs, get } = await withHistory();
    const token = await tokenFor(secret, 'alice', 600);
    const theirs = await get(`/${bobs}`, token);
    const missing = await get('/0190c2e0-0000-7000-8000-000000000000', token);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual(missing.json());
  });

  it('refuses tokens: none, expired, without exp, exp over 24 h ahead, wrong secret, rotated secret (401 with a reason)', async () => {
    const { t, owner, agentId, secret, get } = await withHistory();
    const cases: Array<[string, string | undefined, RegExp]> = [
      ['no token', undefined, /Bearer/],
      ['garbage', 'not.a.jwt', /invalid/],
      ['expired', await tokenFor(secret, 'alice', -60), /expired/],
      ['no exp', await tokenFor(secret, 'alice', null), /exp/],
      ['no sub', await tokenFor(secret, null, 600), /sub/],
      ['exp too far', await tokenFor(secret, 'alice', 25 * 3600), /24 hours/],
      ['wrong secret', await tokenFor(`${secret}x`, 'alice', 600), /invalid/],
    ];
    for (const [name, token, detail] of cases) {
      const res = await get('', token);
      expect(res.statusCode, name).toBe(401);
      expect(res.json().detail, name).toMatch(detail);
    }
    // just under 24 h is accepted
    expect((await get('', await tokenFor(secret, 'alice', 24 * 3600 - 60))).statusCode).toBe(200);
    const before = await tokenFor(secret, 'alice', 600);
    await newSecret(t, owner.token, agentId);
    expect((await get('', before)).statusCode).toBe(401);
  });

  it('an unknown agent is 404; an agent without a secret is 401', async () => {
    const { t, secret } = await withHistory();
    const token = await tokenFor(secret, 'alice', 600);
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/public/chatbots/0190c2e0-0000-7000-8000-000000000000/visitor-conversations',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(unknown.statusCode).toBe(404);
    const other = await accountWithAgent(t.app);
    const none = await t.app.inject({
      method: 'GET',
      url: `/api/public/chatbots/${other.agent.id}/visitor-conversations`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(none.statusCode).toBe(401);
    expect(none.json().detail).toMatch(/no identity secret/);
  });

  it("a token signed with another agent's secret reads nothing of this agent", async () => {
    const { t, owner, agentId, get } = await withHistory();
    const other = await createAgent(t.app, owner.token, { name: 'Other bot' });
    const otherSecret = await newSecret(t, owner.token, other.id);
    expect((await get('', await tokenFor(otherSecret, 'alice', 600))).statusCode).toBe(401);
    expect(agentId).not.toBe(other.id);
  });
});
