import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { PASSWORD, createAgent, registerUser, send, sendExpect, type TestApp, uniqueEmail } from '../helpers/app.js';
import { listenOnLoopback } from '../helpers/browser.js';
import { CONVERSATION_FIELDS } from '../helpers/chat.js';
import type { FakeLlm } from '../helpers/fake-llm.js';
import { appWithMailAndLlm } from '../helpers/mail-app.js';
import { createSavedReply } from '../helpers/team.js';

/**
 * One inbox for the account (issue 34 part 2, docs/API-NOTES.md "Inbox"): every agent's
 * conversations with filters and pages, assignment, internal notes the visitor and the model never
 * see, saved replies, and the display name the visitor sees on a person's replies. Real SQLite,
 * a fake LLM on loopback, the visitor's stream read over HTTP.
 */

type Json = Record<string, any>;

let t: TestApp;
let fake: FakeLlm;
let base: string;
let close: (() => Promise<void>) | undefined;

async function joinAs(app: App, ownerToken: string, role: 'manager' | 'operator', name: string) {
  const inv = await sendExpect(
    app,
    ownerToken,
    'POST',
    '/api/team/invitations',
    { email: uniqueEmail(role), role },
    201,
  );
  const token = inv.link.split('token=')[1];
  const joined = await sendExpect(app, null, 'POST', '/api/team/join', { token, name, password: PASSWORD }, 201);
  const me = await sendExpect(app, joined.access_token, 'GET', '/api/auth/me');
  return { token: joined.access_token as string, id: me.id as string };
}

async function visitorSays(agentId: string, session: string, message: string): Promise<Json> {
  return sendExpect(t.app, null, 'POST', `/api/public/chat/${agentId}`, { session_id: session, message });
}

/** The `ready` event of the visitor's stream (then the stream is closed). */
async function visitorReady(agentId: string, session: string): Promise<{ raw: string; data: Json }> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/public/chat/${agentId}/events?session_id=${session}`, {
    headers: { accept: 'text/event-stream' },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  while (!buffer.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended before ready');
    buffer += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel().catch(() => {});
  const block = buffer.slice(0, buffer.indexOf('\n\n'));
  expect(block).toContain('event: ready');
  return { raw: block, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) };
}

beforeAll(async () => {
  ({ t, fake, close } = await appWithMailAndLlm({ key: 'sk-test-inbox', llm: { reply: 'The agent answers.' } }));
  base = `http://127.0.0.1:${await listenOnLoopback(t)}`;
}, 30_000);
afterAll(async () => close?.(), 60_000);

