import { describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, say, useTestApps, type TestApp } from '../helpers/app.js';

/**
 * Issue 23.3 and 23.5: conversation states (resolved by the owner or after the agent's idle time,
 * reopened by a new message), list filters, transcript search and unread markers; the agent's
 * new fields (starter questions, greeting, idle time, escalation words).
 */

type Json = Record<string, any>;
const HOUR = 3600_000;
const apps = useTestApps();

async function setup(agentFields: Json = {}, clock = new ManualClock()) {
  const t = await apps.start({ clock });
  const owner = await registerUser(t.app);
  const agent = await createAgent(t.app, owner.token, agentFields);
  const resolved: Json[] = [];
  t.app.events.on('conversation.resolved', (e) => resolved.push(e));
  return { t, owner, agent, clock, resolved };
}

const list = async (t: TestApp, token: string, agentId: string, query = '') => {
  const res = await t.app.inject({ url: `/api/chat/conversations/${agentId}${query}`, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Json[];
};
const patch = (t: TestApp, token: string, agentId: string, conversationId: string, payload: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/chat/conversations/${agentId}/${conversationId}`,
    headers: auth(token),
    payload: payload as Json,
  });

describe('PATCH /api/chat/conversations/{chatbot_id}/{conversation_id}', () => {
  it('resolves (with the event) and reopens', async () => {
    const { t, owner, agent, resolved, clock } = await setup();
    const c = await say(t, agent.id, 's1', 'hello');
    let res = await patch(t, owner.token, agent.id, c.conversation_id, { status: 'resolved' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: c.conversation_id,
      status: 'resolved',
      resolved_at: clock.now().toISOString(),
    });
    expect(resolved).toEqual([
      {
        account_id: agent.user_id,
        chatbot_id: agent.id,
        conversation_id: c.conversation_id,
        session_id: 's1',
        at: clock.now().toISOString(),
        by: 'owner',
      },
    ]);
    // resolving again changes nothing and emits nothing
    await patch(t, owner.token, agent.id, c.conversation_id, { status: 'resolved' });
    expect(resolved).toHaveLength(1);
    res = await patch(t, owner.token, agent.id, c.conversation_id, { status: 'active' });
    expect(res.json()).toMatchObject({ status: 'active', resolved_at: null });
  });

  it("answers another account's, another agent's and a missing conversation with 404, bad values with 400", async () => {
    const { t, owner, agent } = await setup();
    const other = await createAgent(t.app, owner.token, { name: 'Other' });
    const stranger = await registerUser(t.app);
    const c = await say(t, agent.id, 's1', 'hello');
    for (const [token, agentId, id] of [
      [stranger.token, agent.id, c.conversation_id],
      [owner.token, other.id, c.conversation_id],
      [owner.token, agent.id, 'missing'],
    ] as const) {
      const res = await patch(t, token, agentId, id, { status: 'resolved' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Conversation not found' });
    }
    for (const body of [{ status: 'escalated' }, { status: 'done' }, {}]) {
      const res = await patch(t, owner.token, agent.id, c.conversation_id, body);
      expect(res.statusCode).toBe(400);
      expect(typeof res.json().detail).toBe('string');
    }
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/chat/conversations/${agent.id}/${c.conversation_id}`,
      payload: { status: 'resolved' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('a new visitor message reopens a resolved conversation', async () => {
    const { t, owner, agent } = await setup();
    const c = await say(t, agent.id, 's1', 'hello');
    await patch(t, owner.token, agent.id, c.conversation_id, { status: 'resolved' });
    await say(t, agent.id, 's1', 'one more thing');
    expect((await list(t, owner.token, agent.id))[0]).toMatchObject({ status: 'active', resolved_at: null });
  });
});

describe('idle resolution', () => {
  it("resolves active conversations idle past the agent's auto_resolve_after_h (by: idle), not escalated ones nor agents with null", async () => {
    const { t, owner, agent, clock, resolved } = await setup({ auto_resolve_after_h: 2 });
    const never = await createAgent(t.app, owner.token, { name: 'Never', auto_resolve_after_h: null });
    const idle = await say(t, agent.id, 's1', 'hello');
    await say(t, agent.id, 's2', 'hello');
    await t.app.inject({ method: 'POST', url: `/api/public/chat/${agent.id}/escalate`, payload: { session_id: 's2' } });
    await say(t, never.id, 's1', 'hello');
    clock.advance(1 * HOUR);
    const recent = await say(t, agent.id, 's3', 'later');
    clock.advance(1.5 * HOUR); // s1 idle 2.5 h, s3 1.5 h

    const rows = await list(t, owner.token, agent.id);
    const bySession = Object.fromEntries(rows.map((c) => [c.session_id, c.status]));
    expect(bySession).toEqual({ s1: 'resolved', s2: 'escalated', s3: 'active' });
    expect(resolved).toEqual([expect.objectContaining({ conversation_id: idle.conversation_id, by: 'idle' })]);
    expect((await list(t, owner.token, never.id))[0]!.status).toBe('active');
    expect(recent.conversation_id).toBeTruthy();
  });
});

describe('list filters, search and unread', () => {
  it('filters by status, searches transcripts (wildcards literal), and marks unread until opened', async () => {
    const { t, owner, agent, clock } = await setup();
    const other = await createAgent(t.app, owner.token, { name: 'Other' });
    const a = await say(t, agent.id, 's1', 'Where is my parcel?');
    const b = await say(t, agent.id, 's2', 'Refund of 100% please');
    await say(t, other.id, 's3', 'parcel elsewhere');
    await patch(t, owner.token, agent.id, b.conversation_id, { status: 'resolved' });

    expect((await list(t, owner.token, agent.id, '?status=resolved')).map((c) => c.id)).toEqual([b.conversation_id]);
    expect((await list(t, owner.token, agent.id, '?status=active')).map((c) => c.id)).toEqual([a.conversation_id]);
    expect(await list(t, owner.token, agent.id, '?status=escalated')).toEqual([]);
    expect((await list(t, owner.token, agent.id, '?q=PARCEL')).map((c) => c.id)).toEqual([a.conversation_id]);
    expect((await list(t, owner.token, agent.id, '?q=100%25')).map((c) => c.id)).toEqual([b.conversation_id]);
    expect(await list(t, owner.token, agent.id, '?q=%25')).toHaveLength(1);
    expect(await list(t, owner.token, agent.id, '?q=_')).toHaveLength(0);
    expect(await list(t, owner.token, agent.id, '?q=parcel&status=resolved')).toEqual([]);

    for (const bad of ['?status=open', `?q=${'x'.repeat(201)}`]) {
      const res = await t.app.inject({ url: `/api/chat/conversations/${agent.id}${bad}`, headers: auth(owner.token) });
      expect(res.statusCode).toBe(400);
    }
    const stranger = await registerUser(t.app);
    expect(
      (await t.app.inject({ url: `/api/chat/conversations/${agent.id}?status=active`, headers: auth(stranger.token) }))
        .statusCode,
    ).toBe(404);

    expect((await list(t, owner.token, agent.id)).map((c) => c.unread)).toEqual([true, true]);
    clock.advance(1000);
    await t.app.inject({ url: `/api/chat/messages/${a.conversation_id}`, headers: auth(owner.token) });
    const rows = await list(t, owner.token, agent.id);
    expect(Object.fromEntries(rows.map((c) => [c.id, c.unread]))).toEqual({
      [a.conversation_id]: false,
      [b.conversation_id]: true,
    });
    clock.advance(1000);
    await say(t, agent.id, 's1', 'any news?');
    expect((await list(t, owner.token, agent.id)).find((c) => c.id === a.conversation_id)!.unread).toBe(true);
  });
});

describe('the agent fields of issue 23', () => {
  it('has defaults, takes valid values, shows three in the public info', async () => {
    const { t, owner, agent } = await setup();
    expect(agent).toMatchObject({
      starter_questions: [],
      greeting_message: null,
      greeting_delay_s: 5,
      auto_resolve_after_h: 24,
      escalation_keywords: [],
    });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(owner.token),
      payload: {
        starter_questions: [' What do you sell? ', '', 'Opening hours?'],
        greeting_message: '  ',
        greeting_delay_s: 120,
        auto_resolve_after_h: null,
        escalation_keywords: ['human'],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      starter_questions: ['What do you sell?', 'Opening hours?'],
      greeting_message: null,
      greeting_delay_s: 120,
      auto_resolve_after_h: null,
      escalation_keywords: ['human'],
    });
    await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(owner.token),
      payload: { greeting_message: 'Need help?' },
    });
    const info = (await t.app.inject({ url: `/api/public/chatbot/${agent.id}` })).json();
    expect(info).toMatchObject({
      starter_questions: ['What do you sell?', 'Opening hours?'],
      greeting_message: 'Need help?',
      greeting_delay_s: 120,
    });
    expect(info).not.toHaveProperty('escalation_keywords');
    expect(info).not.toHaveProperty('auto_resolve_after_h');
    expect(info).not.toHaveProperty('handoff_wait_s');
  });

  it.each([
    ['starter_questions', Array(7).fill('q')],
    ['starter_questions', ['x'.repeat(121)]],
    ['starter_questions', 'not a list'],
    ['greeting_message', 'x'.repeat(201)],
    ['greeting_delay_s', 0],
    ['greeting_delay_s', 121],
    ['greeting_delay_s', 2.5],
    ['auto_resolve_after_h', 0],
    ['auto_resolve_after_h', 721],
    ['escalation_keywords', Array(21).fill('w')],
    ['escalation_keywords', ['x'.repeat(41)]],
    ['handoff_wait_s', 14],
    ['handoff_wait_s', 3601],
    ['handoff_wait_s', null],
  ])('refuses %s = %j with 400', async (field, value) => {
    const { t, owner, agent } = await setup();
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(owner.token),
      payload: { [field]: value },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(field);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/chatbots',
      headers: auth(owner.token),
      payload: { name: 'x', [field]: value },
    });
    expect(created.statusCode).toBe(400);
  });
});
