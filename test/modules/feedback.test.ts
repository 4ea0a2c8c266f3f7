import { describe, expect, it } from 'vitest';
import type { AppEventMap } from '../../src/platform/events.js';
import { auth, createAgent, registerUser, say, useTestApps, type TestApp } from '../helpers/app.js';

/**
 * Issue 23.1: the visitor's thumbs on answers (stored per message, the conversation's rating),
 * asking for a person (button and the agent's escalation words), and the events they emit.
 */

type Json = Record<string, any>;
const apps = useTestApps();

async function setup(agentFields: Json = {}) {
  const t = await apps.start();
  const owner = await registerUser(t.app);
  const agent = await createAgent(t.app, owner.token, agentFields);
  const seen: Array<{ name: string; data: unknown }> = [];
  for (const name of ['conversation.escalated', 'conversation.resolved', 'message.created'] as const) {
    t.app.events.on(name, (data) => seen.push({ name, data }));
  }
  return { t, owner, agent, seen };
}

const feedback = (t: TestApp, agentId: string, payload: Json) =>
  t.app.inject({ method: 'POST', url: `/api/public/chat/${agentId}/feedback`, payload });

describe('answers carry their id', () => {
  it('gives message_id in the JSON answer and in the SSE done event, and emits message.created for both messages', async () => {
    const { t, agent, seen } = await setup();
    const body = await say(t, agent.id, 's1', 'Hello there');
    expect(body.message_id).toEqual(expect.any(String));
    const created = seen
      .filter((e) => e.name === 'message.created')
      .map((e) => e.data as AppEventMap['message.created']);
    expect(created.map((e) => e.message.role)).toEqual(['user', 'assistant']);
    expect(created[1]!.message.id).toBe(body.message_id);
    expect(created[0]).toMatchObject({
      account_id: agent.user_id,
      chatbot_id: agent.id,
      conversation_id: body.conversation_id,
      message: { content: 'Hello there' },
    });

    const sse = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}`,
      headers: { accept: 'text/event-stream' },
      payload: { message: 'Again', session_id: 's1' },
    });
    const done = /event: done\ndata: (.*)\n/.exec(sse.body)![1]!;
    expect(JSON.parse(done).message_id).toEqual(expect.any(String));
  });
});

describe('POST /api/public/chat/{id}/feedback', () => {
  it('stores thumbs per answer and rates the conversation 1-5 by the share of thumbs up', async () => {
    const { t, owner, agent } = await setup();
    const a1 = await say(t, agent.id, 's1', 'first');
    const a2 = await say(t, agent.id, 's1', 'second');

    let res = await feedback(t, agent.id, { session_id: 's1', message_id: a1.message_id, value: 1 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message_id: a1.message_id, feedback: 1, rating: 5 });
    res = await feedback(t, agent.id, { session_id: 's1', message_id: a2.message_id, value: -1 });
    expect(res.json()).toEqual({ message_id: a2.message_id, feedback: -1, rating: 3 });

    const list = (
      await t.app.inject({ url: `/api/chat/conversations/${agent.id}`, headers: auth(owner.token) })
    ).json();
    expect(list[0].rating).toBe(3);
    const msgs = (
      await t.app.inject({ url: `/api/chat/messages/${a1.conversation_id}`, headers: auth(owner.token) })
    ).json();
    expect(msgs.map((m: Json) => m.feedback)).toEqual([null, 1, null, -1]);

    res = await feedback(t, agent.id, { session_id: 's1', message_id: a1.message_id, value: 0 });
    expect(res.json()).toEqual({ message_id: a1.message_id, feedback: null, rating: 1 });
    res = await feedback(t, agent.id, { session_id: 's1', message_id: a2.message_id, value: 0 });
    expect(res.json().rating).toBeNull();
  });

  it('conversations carry their thumbs_up and thumbs_down beside the 1-5 rating (issue 31 owner 9)', async () => {
    const { t, owner, agent } = await setup();
    const a1 = await say(t, agent.id, 's1', 'first');
    await say(t, agent.id, 's1', 'second');
    const b1 = await say(t, agent.id, 's2', 'other visitor');
    await say(t, agent.id, 's3', 'nobody rates');
    await feedback(t, agent.id, { session_id: 's1', message_id: a1.message_id, value: -1 });
    await feedback(t, agent.id, { session_id: 's2', message_id: b1.message_id, value: 1 });

    const list: Json[] = (
      await t.app.inject({ url: `/api/chat/conversations/${agent.id}`, headers: auth(owner.token) })
    ).json();
    const bySession = Object.fromEntries(
      list.map((c) => [c.session_id, { rating: c.rating, up: c.thumbs_up, down: c.thumbs_down }]),
    );
    // one thumbs-down on one answer of two: the spec's rating is 1, the counts say what happened
    expect(bySession).toEqual({
      s1: { rating: 1, up: 0, down: 1 },
      s2: { rating: 5, up: 1, down: 0 },
      s3: { rating: null, up: 0, down: 0 },
    });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/chat/conversations/${agent.id}/${a1.conversation_id}`,
      headers: auth(owner.token),
      payload: { status: 'resolved' },
    });
    expect(patched.json()).toMatchObject({ rating: 1, thumbs_up: 0, thumbs_down: 1 });
  });

  it("refuses a visitor's message, another session's answer, another agent's and unknown ids with 404", async () => {
    const { t, owner, agent } = await setup();
    const other = await createAgent(t.app, owner.token, { name: 'Other' });
    const a1 = await say(t, agent.id, 's1', 'first');
    await say(t, agent.id, 's2', 'other visitor');
    await say(t, other.id, 's1', 'other agent');
    const msgs = (
      await t.app.inject({ url: `/api/chat/messages/${a1.conversation_id}`, headers: auth(owner.token) })
    ).json();
    const userMessageId = msgs.find((m: Json) => m.role === 'user').id;

    for (const [agentId, payload] of [
      [agent.id, { session_id: 's1', message_id: userMessageId, value: 1 }],
      [agent.id, { session_id: 's2', message_id: a1.message_id, value: 1 }],
      [agent.id, { session_id: 'nobody', message_id: a1.message_id, value: 1 }],
      [other.id, { session_id: 's1', message_id: a1.message_id, value: 1 }],
      [agent.id, { session_id: 's1', message_id: 'missing', value: 1 }],
    ] as const) {
      const res = await feedback(t, agentId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(404);
      expect(res.json()).toEqual({ detail: 'Message not found' });
    }
    const res = await feedback(t, 'no-such-agent', { session_id: 's1', message_id: a1.message_id, value: 1 });
    expect(res.statusCode).toBe(404);
  });

  it('answers bad values with 400', async () => {
    const { t, agent } = await setup();
    const a1 = await say(t, agent.id, 's1', 'first');
    for (const payload of [
      { session_id: 's1', message_id: a1.message_id, value: 2 },
      { session_id: 's1', message_id: a1.message_id, value: '1' },
      { session_id: 's1', message_id: a1.message_id },
      { message_id: a1.message_id, value: 1 },
      { session_id: 's1', value: 1 },
    ]) {
      const res = await feedback(t, agent.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(typeof res.json().detail).toBe('string');
    }
  });
});

