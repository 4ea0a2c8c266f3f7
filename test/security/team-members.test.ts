import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { createAgent, joinAs, registerUser, send, sendExpect, startTestApp, type TestApp } from '../helpers/app.js';
import { createSavedReply } from '../helpers/team.js';

/**
 * The cross-account matrix extended to teammates (issue 34.1), over every route of the route
 * table: a teammate of account A reaches nothing of account B (each of B's ids answers 403 or 404,
 * never 2xx, and B's data stays as it was); an operator is refused (403) exactly on the routes
 * outside the pinned operator list, before anything else runs.
 */

/** What an operator may call (docs/API-NOTES.md "Team"). Adding one here is a decision, made in review. */
const OPERATOR_ROUTES = [
  'GET /api/auth/me',
  'POST /api/auth/logout',
  'POST /api/auth/password',
  'GET /api/chatbots',
  'GET /api/chatbots/',
  'GET /api/chatbots/:chatbot_id',
  'GET /api/sources/chatbot/:chatbot_id',
  'GET /api/sources/:source_id/passages',
  'GET /api/sources/:source_id/syncs',
  'GET /api/chatbots/:chatbot_id/gaps',
  'POST /api/chatbots/:chatbot_id/gaps/:gap_id/answer',
  'POST /api/chatbots/:chatbot_id/gaps/:gap_id/dismiss',
  'POST /api/chat',
  'GET /api/chat/conversations/:chatbot_id',
  'PATCH /api/chat/conversations/:chatbot_id/:conversation_id',
  'GET /api/chat/messages/:conversation_id',
  'POST /api/chat/conversations/:chatbot_id/:conversation_id/take',
  'POST /api/chat/conversations/:chatbot_id/:conversation_id/hand-back',
  'POST /api/chat/conversations/:chatbot_id/:conversation_id/reply',
  'POST /api/chat/conversations/:chatbot_id/:conversation_id/draft-reply',
  'GET /api/chat/conversations/:chatbot_id/events',
  'GET /api/inbox',
  'PUT /api/chat/conversations/:chatbot_id/:conversation_id/assignee',
  'GET /api/chat/conversations/:chatbot_id/:conversation_id/notes',
  'POST /api/chat/conversations/:chatbot_id/:conversation_id/notes',
  // a transcript's action runs (issue 35), as its messages
  'GET /api/chatbots/:chatbot_id/conversations/:conversation_id/action-runs',
  'GET /api/saved-replies',
  'POST /api/saved-replies',
  'PUT /api/saved-replies/:id',
  'DELETE /api/saved-replies/:id',
  'GET /api/team/me',
  'GET /api/team/assignees',
  'PUT /api/team/me',
  'GET /api/chatbot-leads/:chatbot_id',
  'GET /api/chatbot-leads/:chatbot_id/export.csv',
  'DELETE /api/chatbot-leads/:chatbot_id/:lead_id',
  'GET /api/leads',
  'GET /api/leads/stats',
  'GET /api/leads/export.csv',
  'POST /api/leads',
  'PUT /api/leads/:lead_id',
  'DELETE /api/leads/:lead_id',
  'GET /api/usage',
  'GET /api/system/status',
  // issue 34.4: each person's own online/away
  'GET /api/team/me/availability',
  'PUT /api/team/me/availability',
  // issue 34.3: each person's own notifications (the events stream too, left out of this walk)
  'GET /api/notifications/vapid-public-key',
  'POST /api/notifications/push-subscriptions',
  'DELETE /api/notifications/push-subscriptions',
  'GET /api/notifications/preferences',
  'PUT /api/notifications/preferences',
];

const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
const NONE = '0190c2e0-0000-7000-8000-000000000000';

/** The URL with each parameter replaced by `ids[name]` (an id that names nothing when absent). */
function concrete(url: string, ids: Record<string, string>): string {
  return url.replace(/:([a-z_]+)/g, (_, name: string) => ids[name] ?? (name === 'provider' ? 'openai' : NONE));
}

