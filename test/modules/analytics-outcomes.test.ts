import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, say, useTestApps, type TestApp } from '../helpers/app.js';
import { NO_OUTCOME_COUNTS } from '../helpers/analytics.js';

/**
 * Issue 23.7: resolution rate, escalations, thumbs and the top unanswered questions on the
 * per-agent analytics and the dashboard, on a real SQLite file, all data made through the public
 * and owner routes. No provider key: the agent answers from its empty knowledge base, so each
 * turn stores one visitor message and one answer. A ManualClock puts each public call on a chosen
 * UTC instant; bearer calls are made at NOW (the session's time).
 *
 * Filler turns say "Hello there" (only stop words), which records no answer gap, so the outcome
 * scenario and the gap scenario do not disturb each other.
 */

type Json = Record<string, any>;
const NOW = '2026-03-10T12:00:00.000Z';
const apps = useTestApps();

async function start(): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(NOW);
  const t = await apps.start({ env: { EMBEDDINGS: 'none' }, clock });
  return { t, clock };
}

/** Runs `fn` with the clock at `at`, then puts it back at NOW. */
async function at<T>(clock: ManualClock, instant: string, fn: () => Promise<T>): Promise<T> {
  clock.set(instant);
  try {
    return await fn();
  } finally {
    clock.set(NOW);
  }
}

/** A visitor's message with the clock at `instant`. */
async function sayAt(
  t: TestApp,
  clock: ManualClock,
  agentId: string,
  sessionId: string,
  instant: string,
  message = 'Hello there',
): Promise<{ conversation_id: string; message_id: string }> {
  return at(clock, instant, () => say(t, agentId, sessionId, message));
}

async function thumbs(
  t: TestApp,
  agentId: string,
  sessionId: string,
  messageId: string,
  value: 1 | -1 | 0,
): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}/feedback`,
    payload: { session_id: sessionId, message_id: messageId, value },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function escalate(
  t: TestApp,
  clock: ManualClock,
  agentId: string,
  sessionId: string,
  instant: string,
): Promise<void> {
  await at(clock, instant, async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agentId}/escalate`,
      payload: { session_id: sessionId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().escalated_at).toBe(instant);
  });
}

