import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * The exact set of routes that answer without a bearer token. Adding a public route means adding
 * it here, on purpose, in review.
 *
 * docs/API.md "Public routes": register, login, agent info and chat for the widget. Its
 * public lead capture (POST /api/public/lead/{id}) is public too: the widget's lead form.
 * Beyond the spec: health, the OpenAPI document and the docs page, the admin UI and whether
 * registration is open.
 */
const PUBLIC_ROUTES = [
  'POST /api/auth/register',
  'POST /api/auth/login',
  // password reset by e-mail (issue 22.1): whether it is available, the request, the confirmation
  'GET /api/auth/password-reset',
  'HEAD /api/auth/password-reset',
  'POST /api/auth/password-reset',
  'POST /api/auth/password-reset/confirm',
  // joining a team with an invitation's token (issue 34.1): the token is the permission
  'POST /api/team/join',
  'GET /api/public/chatbot/:chatbot_id',
  'HEAD /api/public/chatbot/:chatbot_id',
  'POST /api/public/chat/:chatbot_id',
  'POST /api/public/lead/:chatbot_id',
  // the visitor's thumbs on an answer and "talk to a person" (issue 23), by agent id and session id
  'POST /api/public/chat/:chatbot_id/feedback',
  'POST /api/public/chat/:chatbot_id/escalate',
  // actions (issue 35): the visitor's Confirm / Cancel on a card (authorized by the session), the
  // widget's list of the agent's actions and a button's start (no model)
  'POST /api/public/chat/:chatbot_id/action-runs/:run_id/confirm',
  'POST /api/public/chat/:chatbot_id/action-runs/:run_id/cancel',
  'GET /api/public/chat/:chatbot_id/actions',
  'HEAD /api/public/chat/:chatbot_id/actions',
  'POST /api/public/chat/:chatbot_id/actions/:action_id/start',
  // live handoff: the visitor's stream of a person's replies, authorized by the session (issue 23.4)
  'GET /api/public/chat/:chatbot_id/events',
  'HEAD /api/public/chat/:chatbot_id/events',
  // a verified visitor's past conversations, authorized by a JWT the owner's site signs with the
  // agent's identity secret (issue 35.5)
  'GET /api/public/chatbots/:chatbot_id/visitor-conversations',
  'HEAD /api/public/chatbots/:chatbot_id/visitor-conversations',
  'GET /api/public/chatbots/:chatbot_id/visitor-conversations/:conversation_id',
  'HEAD /api/public/chatbots/:chatbot_id/visitor-conversations/:conversation_id',
  'OPTIONS /api/public/chatbots/:chatbot_id/visitor-conversations',
  'OPTIONS /api/public/chatbots/:chatbot_id/visitor-conversations/:conversation_id',
  // a messaging network's webhook (issue 36): checked by the connection's secret header
  'POST /api/public/channels/telegram/:connection_id',
  // WhatsApp (issue 37): Meta's check of the URL (its verify token) and its posts, signed with the app secret
  'GET /api/channels/whatsapp/:chatbot_id',
  'HEAD /api/channels/whatsapp/:chatbot_id',
  'POST /api/channels/whatsapp/:chatbot_id',
  // CORS preflights of the visitor-facing routes (allowed_domains decides the answer)
  'OPTIONS /api/public/chatbot/:chatbot_id',
  'OPTIONS /api/public/chat/:chatbot_id',
  'OPTIONS /api/public/lead/:chatbot_id',
  'OPTIONS /api/public/chat/:chatbot_id/feedback',
  'OPTIONS /api/public/chat/:chatbot_id/escalate',
  'OPTIONS /api/public/chat/:chatbot_id/action-runs/:run_id/confirm',
  'OPTIONS /api/public/chat/:chatbot_id/action-runs/:run_id/cancel',
  'OPTIONS /api/public/chat/:chatbot_id/actions',
  'OPTIONS /api/public/chat/:chatbot_id/actions/:action_id/start',
  'GET /widget.js',
  'HEAD /widget.js',
  'GET /widget-:hash.js',
  'HEAD /widget-:hash.js',
  'GET /chat/:chatbot_id',
  'HEAD /chat/:chatbot_id',
  'GET /api/health',
  'HEAD /api/health',
  // the admin UI's page and its hashed files, and the login page's "is registration open?"
  'GET /',
  'HEAD /',
  'GET /assets/:file',
  'HEAD /assets/:file',
  // its service worker (Web Push notifications), at the root so its scope is the whole admin
  'GET /sw.js',
  'HEAD /sw.js',
  'GET /api/auth/registration',
  'HEAD /api/auth/registration',
  // the page an alert address's confirmation link opens, and its form (docs/API-NOTES.md "Lead alerts")
  'GET /alerts/confirm',
  'HEAD /alerts/confirm',
  'POST /alerts/confirm',
  'GET /openapi.json',
  'HEAD /openapi.json',
  // the docs page and everything under it, served by a docs app made on first request (openapi-docs.ts)
  'GET /docs',
  'HEAD /docs',
  'GET /docs/*',
  'HEAD /docs/*',
].sort();