describe('the inbox', () => {
  let owner: string;
  let operator: { token: string; id: string };
  let manager: { token: string; id: string };
  let ownerId: string;
  let sales: Json;
  let support: Json;
  const conv: Record<string, string> = {};

  beforeAll(async () => {
    owner = (await registerUser(t.app, { name: 'Olivia Owner' })).token;
    ownerId = (await sendExpect(t.app, owner, 'GET', '/api/auth/me')).id;
    operator = await joinAs(t.app, owner, 'operator', 'Otto Operator');
    manager = await joinAs(t.app, owner, 'manager', 'Mia Manager');
    sales = await createAgent(t.app, owner, { name: 'Sales', provider: 'openai', model: 'gpt-4o-mini' });
    support = await createAgent(t.app, owner, { name: 'Support', provider: 'openai', model: 'gpt-4o-mini' });
    conv.s1 = (await visitorSays(sales.id, 'inbox-s1', 'Prices please')).conversation_id;
    conv.p1 = (await visitorSays(support.id, 'inbox-p1', 'My parcel is late')).conversation_id;
    conv.p2 = (await visitorSays(support.id, 'inbox-p2', 'I need a person')).conversation_id;
    await sendExpect(t.app, null, 'POST', `/api/public/chat/${support.id}/escalate`, { session_id: 'inbox-p2' });
  }, 60_000);

  it("lists every agent's conversations, newest activity first, with the agent's name and a preview", async () => {
    const res = await send(t.app, operator.token, 'GET', '/api/inbox');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    const items = res.json();
    expect(items.map((i: Json) => i.id)).toEqual([conv.p2, conv.p1, conv.s1]);
    expect(Object.keys(items[0]).sort()).toEqual(
      [...CONVERSATION_FIELDS, 'agent_name', 'last_message', 'last_message_at'].sort(),
    );
    expect(items[2]).toMatchObject({
      chatbot_id: sales.id,
      agent_name: 'Sales',
      status: 'active',
      handled_by: 'agent',
      assigned_to: null,
      last_message: 'The agent answers.',
      message_count: 2,
    });
  });

  it('filters by status and agent, and pages', async () => {
    const escalated = await sendExpect(t.app, operator.token, 'GET', '/api/inbox?status=escalated');
    expect(escalated.map((i: Json) => i.id)).toEqual([conv.p2]);
    const ofSales = await sendExpect(t.app, operator.token, 'GET', `/api/inbox?chatbot_id=${sales.id}`);
    expect(ofSales.map((i: Json) => i.id)).toEqual([conv.s1]);
    const page2 = await send(t.app, operator.token, 'GET', '/api/inbox?limit=2&page=2');
    expect(page2.json().map((i: Json) => i.id)).toEqual([conv.s1]);
    expect(page2.headers['x-total-count']).toBe('3');
    for (const bad of ['status=open', 'limit=0', 'limit=201', 'page=0', 'page=x', 'assigned=']) {
      const r = await send(t.app, operator.token, 'GET', `/api/inbox?${bad}`);
      expect(r.statusCode, bad).toBe(400);
      expect(typeof r.json().detail).toBe('string');
    }
    const other = await registerUser(t.app);
    const theirs = await createAgent(t.app, other.token);
    const r = await send(t.app, operator.token, 'GET', `/api/inbox?chatbot_id=${theirs.id}`);
    expect(r.statusCode).toBe(404);
    expect(await sendExpect(t.app, other.token, 'GET', '/api/inbox')).toEqual([]);
  });

  it('assigns to a person of the team, refuses anyone else with 400, filters by assignee', async () => {
    expect(await sendExpect(t.app, operator.token, 'GET', '/api/team/assignees')).toEqual([
      { user_id: ownerId, name: 'Olivia Owner' },
      { user_id: operator.id, name: 'Otto Operator' },
      { user_id: manager.id, name: 'Mia Manager' },
    ]);
    const path = `/api/chat/conversations/${support.id}/${conv.p1}/assignee`;
    const assigned = await sendExpect(t.app, operator.token, 'PUT', path, { user_id: manager.id });
    expect(assigned).toMatchObject({
      conversation_id: conv.p1,
      handled_by: 'agent',
      assigned_to: { user_id: manager.id, name: 'Mia Manager' },
    });
    const stranger = await registerUser(t.app);
    const strangerId = (await sendExpect(t.app, stranger.token, 'GET', '/api/auth/me')).id;
    for (const user_id of [strangerId, 'nobody', '']) {
      const r = await send(t.app, operator.token, 'PUT', path, { user_id });
      expect(r.statusCode, user_id).toBe(400);
      expect(r.json().detail).toEqual(expect.any(String));
    }
    expect((await send(t.app, operator.token, 'PUT', path, {})).statusCode).toBe(400);
    // nothing changed
    const mine = await sendExpect(t.app, manager.token, 'GET', '/api/inbox?assigned=me');
    expect(mine.map((i: Json) => i.id)).toEqual([conv.p1]);
    expect(mine[0].assigned_to).toEqual({ user_id: manager.id, name: 'Mia Manager' });
    const byId = await sendExpect(t.app, owner, 'GET', `/api/inbox?assigned=${manager.id}`);
    expect(byId.map((i: Json) => i.id)).toEqual([conv.p1]);
    expect((await send(t.app, owner, 'GET', `/api/inbox?assigned=${strangerId}`)).statusCode).toBe(400);
    const unassigned = await sendExpect(t.app, owner, 'GET', '/api/inbox?assigned=unassigned');
    expect(unassigned.map((i: Json) => i.id)).toEqual([conv.p2, conv.s1]);
    // another agent in the path, or another account's conversation: 404
    expect(
      (await send(t.app, owner, 'PUT', `/api/chat/conversations/${sales.id}/${conv.p1}/assignee`, { user_id: null }))
        .statusCode,
    ).toBe(404);
    expect((await send(t.app, stranger.token, 'PUT', path, { user_id: null })).statusCode).toBe(404);
    // the conversation list carries the assignee's id
    const list = await sendExpect(t.app, owner, 'GET', `/api/chat/conversations/${support.id}`);
    expect(list.find((c: Json) => c.id === conv.p1).assigned_to).toBe(manager.id);
    const cleared = await sendExpect(t.app, owner, 'PUT', path, { user_id: null });
    expect(cleared.assigned_to).toBeNull();
  });

  it('taking a conversation over assigns it to the taker when nobody has it', async () => {
    const path = `/api/chat/conversations/${support.id}/${conv.p2}`;
    const taken = await sendExpect(t.app, operator.token, 'POST', `${path}/take`);
    expect(taken).toMatchObject({ handled_by: 'person', assigned_to: { user_id: operator.id, name: 'Otto Operator' } });
    // someone else taking it again keeps the assignee
    const again = await sendExpect(t.app, manager.token, 'POST', `${path}/take`);
    expect(again.assigned_to.user_id).toBe(operator.id);
    const back = await sendExpect(t.app, owner, 'POST', `${path}/hand-back`);
    expect(back).toMatchObject({ handled_by: 'agent', assigned_to: { user_id: operator.id } });
  });

  it("internal notes: the team's only, never in the transcript, the visitor's stream or the model's prompt", async () => {
    const path = `/api/chat/conversations/${sales.id}/${conv.s1}/notes`;
    const secret = 'VIP customer, discount code NOTE-SECRET-42';
    const note = await sendExpect(t.app, operator.token, 'POST', path, { content: `  ${secret}  ` }, 201);
    expect(Object.keys(note).sort()).toEqual(['author', 'content', 'created_at', 'id']);
    expect(note).toMatchObject({ content: secret, author: { user_id: operator.id, name: 'Otto Operator' } });
    expect((await send(t.app, operator.token, 'POST', path, { content: '   ' })).statusCode).toBe(400);
    expect((await send(t.app, operator.token, 'POST', path, { content: 'x'.repeat(4001) })).statusCode).toBe(400);
    expect((await send(t.app, operator.token, 'POST', path, {})).statusCode).toBe(400);
    expect(await sendExpect(t.app, manager.token, 'GET', path)).toEqual([note]);
    const stranger = await registerUser(t.app);
    expect((await send(t.app, stranger.token, 'GET', path)).statusCode).toBe(404);
    expect((await send(t.app, stranger.token, 'POST', path, { content: 'hi' })).statusCode).toBe(404);

    // the visitor's next turn: the prompt the model gets holds no note
    const before = fake.requests.length;
    await visitorSays(sales.id, 'inbox-s1', 'And shipping?');
    const prompts = JSON.stringify(fake.requests.slice(before).map((r) => r.body));
    expect(prompts).toContain('And shipping?');
    expect(prompts).not.toContain('NOTE-SECRET-42');
    // the transcript (the team's and what the visitor's stream sends) holds no note
    const transcript = await sendExpect(t.app, owner, 'GET', `/api/chat/messages/${conv.s1}`);
    expect(JSON.stringify(transcript)).not.toContain('NOTE-SECRET-42');
    await sendExpect(t.app, owner, 'POST', `/api/chat/conversations/${sales.id}/${conv.s1}/take`);
    await sendExpect(
      t.app,
      owner,
      'POST',
      `/api/chat/conversations/${sales.id}/${conv.s1}/reply`,
      { message: 'Hi!' },
      201,
    );
    const ready = await visitorReady(sales.id, 'inbox-s1');
    expect(ready.raw).not.toContain('NOTE-SECRET-42');
    expect(ready.raw).not.toContain('assigned_to');
  });

  it('the visitor sees the display name the person chose, stored with each reply', async () => {
    const me = await sendExpect(t.app, operator.token, 'PUT', '/api/team/me', { display_name: '  Otto from Support ' });
    expect(me).toMatchObject({ user_id: operator.id, name: 'Otto Operator', display_name: 'Otto from Support' });
    expect(await sendExpect(t.app, operator.token, 'GET', '/api/team/me')).toEqual(me);
    const members = await sendExpect(t.app, owner, 'GET', '/api/team/members');
    expect(members.find((m: Json) => m.user_id === operator.id).display_name).toBe('Otto from Support');
    expect(members.find((m: Json) => m.user_id === ownerId).display_name).toBe('Olivia Owner');
    expect(
      (await send(t.app, operator.token, 'PUT', '/api/team/me', { display_name: 'x'.repeat(101) })).statusCode,
    ).toBe(400);

    const path = `/api/chat/conversations/${support.id}/${conv.p1}`;
    await sendExpect(t.app, operator.token, 'POST', `${path}/take`);
    const sent = await sendExpect(
      t.app,
      operator.token,
      'POST',
      `${path}/reply`,
      { message: 'Hello, Otto here.' },
      201,
    );
    expect(sent).toMatchObject({ from_person: true, sender_name: 'Otto from Support' });
    // a later change of name leaves what the visitor already saw
    await sendExpect(t.app, operator.token, 'PUT', '/api/team/me', { display_name: null });
    const ready = await visitorReady(support.id, 'inbox-p1');
    expect(ready.data.messages).toEqual([expect.objectContaining({ id: sent.id, sender_name: 'Otto from Support' })]);
    const transcript = await sendExpect(t.app, owner, 'GET', `/api/chat/messages/${conv.p1}`);
    expect(transcript.at(-1)).toMatchObject({ sender_user_id: operator.id, sender_name: 'Otto from Support' });
    expect(transcript[0]).toMatchObject({ sender_user_id: null, sender_name: null });
    const next = await sendExpect(t.app, operator.token, 'POST', `${path}/reply`, { message: 'Again.' }, 201);
    expect(next.sender_name).toBe('Otto Operator');
  });

  it("removing a member unassigns their conversations; their notes keep the author's name", async () => {
    const leaving = await joinAs(t.app, owner, 'operator', 'Lea Leaving');
    const path = `/api/chat/conversations/${sales.id}/${conv.s1}`;
    await sendExpect(t.app, owner, 'PUT', `${path}/assignee`, { user_id: leaving.id });
    const note = await sendExpect(t.app, leaving.token, 'POST', `${path}/notes`, { content: 'Called back.' }, 201);
    const res = await send(t.app, owner, 'DELETE', `/api/team/members/${leaving.id}`);
    expect(res.statusCode).toBe(204);
    const list = await sendExpect(t.app, owner, 'GET', `/api/inbox?chatbot_id=${sales.id}`);
    expect(list[0].assigned_to).toBeNull();
    const notes = await sendExpect(t.app, owner, 'GET', `${path}/notes`);
    expect(notes.find((n: Json) => n.id === note.id).author).toEqual({ user_id: null, name: 'Lea Leaving' });
  });
});