async function resolve(t: TestApp, token: string, agentId: string, conversationId: string): Promise<void> {
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/api/chat/conversations/${agentId}/${conversationId}`,
    headers: auth(token),
    payload: { status: 'resolved' },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().status).toBe('resolved');
}

async function get(t: TestApp, token: string, url: string): Promise<{ status: number; body: Json }> {
  const res = await t.app.inject({ method: 'GET', url, headers: auth(token) });
  return { status: res.statusCode, body: res.json() };
}

async function ok(t: TestApp, token: string, url: string): Promise<Json> {
  const res = await get(t, token, url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The outcome fields only, so each expectation below names every one of them. */
const outcomesOf = (b: Json) => ({
  conversations_resolved: b.conversations_resolved,
  resolution_rate: b.resolution_rate,
  escalations: b.escalations,
  thumbs_up: b.thumbs_up,
  thumbs_down: b.thumbs_down,
  thumbs_up_ratio: b.thumbs_up_ratio,
});

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

describe('conversation outcomes and thumbs (per agent and dashboard)', () => {
  /**
   * Agent X of account A (escalation words "speak to a human"; no idle resolution, so only the
   * owner resolves), window days=7 = 2026-03-04..2026-03-10:
   *
   * | conv | created              | escalated                 | status now | answers rated                  |
   * | c0   | 02-01 (before)       | 03-10T11:00 (button)      | escalated  |                                |
   * | c1   | 03-03T23:59:59.999   | 03-03T23:59:59.999        | resolved   | a1 up                          |
   * | c2   | 03-04T00:00:00.000   | 03-04T00:00:00.000        | resolved   | a2 up                          |
   * | c3   | 03-05T10:00          | 03-07T10:00 (keyword)     | resolved   | a3 down, a3b up                |
   * | c4   | 03-06T10:00          |                           | active     | a4 down then up; a person's reply down |
   * | c5   | 03-10T09:00          |                           | active (resolved, then a new message) | a5 up, a5b up then cleared |
   * | c6   | 03-11T00:00 (after)  | 03-11T00:00               | resolved   | a6 up                          |
   * | c7   | 03-08T10:00          |                           | resolved   | a7 up                          |
   * | c8   | 03-10T23:59:59.999   |                           | resolved   | a8 down                        |
   *
   * Agent Y of A: y1 created 03-09, escalated 03-09, resolved, its answer down.
   * Agent Z of account B: z1 created 03-10, escalated, resolved, its answer up.
   */
  async function seeded() {
    const { t, clock } = await start();
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const x = await createAgent(t.app, a.token, {
      name: 'X',
      auto_resolve_after_h: null,
      escalation_keywords: ['speak to a human'],
    });
    const y = await createAgent(t.app, a.token, { name: 'Y', auto_resolve_after_h: null });
    const z = await createAgent(t.app, b.token, { name: 'Z', auto_resolve_after_h: null });

    await sayAt(t, clock, x.id, 's0', '2026-02-01T10:00:00.000Z');
    await escalate(t, clock, x.id, 's0', '2026-03-10T11:00:00.000Z');

    const c1 = await sayAt(t, clock, x.id, 's1', '2026-03-03T23:59:59.999Z');
    await escalate(t, clock, x.id, 's1', '2026-03-03T23:59:59.999Z');
    await thumbs(t, x.id, 's1', c1.message_id, 1); // rated today, but the answer is from 03-03
    await resolve(t, a.token, x.id, c1.conversation_id);

    const c2 = await sayAt(t, clock, x.id, 's2', '2026-03-04T00:00:00.000Z');
    await escalate(t, clock, x.id, 's2', '2026-03-04T00:00:00.000Z');
    await thumbs(t, x.id, 's2', c2.message_id, 1);
    await resolve(t, a.token, x.id, c2.conversation_id);

    const c3 = await sayAt(t, clock, x.id, 's3', '2026-03-05T10:00:00.000Z');
    const c3b = await sayAt(t, clock, x.id, 's3', '2026-03-07T10:00:00.000Z', 'Can I speak to a human?');
    await thumbs(t, x.id, 's3', c3.message_id, -1);
    await thumbs(t, x.id, 's3', c3b.message_id, 1);
    await resolve(t, a.token, x.id, c3.conversation_id);

    const c4 = await sayAt(t, clock, x.id, 's4', '2026-03-06T10:00:00.000Z');
    await thumbs(t, x.id, 's4', c4.message_id, -1);
    await thumbs(t, x.id, 's4', c4.message_id, 1); // changed its mind: one thumbs up
    // a person takes over and replies (today); the visitor's thumbs on that reply are not the agent's
    const take = await t.app.inject({
      method: 'POST',
      url: `/api/chat/conversations/${x.id}/${c4.conversation_id}/take`,
      headers: auth(a.token),
    });
    expect(take.statusCode, take.body).toBe(200);
    const reply = await t.app.inject({
      method: 'POST',
      url: `/api/chat/conversations/${x.id}/${c4.conversation_id}/reply`,
      headers: auth(a.token),
      payload: { message: 'Hi, Sam here.' },
    });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(reply.json().from_person).toBe(true);
    await thumbs(t, x.id, 's4', reply.json().id, -1);

    const c5 = await sayAt(t, clock, x.id, 's5', '2026-03-10T09:00:00.000Z');
    const c5b = await sayAt(t, clock, x.id, 's5', '2026-03-10T09:10:00.000Z');
    await thumbs(t, x.id, 's5', c5.message_id, 1);
    await thumbs(t, x.id, 's5', c5b.message_id, 1);
    await thumbs(t, x.id, 's5', c5b.message_id, 0); // cleared: not rated
    await resolve(t, a.token, x.id, c5.conversation_id);
    await sayAt(t, clock, x.id, 's5', NOW); // reopens it

    const c6 = await sayAt(t, clock, x.id, 's6', '2026-03-11T00:00:00.000Z');
    await escalate(t, clock, x.id, 's6', '2026-03-11T00:00:00.000Z');
    await thumbs(t, x.id, 's6', c6.message_id, 1);
    await resolve(t, a.token, x.id, c6.conversation_id);

    const c7 = await sayAt(t, clock, x.id, 's7', '2026-03-08T10:00:00.000Z');
    await thumbs(t, x.id, 's7', c7.message_id, 1);
    await resolve(t, a.token, x.id, c7.conversation_id);

    const c8 = await sayAt(t, clock, x.id, 's8', '2026-03-10T23:59:59.999Z');
    await thumbs(t, x.id, 's8', c8.message_id, -1);
    await resolve(t, a.token, x.id, c8.conversation_id);

    const y1 = await sayAt(t, clock, y.id, 'y1', '2026-03-09T10:00:00.000Z');
    await escalate(t, clock, y.id, 'y1', '2026-03-09T10:05:00.000Z');
    await thumbs(t, y.id, 'y1', y1.message_id, -1);
    await resolve(t, a.token, y.id, y1.conversation_id);

    const z1 = await sayAt(t, clock, z.id, 'z1', '2026-03-10T08:00:00.000Z');
    await escalate(t, clock, z.id, 'z1', '2026-03-10T08:05:00.000Z');
    await thumbs(t, z.id, 'z1', z1.message_id, 1);
    await resolve(t, b.token, z.id, z1.conversation_id);

    // the states the table above describes
    const list = await ok(t, a.token, `/api/chat/conversations/${x.id}`);
    const status = Object.fromEntries((list as Json[]).map((c) => [c.session_id, c.status]));
    expect(status).toEqual({
      s0: 'escalated',
      s1: 'resolved',
      s2: 'resolved',
      s3: 'resolved',
      s4: 'active',
      s5: 'active',
      s6: 'resolved',
      s7: 'resolved',
      s8: 'resolved',
    });
    return { t, clock, a, b, x, y, z };
  }

  it('per agent, 7 days: outcomes of the window only, first and last instants included', async () => {
    const { t, a, x } = await seeded();
    const body = await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=7`);
    expect(outcomesOf(body)).toEqual({
      conversations_resolved: 4, // c2, c3, c7, c8 (c5 was reopened, c4 is active)
      resolution_rate: 0.667, // 4 of 6 (c2, c3, c4, c5, c7, c8), rounded to 3 decimals
      escalations: 3, // c2 (first instant), c3 (keyword), c0 (created before the window, escalated in it)
      thumbs_up: 5, // a2, a3b, a4, a5, a7
      thumbs_down: 2, // a3, a8 (the person's reply does not count)
      thumbs_up_ratio: 0.714, // 5 / 7
    });
    // the denominator is the window's conversations, as the daily map counts them
    expect(sum(body.conversations_by_date)).toBe(6);
    // the existing fields are untouched
    expect(body.total_conversations).toBe(9);
    expect(body.date_range).toHaveLength(7);
  });

  it('per agent, 8 days takes in 03-03 (its last instant); 1 day is today only', async () => {
    const { t, a, x } = await seeded();
    expect(outcomesOf(await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=8`))).toEqual({
      conversations_resolved: 5, // + c1
      resolution_rate: 0.714, // 5 of 7
      escalations: 4, // + c1
      thumbs_up: 6, // + a1, by the answer's time, though it was rated today
      thumbs_down: 2,
      thumbs_up_ratio: 0.75,
    });
    expect(outcomesOf(await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=1`))).toEqual({
      conversations_resolved: 1, // c8, created at today's last instant
      resolution_rate: 0.5, // of c5 and c8
      escalations: 1, // c0
      thumbs_up: 1, // a5
      thumbs_down: 1, // a8
      thumbs_up_ratio: 0.5,
    });
  });

  it('the dashboard: the outcomes of the window over all the caller’s agents, nobody else’s; totals stay all-time', async () => {
    const { t, a, b } = await seeded();
    const seven = await ok(t, a.token, '/api/analytics/dashboard?days=7');
    expect(outcomesOf(seven)).toEqual({
      conversations_resolved: 5, // X's 4 + y1
      resolution_rate: 0.714, // 5 of 7
      escalations: 4, // X's 3 + y1
      thumbs_up: 5,
      thumbs_down: 3, // + y1's answer
      thumbs_up_ratio: 0.625,
    });
    // all-time figures are the same whatever the window: X 9 conversations, Y 1
    expect(seven.total_conversations).toBe(10);
    expect(seven.total_chatbots).toBe(2);

    // no days: 30 (02-09..03-10), which takes in c1 but not c0 (02-01)
    const dflt = await ok(t, a.token, '/api/analytics/dashboard');
    expect(outcomesOf(dflt)).toEqual({
      conversations_resolved: 6,
      resolution_rate: 0.75, // 6 of 8
      escalations: 5,
      thumbs_up: 6,
      thumbs_down: 3,
      thumbs_up_ratio: 0.667,
    });
    expect(dflt.total_conversations).toBe(10);

    // B sees only Z
    expect(outcomesOf(await ok(t, b.token, '/api/analytics/dashboard?days=7'))).toEqual({
      conversations_resolved: 1,
      resolution_rate: 1,
      escalations: 1,
      thumbs_up: 1,
      thumbs_down: 0,
      thumbs_up_ratio: 1,
    });
  });

  it('another agent of the same account does not show on X; Y has its own', async () => {
    const { t, a, y } = await seeded();
    expect(outcomesOf(await ok(t, a.token, `/api/analytics/chatbot/${y.id}?days=7`))).toEqual({
      conversations_resolved: 1,
      resolution_rate: 1,
      escalations: 1,
      thumbs_up: 0,
      thumbs_down: 1,
      thumbs_up_ratio: 0,
    });
  });

  it('nothing yet: zero counts, rate 0, ratio null, no questions', async () => {
    const { t } = await start();
    const a = await registerUser(t.app);
    const empty = NO_OUTCOME_COUNTS;
    const dash = await ok(t, a.token, '/api/analytics/dashboard');
    expect(dash).toEqual({
      total_conversations: 0,
      total_messages: 0,
      active_chatbots: 0,
      total_chatbots: 0,
      total_leads: 0,
      ...empty,
      top_unanswered: [],
    });
    const x = await createAgent(t.app, a.token);
    const agent = await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=3`);
    expect({ ...outcomesOf(agent), top_unanswered: agent.top_unanswered }).toEqual({ ...empty, top_unanswered: [] });
  });

  it('conversations without ratings or resolutions: rate 0, ratio null', async () => {
    const { t, clock } = await start();
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token, { auto_resolve_after_h: null });
    await sayAt(t, clock, x.id, 'q1', '2026-03-10T08:00:00.000Z');
    await sayAt(t, clock, x.id, 'q2', '2026-03-09T08:00:00.000Z');
    const body = await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=7`);
    expect(outcomesOf(body)).toEqual(NO_OUTCOME_COUNTS);
    expect(sum(body.conversations_by_date)).toBe(2);
  });

  it('the dashboard takes days like the other analytics routes: 400 naming days otherwise', async () => {
    const { t } = await start();
    const a = await registerUser(t.app);
    for (const days of ['0', '366', '1.5', 'abc', '']) {
      const res = await get(t, a.token, `/api/analytics/dashboard?days=${days}`);
      expect(res.status, days).toBe(400);
      expect(res.body.detail, days).toMatch(/^days: /);
    }
    for (const days of ['1', '365'])
      expect((await get(t, a.token, `/api/analytics/dashboard?days=${days}`)).status).toBe(200);
  });
});