describe('teammates across accounts and team roles, over the whole route table', () => {
  let t: TestApp;
  let routes: RouteInfo[];
  let manager: string;
  let operator: string;
  let bToken: string;
  /** B's ids by parameter name */
  let bIds: Record<string, string>;
  /** A's ids by parameter name */
  let aIds: Record<string, string>;

  async function seed(token: string) {
    const agent = await createAgent(t.app, token, { name: 'Seeded bot' });
    const source = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/sources/chatbot/${agent.id}/text`,
      { name: 'Shipping', content: 'Parcels ship within two working days.' },
      201,
    );
    const chat = await sendExpect(t.app, token, 'POST', '/api/chat', { message: 'How fast?', chatbot_id: agent.id });
    const lead = await sendExpect(t.app, token, 'POST', '/api/leads', { name: 'Ada', contact: 'ada@example.com' });
    const me = await sendExpect(t.app, token, 'GET', '/api/auth/me');
    const path = `/api/chat/conversations/${agent.id}/${chat.conversation_id}`;
    await sendExpect(t.app, token, 'POST', `${path}/notes`, { content: 'Internal note' }, 201);
    await sendExpect(t.app, token, 'PUT', `${path}/assignee`, { user_id: me.id });
    const saved = await createSavedReply(t, token, { shortcut: 'hi', content: 'Hello' });
    return {
      id: saved.id,
      chatbot_id: agent.id,
      source_id: source.id,
      conversation_id: chat.conversation_id,
      lead_id: lead.id,
      user_id: me.id,
    };
  }

  /** The route `r` as `token`, its parameters filled from `ids`, with an empty body unless a GET. */
  const call = (token: string, r: RouteInfo, ids: Record<string, string>) =>
    send(t.app, token, r.method as 'GET', concrete(r.url, ids), r.method === 'GET' ? undefined : {});

  const snapshotOf = async (token: string, ids: Record<string, string>) => ({
    agents: await sendExpect(t.app, token, 'GET', '/api/chatbots'),
    sources: await sendExpect(t.app, token, 'GET', `/api/sources/chatbot/${ids.chatbot_id}`),
    conversations: await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${ids.chatbot_id}`),
    messages: await sendExpect(t.app, token, 'GET', `/api/chat/messages/${ids.conversation_id}`),
    leads: await sendExpect(t.app, token, 'GET', '/api/leads'),
    inbox: await sendExpect(t.app, token, 'GET', '/api/inbox'),
    notes: await sendExpect(
      t.app,
      token,
      'GET',
      `/api/chat/conversations/${ids.chatbot_id}/${ids.conversation_id}/notes`,
    ),
    savedReplies: await sendExpect(t.app, token, 'GET', '/api/saved-replies'),
  });

  beforeAll(async () => {
    t = await startTestApp();
    const a = await registerUser(t.app, { name: 'A' });
    const b = await registerUser(t.app, { name: 'B' });
    bToken = b.token;
    manager = await joinAs(t, a.token, 'manager', 'a-manager@example.com');
    operator = await joinAs(t, a.token, 'operator', 'a-operator@example.com');
    aIds = await seed(a.token);
    bIds = await seed(b.token);
    routes = t.app.routeTable.filter((r) => !r.public && r.method !== 'HEAD' && !r.url.endsWith('/events'));
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  it("a teammate of A gets 403 or 404 for every route naming one of B's ids; B's data is unchanged", async () => {
    await snapshotOf(bToken, bIds); // B reading the messages marks the conversation read: settled first
    const before = await snapshotOf(bToken, bIds);
    let tried = 0;
    for (const r of routes.filter((x) => x.url.includes(':'))) {
      for (const token of [manager, operator]) {
        const res = await call(token, r, bIds);
        // 400: the body was refused before anything was looked up
        expect([400, 403, 404, 415], `${key(r)}: ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(
          res.statusCode,
        );
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(60);
    expect(await snapshotOf(bToken, bIds)).toEqual(before);
  });

  it("the inbox's routes with valid bodies: B's ids answer like missing ones, B's people cannot be assigned", async () => {
    await snapshotOf(bToken, bIds);
    const before = await snapshotOf(bToken, bIds);
    const bPath = `/api/chat/conversations/${bIds.chatbot_id}/${bIds.conversation_id}`;
    const aPath = `/api/chat/conversations/${aIds.chatbot_id}/${aIds.conversation_id}`;
    for (const token of [manager, operator]) {
      const missing = await send(t.app, token, 'GET', `/api/inbox?chatbot_id=${NONE}`);
      const theirs = await send(t.app, token, 'GET', `/api/inbox?chatbot_id=${bIds.chatbot_id}`);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json()).toEqual(missing.json());
      const inbox = await sendExpect(t.app, token, 'GET', '/api/inbox');
      expect(inbox.map((c: { id: string }) => c.id)).toEqual([aIds.conversation_id]);
      expect((await send(t.app, token, 'GET', `/api/inbox?assigned=${bIds.user_id}`)).statusCode).toBe(400);
      expect((await send(t.app, token, 'PUT', `${bPath}/assignee`, { user_id: null })).statusCode).toBe(404);
      expect((await send(t.app, token, 'PUT', `${bPath}/assignee`, { user_id: aIds.user_id })).statusCode).toBe(404);
      const foreign = await send(t.app, token, 'PUT', `${aPath}/assignee`, { user_id: bIds.user_id });
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().detail).toBe('user_id: not a member of this team');
      expect((await send(t.app, token, 'GET', `${bPath}/notes`)).statusCode).toBe(404);
      expect((await send(t.app, token, 'POST', `${bPath}/notes`, { content: 'Mine now' })).statusCode).toBe(404);
      const missingReply = await send(t.app, token, 'PUT', `/api/saved-replies/${NONE}`, { content: 'Mine' });
      const theirReply = await send(t.app, token, 'PUT', `/api/saved-replies/${bIds.id}`, { content: 'Mine' });
      expect(theirReply.statusCode).toBe(404);
      expect(theirReply.json()).toEqual(missingReply.json());
      expect((await send(t.app, token, 'DELETE', `/api/saved-replies/${bIds.id}`)).statusCode).toBe(404);
      // the same shortcut as B's is A's own
      expect(
        (await send(t.app, token, 'GET', '/api/saved-replies')).json().map((r: { id: string }) => r.id),
      ).not.toContain(bIds.id);
    }
    expect(await snapshotOf(bToken, bIds)).toEqual(before);
    // A's own assignment stayed
    const aInbox = await sendExpect(t.app, operator, 'GET', '/api/inbox');
    expect(aInbox[0].assigned_to.user_id).toBe(aIds.user_id);
  });

  it('an operator is refused (403) exactly on the routes outside the operator list', async () => {
    const listed = new Set(OPERATOR_ROUTES);
    // logout last: it ends the operator's session
    const ordered = [
      ...routes.filter((r) => key(r) !== 'POST /api/auth/logout'),
      ...routes.filter((r) => key(r) === 'POST /api/auth/logout'),
    ];
    for (const r of ordered) {
      // A's own ids: a refusal here is the team role's, not a missing id's
      const res = await call(operator, r, aIds);
      if (listed.has(key(r))) expect(res.statusCode, key(r)).not.toBe(403);
      else expect(res.statusCode, `${key(r)}: ${res.body.slice(0, 200)}`).toBe(403);
    }
    const known = new Set(t.app.routeTable.map(key));
    for (const k of OPERATOR_ROUTES) expect(known.has(k), k).toBe(true);
  });
});