describe('asking for a person', () => {
  it("escalates the session's conversation once, with the event, by the button", async () => {
    const { t, owner, agent, seen } = await setup();
    const a1 = await say(t, agent.id, 's1', 'hello');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}/escalate`,
      payload: { session_id: 's1' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      conversation_id: a1.conversation_id,
      status: 'escalated',
      escalated_at: expect.any(String),
      // issue 34.4: always open, the owner online
      handoff: { available: true, next_opening: null },
    });
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}/escalate`,
      payload: { session_id: 's1' },
    });
    expect(again.json().escalated_at).toBe(res.json().escalated_at);
    const escalated = seen.filter((e) => e.name === 'conversation.escalated');
    expect(escalated).toHaveLength(1);
    expect(escalated[0]!.data).toEqual({
      account_id: agent.user_id,
      chatbot_id: agent.id,
      conversation_id: a1.conversation_id,
      session_id: 's1',
      at: res.json().escalated_at,
      reason: 'visitor',
    });
    const list = (
      await t.app.inject({ url: `/api/chat/conversations/${agent.id}`, headers: auth(owner.token) })
    ).json();
    expect(list[0]).toMatchObject({ status: 'escalated', escalated_at: res.json().escalated_at });
  });

  it('answers 404 for a session without a conversation or another agent, 400 without session_id', async () => {
    const { t, owner, agent } = await setup();
    const other = await createAgent(t.app, owner.token, { name: 'Other' });
    await say(t, agent.id, 's1', 'hello');
    for (const [id, payload, code] of [
      [agent.id, { session_id: 'nobody' }, 404],
      [other.id, { session_id: 's1' }, 404],
      ['no-such-agent', { session_id: 's1' }, 404],
      [agent.id, {}, 400],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/api/public/chat/${id}/escalate`, payload });
      expect(res.statusCode).toBe(code);
      expect(typeof res.json().detail).toBe('string');
    }
  });

  it("escalates when a visitor message holds one of the agent's words (whole word, any case)", async () => {
    const { t, owner, agent, seen } = await setup({ escalation_keywords: ['human', 'real person'] });
    await say(t, agent.id, 's1', 'I am not a humanoid');
    await say(t, agent.id, 's2', 'Can I speak to a REAL person?');
    await say(t, agent.id, 's3', 'get me a Human!');
    const list = (
      await t.app.inject({ url: `/api/chat/conversations/${agent.id}`, headers: auth(owner.token) })
    ).json();
    const bySession = Object.fromEntries(list.map((c: Json) => [c.session_id, c.status]));
    expect(bySession).toEqual({ s1: 'active', s2: 'escalated', s3: 'escalated' });
    expect(seen.filter((e) => e.name === 'conversation.escalated').map((e) => (e.data as Json).reason)).toEqual([
      'rule',
      'rule',
    ]);
    // the owner's own test chat is not a visitor asking
    const own = await t.app.inject({
      method: 'POST',
      url: '/api/chat',
      headers: auth(owner.token),
      payload: { chatbot_id: agent.id, message: 'human', session_id: 'o1' },
    });
    expect(own.statusCode).toBe(200);
    const after = (
      await t.app.inject({ url: `/api/chat/conversations/${agent.id}?status=escalated`, headers: auth(owner.token) })
    ).json();
    expect(after).toHaveLength(2);
  });
});