describe('top unanswered questions', () => {
  it('lists up to 10 open gaps, most asked then most recent; dashboard across the account’s agents with their names', async () => {
    const { t, clock } = await start();
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const x = await createAgent(t.app, a.token, { name: 'Shop' });
    const y = await createAgent(t.app, a.token, { name: 'Clinic' });
    const z = await createAgent(t.app, b.token, { name: 'Theirs' });

    let minute = 0;
    const ask = async (agentId: string, question: string) => {
      minute += 1;
      const instant = new Date(Date.parse('2026-03-01T00:00:00.000Z') + minute * 60_000).toISOString();
      return sayAt(t, clock, agentId, randomUUID(), instant, question);
    };
    // X: "opening hours" first seen before "parking lot" but last seen after it, 3 times each;
    // "gift cards" twice
    await ask(x.id, 'What are your opening hours?');
    for (const q of ['Do you have a parking lot?', 'parking lot', 'Where is the parking lot?']) await ask(x.id, q);
    for (const q of ['opening hours?', 'When are your opening hours?']) await ask(x.id, q);
    await ask(x.id, 'Gift cards please');
    await ask(x.id, 'gift cards?');
    // nine asked once, the later the higher
    for (let i = 1; i <= 9; i++) await ask(x.id, `warranty case ${i}`);
    // a dismissed gap (5 times) and an answered one (4 times) are not open
    for (let i = 0; i < 5; i++) await ask(x.id, 'refund policy');
    for (let i = 0; i < 4; i++) await ask(x.id, 'delivery times');
    // Y: asked 4 times; B's agent: asked 9 times
    for (let i = 0; i < 4; i++) await ask(y.id, 'Is there a night service?');
    for (let i = 0; i < 9; i++) await ask(z.id, 'secret recipe');

    const open = async (agentId: string) =>
      (await ok(t, a.token, `/api/chatbots/${agentId}/gaps?status=open`)) as Json[];
    const byQuestion = (gaps: Json[], q: string) => gaps.find((g) => g.question === q)!;
    let xGaps = await open(x.id);
    const dismiss = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${x.id}/gaps/${byQuestion(xGaps, 'refund policy').id}/dismiss`,
      headers: auth(a.token),
    });
    expect(dismiss.statusCode, dismiss.body).toBe(200);
    const answer = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${x.id}/gaps/${byQuestion(xGaps, 'delivery times').id}/answer`,
      headers: auth(a.token),
      payload: { answer: 'Two working days.' },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    xGaps = await open(x.id);
    expect(xGaps).toHaveLength(12);

    const fields = (g: Json) => ({
      id: g.id,
      question: g.question,
      count: g.count,
      reasons: g.reasons,
      last_seen_at: g.last_seen_at,
    });
    const agentBody = await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=7`);
    const top: Json[] = agentBody.top_unanswered;
    // the gap inbox's first ten, with these fields only
    expect(top).toEqual(xGaps.slice(0, 10).map(fields));
    expect(top.map((g) => [g.question, g.count])).toEqual([
      ['When are your opening hours?', 3], // same count as the parking lot, last asked later
      ['Where is the parking lot?', 3],
      ['gift cards?', 2],
      ['warranty case 9', 1],
      ['warranty case 8', 1],
      ['warranty case 7', 1],
      ['warranty case 6', 1],
      ['warranty case 5', 1],
      ['warranty case 4', 1],
      ['warranty case 3', 1],
    ]);
    expect(top[0]).toEqual({
      id: expect.any(String),
      question: 'When are your opening hours?',
      count: 3,
      reasons: ['no_passage'],
      last_seen_at: '2026-03-01T00:06:00.000Z',
    });
    // not windowed: the gaps are from 03-01, outside a 1-day window, and still listed
    expect((await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=1`)).top_unanswered).toEqual(top);

    const dash = await ok(t, a.token, '/api/analytics/dashboard');
    const dashTop: Json[] = dash.top_unanswered;
    expect(dashTop).toHaveLength(10);
    expect(dashTop[0]).toEqual({
      id: expect.any(String),
      chatbot_id: y.id,
      chatbot_name: 'Clinic',
      question: 'Is there a night service?',
      count: 4,
      reasons: ['no_passage'],
      last_seen_at: '2026-03-01T00:30:00.000Z',
    });
    // then X's, in X's order, each with X's name; B's agent never shows
    expect(dashTop.slice(1).map((g) => [g.chatbot_id, g.chatbot_name, g.question])).toEqual(
      top.slice(0, 9).map((g) => [x.id, 'Shop', g.question]),
    );
    expect(dashTop.some((g) => g.question === 'secret recipe')).toBe(false);
    expect(
      (await ok(t, b.token, '/api/analytics/dashboard')).top_unanswered.map((g: Json) => [
        g.chatbot_name,
        g.question,
        g.count,
      ]),
    ).toEqual([['Theirs', 'secret recipe', 9]]);
  });

  it('a thumbs down adds its reason; the same conversation still counts once', async () => {
    const { t, clock } = await start();
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    const turn = await sayAt(t, clock, x.id, 'v1', '2026-03-09T10:00:00.000Z', 'Do you sell gift cards?');
    await at(clock, '2026-03-09T10:01:00.000Z', () => thumbs(t, x.id, 'v1', turn.message_id, -1));
    const body = await ok(t, a.token, `/api/analytics/chatbot/${x.id}?days=7`);
    expect(body.top_unanswered).toEqual([
      {
        id: expect.any(String),
        question: 'Do you sell gift cards?',
        count: 1,
        reasons: ['no_passage', 'thumbs_down'],
        last_seen_at: '2026-03-09T10:01:00.000Z',
      },
    ]);
    expect(body.thumbs_down).toBe(1);
  });
});

describe('ownership', () => {
  it('another account’s agent is still 404 `Chatbot not found`, like an unknown id', async () => {
    const { t } = await start();
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    const theirs = await get(t, b.token, `/api/analytics/chatbot/${x.id}?days=7`);
    expect(theirs).toEqual({ status: 404, body: { detail: 'Chatbot not found' } });
    expect(await get(t, b.token, `/api/analytics/chatbot/${randomUUID()}?days=7`)).toEqual(theirs);
  });
});