describe('erasure', () => {
  it('erasing a conversation erases its notes', async () => {
    const owner = (await registerUser(t.app)).token;
    const agent = await createAgent(t.app, owner, { provider: 'openai', model: 'gpt-4o-mini' });
    const id = (await visitorSays(agent.id, 'inbox-erase', 'Forget me')).conversation_id;
    const path = `/api/chat/conversations/${agent.id}/${id}`;
    await sendExpect(t.app, owner, 'POST', `${path}/notes`, { content: 'Wants to be forgotten' }, 201);
    expect((await send(t.app, owner, 'DELETE', path)).statusCode).toBe(204);
    const left = t.database.sqlite
      .prepare('SELECT count(*) AS n FROM conversation_notes WHERE conversation_id = ?')
      .get(id);
    expect(left).toEqual({ n: 0 });
    expect((await send(t.app, owner, 'GET', `${path}/notes`)).statusCode).toBe(404);
  });
});

describe('saved replies', () => {
  it('are kept per account: unique shortcut (409), a slug (400), another account 404', async () => {
    const owner = (await registerUser(t.app)).token;
    const operator = await joinAs(t.app, owner, 'operator', 'Op');
    const created = await createSavedReply(t, operator.token, { shortcut: 'Refund', content: 'Refunds take 5 days.' });
    expect(Object.keys(created).sort()).toEqual(['content', 'created_at', 'id', 'shortcut', 'updated_at']);
    expect(created.shortcut).toBe('refund');
    const dup = await send(t.app, owner, 'POST', '/api/saved-replies', { shortcut: 'refund', content: 'Other' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail).toContain('shortcut');
    for (const bad of [
      { shortcut: 'two words', content: 'x' },
      { shortcut: '/slash', content: 'x' },
      { shortcut: 'x'.repeat(33), content: 'x' },
      { shortcut: 'ok', content: '  ' },
      { shortcut: 'ok' },
    ]) {
      const r = await send(t.app, owner, 'POST', '/api/saved-replies', bad);
      expect(r.statusCode, JSON.stringify(bad)).toBe(400);
    }
    const second = await createSavedReply(t, owner, { shortcut: 'hours', content: '9-5' });
    expect(
      (await send(t.app, owner, 'PUT', `/api/saved-replies/${second.id}`, { shortcut: 'refund' })).statusCode,
    ).toBe(409);
    const updated = await sendExpect(t.app, owner, 'PUT', `/api/saved-replies/${second.id}`, {
      shortcut: 'opening-hours',
      content: 'We are open 9-17.',
    });
    expect(updated).toMatchObject({ id: second.id, shortcut: 'opening-hours', content: 'We are open 9-17.' });
    const list = await sendExpect(t.app, operator.token, 'GET', '/api/saved-replies');
    expect(list.map((r: Json) => r.shortcut)).toEqual(['opening-hours', 'refund']);

    const other = (await registerUser(t.app)).token;
    expect(await sendExpect(t.app, other, 'GET', '/api/saved-replies')).toEqual([]);
    expect((await send(t.app, other, 'PUT', `/api/saved-replies/${second.id}`, { content: 'Mine' })).statusCode).toBe(
      404,
    );
    expect((await send(t.app, other, 'DELETE', `/api/saved-replies/${second.id}`)).statusCode).toBe(404);
    // the same shortcut in another account is fine
    await createSavedReply(t, other, { shortcut: 'refund', content: 'Ours' });

    expect((await send(t.app, operator.token, 'DELETE', `/api/saved-replies/${second.id}`)).statusCode).toBe(204);
    expect((await send(t.app, operator.token, 'DELETE', `/api/saved-replies/${second.id}`)).statusCode).toBe(404);
    expect((await sendExpect(t.app, owner, 'GET', '/api/saved-replies')).length).toBe(1);
  });
});