const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

/**
 * Every method + path the router serves, read from Fastify's own radix-tree printout, so a route
 * that never reached the route table (no onRoute call) is caught too.
 */
function routerRoutes(printed: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const raw of printed.split('\n')) {
    if (!raw.trim()) continue;
    const m = /^((?:[│ ] {3})*)(?:├── |└── )(.*)$/.exec(raw);
    if (!m) throw new Error(`unparsed printRoutes line: ${JSON.stringify(raw)}`);
    const depth = m[1]!.length / 4;
    const node = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(m[2]!)!;
    stack.length = depth;
    stack.push(node[1]!);
    if (node[2]) for (const method of node[2].split(',')) out.push(`${method.trim()} ${stack.join('')}`);
  }
  return out.sort();
}

/**
 * Routes that must stay behind a token; the sweep below reads the route table, this list only
 * makes sure the chat and knowledge routes are in it.
 */
const GUARDED_CHAT_AND_KNOWLEDGE = [
  'POST /api/chat',
  'GET /api/chat/conversations/:chatbot_id',
  'HEAD /api/chat/conversations/:chatbot_id',
  'GET /api/chat/messages/:conversation_id',
  'HEAD /api/chat/messages/:conversation_id',
  'GET /api/sources/chatbot/:chatbot_id',
  'HEAD /api/sources/chatbot/:chatbot_id',
  'POST /api/sources/chatbot/:chatbot_id/text',
  'DELETE /api/sources/:source_id',
];

/**
 * A concrete URL for a route pattern: params named in `ids` become those (real) ids, others
 * random ones; a wildcard becomes a path.
 */
function concrete(url: string, ids: Record<string, string> = {}): string {
  return url
    .replace(/:([A-Za-z_]\w*)/g, (_, name: string) => ids[name] ?? randomUUID())
    .replace(/\*$/, 'some/file.txt');
}

function jwtPayload(token: string): { sub: string; sid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** Everything stored, except what merely reading renews (a session's last use). */
function storedData(t: TestApp): Record<string, unknown[]> {
  const rows = (sql: string) => t.database.sqlite.prepare(sql).all();
  return {
    users: rows('SELECT * FROM users ORDER BY id'),
    sessions: rows('SELECT id, user_id, created_at, expires_at FROM sessions ORDER BY id'),
    chatbots: rows('SELECT * FROM chatbots ORDER BY id'),
    sources: rows('SELECT * FROM sources ORDER BY id'),
    chunks: rows('SELECT * FROM chunks ORDER BY id'),
    conversations: rows('SELECT * FROM conversations ORDER BY id'),
    messages: rows('SELECT * FROM messages ORDER BY id'),
  };
}

describe('public routes', () => {
  let t: TestApp;
  let table: RouteInfo[];
  let adminToken: string;
  let loggedOutToken: string;
  /** real ids of the admin's data, so a refused request has something it could have changed */
  let ids: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    table = t.app.routeTable;
    adminToken = (await registerUser(t.app)).token;
    loggedOutToken = (await registerUser(t.app)).token;
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(loggedOutToken) });
    expect(out.statusCode).toBe(200);

    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(adminToken) });
    const agent = await createAgent(t.app, adminToken, { name: 'Guarded bot' });
    const source = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/text`,
      headers: auth(adminToken),
      payload: { name: 'Shipping', content: 'Parcels ship within two working days.' },
    });
    expect(source.statusCode, source.body).toBe(201);
    const chat = await t.app.inject({
      method: 'POST',
      url: '/api/chat',
      headers: auth(adminToken),
      payload: { message: 'How fast do parcels ship?', chatbot_id: agent.id },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    ids = {
      user_id: me.json().id,
      chatbot_id: agent.id,
      source_id: source.json().id,
      conversation_id: chat.json().conversation_id,
    };
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  it('the route table lists every route the router serves, once', () => {
    const fromTable = table.map(key).sort();
    expect(new Set(fromTable).size, 'no duplicates').toBe(fromTable.length);
    expect(fromTable).toEqual(routerRoutes(t.app.printRoutes()));
  });

  it('exactly the pinned set of routes is public', () => {
    const publicRoutes = table
      .filter((r) => r.public)
      .map(key)
      .sort();
    expect(publicRoutes).toEqual(PUBLIC_ROUTES);
  });

  it('the public routes answer without a token', async () => {
    for (const r of table.filter((x) => x.public)) {
      const res = await t.app.inject({
        method: r.method as 'GET',
        url: concrete(r.url),
        ...(r.method === 'POST' ? { payload: {} } : {}),
      });
      if (key(r) === 'POST /api/channels/whatsapp/:chatbot_id') {
        // its credential is Meta's signature of the body, not a token: unsigned is 401, and says so
        expect(res.statusCode, key(r)).toBe(401);
        expect(res.json().detail, key(r)).toMatch(/^X-Hub-Signature-256: /);
        expect(res.headers['www-authenticate'], key(r)).toBeUndefined();
        continue;
      }
      expect(res.statusCode, key(r)).not.toBe(401);
      expect(res.statusCode, key(r)).toBeLessThan(500);
      if (r.method === 'POST') expect(res.statusCode, `${key(r)} with an empty object is a validation error`).toBe(400);
    }
  });

  it("the widget's public routes serve a public agent to a visitor with no token", async () => {
    const info = await t.app.inject({ method: 'GET', url: `/api/public/chatbot/${ids.chatbot_id}` });
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json().id).toBe(ids.chatbot_id);
    // only the widget's fields: nothing of the owner's configuration
    for (const hidden of ['instructions', 'system_message', 'user_id', 'model', 'provider', 'temperature'])
      expect(info.json(), hidden).not.toHaveProperty(hidden);
    const chat = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${ids.chatbot_id}`,
      payload: { message: 'Do parcels ship fast?', session_id: 'public-route-visitor' },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(chat.json().session_id).toBe('public-route-visitor');
    // a public chat does not open the owner's data: the conversation list still needs a token
    const list = await t.app.inject({ method: 'GET', url: `/api/chat/conversations/${ids.chatbot_id}` });
    expect(list.statusCode).toBe(401);
    const messages = await t.app.inject({ method: 'GET', url: `/api/chat/messages/${chat.json().conversation_id}` });
    expect(messages.statusCode).toBe(401);
  });

  describe('every other route refuses a request without valid credentials', () => {
    const variants: Array<{ name: string; headers: () => Promise<Record<string, string>> }> = [
      { name: 'no Authorization header', headers: async () => ({}) },
      { name: 'empty Bearer', headers: async () => ({ authorization: 'Bearer ' }) },
      { name: 'Bearer garbage', headers: async () => ({ authorization: 'Bearer not.a.jwt' }) },
      {
        name: 'Basic credentials',
        headers: async () => ({ authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }),
      },
      {
        name: 'the token as a bare value (no scheme)',
        headers: async () => ({ authorization: adminToken }),
      },
      {
        name: 'an unsigned alg:none token for a real session',
        headers: async () => {
          const { sub, sid } = jwtPayload(adminToken);
          const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
          const now = Math.floor(Date.now() / 1000);
          return {
            authorization: `Bearer ${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub, sid, iat: now, exp: now + 3600 })}.`,
          };
        },
      },
      {
        name: 'an HS256 token for a real session signed with another secret',
        headers: async () => {
          const { sub, sid } = jwtPayload(adminToken);
          const forged = await new SignJWT({ sid })
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setSubject(sub)
            .setIssuedAt()
            .setExpirationTime('1h')
            .sign(randomBytes(48));
          return { authorization: `Bearer ${forged}` };
        },
      },
      { name: 'the token of a logged-out session', headers: async () => auth(loggedOutToken) },
    ];

    /** A body the route would accept from its owner, so the credentials are the only fault. */
    const bodyFor = (r: RouteInfo): Record<string, unknown> => {
      switch (key(r)) {
        case 'POST /api/chat':
          return { message: 'How fast do parcels ship?', chatbot_id: ids.chatbot_id, session_id: 'sweep-session' };
        case 'POST /api/sources/chatbot/:chatbot_id/text':
          return { name: 'Injected', content: 'Text an attacker wants the agent to say.' };
        default:
          return { name: 'x' };
      }
    };

    it('covers the chat and knowledge routes', () => {
      const guarded = table.filter((r) => !r.public).map(key);
      expect(guarded).toEqual(expect.arrayContaining(GUARDED_CHAT_AND_KNOWLEDGE));
    });

    for (const v of variants) {
      it(v.name, async () => {
        const guarded = table.filter((r) => !r.public);
        expect(guarded.length).toBeGreaterThan(5);
        const headers = await v.headers();
        const before = storedData(t);
        for (const r of guarded) {
          const res = await t.app.inject({
            method: r.method as 'GET',
            url: concrete(r.url, ids),
            headers,
            ...(['POST', 'PUT', 'PATCH'].includes(r.method) ? { payload: bodyFor(r) } : {}),
          });
          expect(res.statusCode, `${key(r)} with ${v.name}`).toBe(401);
          expect(res.headers['www-authenticate'], key(r)).toBe('Bearer');
          if (r.method !== 'HEAD') expect(res.json(), key(r)).toEqual({ detail: 'Could not validate credentials' });
        }
        // the real agent, source and conversation were targeted; nothing changed
        expect(storedData(t)).toEqual(before);
      });
    }

    it('a multipart text source without valid credentials is refused before the form is read', async () => {
      const boundary = 'sweep-boundary';
      const form =
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nInjected\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nText an attacker wants the agent to say.\r\n` +
        `--${boundary}--\r\n`;
      const before = storedData(t);
      for (const v of variants) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/sources/chatbot/${ids.chatbot_id}/text`,
          headers: { ...(await v.headers()), 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: form,
        });
        expect(res.statusCode, v.name).toBe(401);
        expect(res.json(), v.name).toEqual({ detail: 'Could not validate credentials' });
      }
      expect(storedData(t)).toEqual(before);
    });

    it('an event-stream chat request without valid credentials gets a JSON 401, not a stream', async () => {
      for (const v of variants) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/chat',
          headers: { ...(await v.headers()), accept: 'text/event-stream' },
          payload: bodyFor({ method: 'POST', url: '/api/chat', public: false }),
        });
        expect(res.statusCode, v.name).toBe(401);
        expect(String(res.headers['content-type']), v.name).toMatch(/^application\/json/);
      }
    });

    it('a valid token still gets through (the 401s above are not for every caller)', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(adminToken) });
      expect(res.statusCode).toBe(200);
    });
  });

  it('URL variants of guarded routes never answer 2xx without a token', async () => {
    const variants = [
      '/api/chatbots/',
      '/API/chatbots',
      '/api/Chatbots',
      '//api/chatbots',
      '/api//chatbots',
      '/api/chatbots?public=true',
      '/api/chatbots#x',
      '/api/health/../chatbots',
      '/api/health/%2e%2e/chatbots',
      '/api/admin/users/',
      '/docs/../api/admin/users',
      '/docs/static/../../api/admin/users',
      '/docs/static/%2e%2e/%2e%2e/api/admin/users',
      '/openapi.json/../api/auth/me',
      // the public widget routes are no way into the guarded ones
      '/API/chat',
      '/api/Chat',
      '/api/chat/',
      '/api/public/chat',
      '/api/public/chatbot/x/../../../api/chatbots',
      '/api/public/chatbot/%2e%2e/%2e%2e/chatbots',
      '/api/public/chat/x/../../chat',
      '/api/public/../chat/conversations/x',
      '/api/public/chatbot/../../sources/chatbot/x',
      '/api/public/chat/%2e%2e%2f%2e%2e%2fchat',
      '/api/public//chat/x/../../chat',
      '/api/sources/chatbot/x/text/',
      '/api/sources/chatbot/x/text?public=true',
      '/api/chat/messages/x?public=true',
    ];
    for (const url of variants) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.app.inject({ method, url, ...(method === 'POST' ? { payload: { name: 'x' } } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    }
  });
});
