import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, useTestApps, type TestApp } from '../helpers/app.js';
import { formatDuration, trendLabel } from '../../src/modules/analytics/service.js';
import { NO_OUTCOME_COUNTS, perDay } from '../helpers/analytics.js';

/**
 * Analytics through the whole app on a real SQLite file. Activity is made through the public chat
 * (no provider key: the agent answers from its empty knowledge base, so each turn stores one user
 * and one assistant message) with a ManualClock placing each turn on a chosen UTC instant. Where
 * the API cannot produce a shape (a precise response_time_ms), the test writes the rows itself.
 *
 * Bearer calls are made with the clock at NOW (the session's time); only the public calls, which
 * need no token, are made at other instants.
 */

type Json = Record<string, any>;

const apps = useTestApps();

async function start(now: string): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(now);
  const t = await apps.start({ env: { EMBEDDINGS: 'none' }, clock });
  return { t, clock };
}

/** One visitor turn on `agentId` at the instant `at` (the clock goes back to `now` afterwards). */
async function chatAt(
  t: TestApp,
  clock: ManualClock,
  now: string,
  agentId: string,
  at: string,
  sessionId: string,
): Promise<Json> {
  clock.set(at);
  try {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agentId}`,
      payload: { message: 'Hello there', session_id: sessionId },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  } finally {
    clock.set(now);
  }
}

async function get(t: TestApp, token: string, url: string): Promise<{ status: number; body: Json }> {
  const res = await t.app.inject({ method: 'GET', url, headers: auth(token) });
  return { status: res.statusCode, body: res.json() };
}

/** consecutive UTC days */
function isConsecutive(days: string[]): boolean {
  return days.every(
    (d, i) => i === 0 || Date.parse(`${d}T00:00:00Z`) - Date.parse(`${days[i - 1]}T00:00:00Z`) === 86_400_000,
  );
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

/** The outcome fields (issue 23.7, tested in analytics-outcomes) where nothing was resolved, escalated, rated or left unanswered. */
const NO_OUTCOMES = { ...NO_OUTCOME_COUNTS, top_unanswered: [] };

/** An app at `now` with accounts `a` (agents `x` and `y`) and `b` (agent `z`). */
async function twoAccounts(now: string) {
  const { t, clock } = await start(now);
  const a = await registerUser(t.app);
  const b = await registerUser(t.app);
  const x = await createAgent(t.app, a.token, { name: 'X' });
  const y = await createAgent(t.app, a.token, { name: 'Y' });
  const z = await createAgent(t.app, b.token, { name: 'Z' });
  return { t, clock, a, b, x, y, z };
}

describe('formatDuration (avg_response_time)', () => {
  it.each([
    [null, '0s'],
    [0, '0ms'],
    [1, '1ms'],
    [450, '450ms'],
    [449.6, '450ms'],
    [999, '999ms'],
    [999.6, '1s'], // rounds to 1000 ms, which is 1 s
    [1000, '1s'],
    [1499, '1s'],
    [1999, '1s'], // whole seconds are truncated
    [59_000, '59s'],
    [59_999, '59s'], // never "60s"
    [60_000, '1m 0s'],
    [135_000, '2m 15s'],
    [3_599_999, '59m 59s'],
    [3_600_000, '1h 0m'],
    [3_900_000, '1h 5m'],
    [90_061_000, '25h 1m'],
  ])('%s ms -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('nothing to average (NaN, Infinity) is 0s', () => {
    expect(formatDuration(Number.NaN)).toBe('0s');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('0s');
  });
});

describe('trendLabel', () => {
  it('is `Mon DD` with an English month and a zero-padded day', () => {
    expect(trendLabel('2025-11-01')).toBe('Nov 01');
    expect(trendLabel('2026-01-09')).toBe('Jan 09');
    expect(trendLabel('2026-12-31')).toBe('Dec 31');
    expect(
      ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((m) =>
        trendLabel(`2026-${m}-15`).slice(0, 3),
      ),
    ).toEqual(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']);
  });
});

describe('GET /api/analytics/dashboard', () => {
  it('counts the caller’s agents, conversations, messages and widget leads, nobody else’s', async () => {
    const NOW = '2026-03-10T12:00:00.000Z';
    const { t, clock } = await start(NOW);
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);

    // a new account: all zero
    expect(await get(t, a.token, '/api/analytics/dashboard')).toEqual({
      status: 200,
      body: {
        total_conversations: 0,
        total_messages: 0,
        active_chatbots: 0,
        total_chatbots: 0,
        total_leads: 0,
        ...NO_OUTCOMES,
      },
    });

    const x = await createAgent(t.app, a.token, { name: 'X' });
    const y = await createAgent(t.app, a.token, { name: 'Y' });
    const z = await createAgent(t.app, b.token, { name: 'Z' });

    // A: 3 conversations, 8 messages (4 turns); B: 1 conversation, 2 messages
    await chatAt(t, clock, NOW, x.id, '2026-03-01T10:00:00.000Z', 'a1');
    await chatAt(t, clock, NOW, x.id, '2026-03-02T10:00:00.000Z', 'a1');
    await chatAt(t, clock, NOW, x.id, '2025-01-02T10:00:00.000Z', 'a2'); // outside any window: all-time still counts it
    await chatAt(t, clock, NOW, y.id, '2026-03-10T10:00:00.000Z', 'a3');
    await chatAt(t, clock, NOW, z.id, '2026-03-10T10:00:00.000Z', 'b1');

    // widget leads: 2 on X and 1 on Y through the public lead form, 1 written directly; B has 1
    for (const [agent, name] of [
      [x, 'Ann'],
      [x, 'Bob'],
      [y, 'Cy'],
      [z, 'Dee'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/public/lead/${agent.id}`,
        payload: { name, phone: '+1 555 0100' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    t.database.sqlite
      .prepare(
        'INSERT INTO widget_leads (id, chatbot_id, name, phone, session_id, created_at) VALUES (?, ?, ?, ?, NULL, ?)',
      )
      .run(randomUUID(), y.id, 'Eve', '+1 555 0199', '2024-06-01T00:00:00.000Z');
    // an account lead is not a widget lead
    const accountLead = await t.app.inject({
      method: 'POST',
      url: '/api/leads',
      headers: auth(a.token),
      payload: { name: 'Acme', contact: 'acme@example.com' },
    });
    expect(accountLead.statusCode, accountLead.body).toBe(200);

    // Y goes inactive: still an agent, no longer an active one
    const off = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${y.id}`,
      headers: auth(a.token),
      payload: { status: 'inactive' },
    });
    expect(off.statusCode, off.body).toBe(200);

    expect(await get(t, a.token, '/api/analytics/dashboard')).toEqual({
      status: 200,
      body: {
        total_conversations: 3,
        total_messages: 8,
        active_chatbots: 1,
        total_chatbots: 2,
        total_leads: 4,
        ...NO_OUTCOMES,
      },
    });
    expect(await get(t, b.token, '/api/analytics/dashboard')).toEqual({
      status: 200,
      body: {
        total_conversations: 1,
        total_messages: 2,
        active_chatbots: 1,
        total_chatbots: 1,
        total_leads: 1,
        ...NO_OUTCOMES,
      },
    });
  });

  it('needs a token', async () => {
    const { t } = await start('2026-03-10T12:00:00.000Z');
    for (const url of ['/api/analytics/dashboard', '/api/analytics/trends', `/api/analytics/chatbot/${randomUUID()}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toEqual({ detail: 'Could not validate credentials' });
    }
  });
});

describe('GET /api/analytics/chatbot/{chatbot_id}', () => {
  const NOW = '2026-03-10T12:00:00.000Z';

  async function seeded() {
    const { t, clock } = await start(NOW);
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token, { name: 'X' });
    const other = await createAgent(t.app, a.token, { name: 'Other agent of the same account' });
    // the last instant of 03-09 and the first of 03-10, in one conversation (created 03-09)
    await chatAt(t, clock, NOW, x.id, '2026-03-09T23:59:59.999Z', 's1');
    await chatAt(t, clock, NOW, x.id, '2026-03-10T00:00:00.000Z', 's1');
    // a new conversation at the first instant of today
    await chatAt(t, clock, NOW, x.id, '2026-03-10T00:00:00.000Z', 's2');
    // the last instant before a 7-day window (03-04..03-10)
    await chatAt(t, clock, NOW, x.id, '2026-03-03T23:59:59.999Z', 's3');
    // first day of a 365-day window (today - 364) and the last instant before it
    await chatAt(t, clock, NOW, x.id, '2025-03-11T00:00:00.000Z', 's4');
    await chatAt(t, clock, NOW, x.id, '2025-03-10T23:59:59.999Z', 's5');
    // tomorrow (a skewed clock): after every window, yet part of the all-time totals
    await chatAt(t, clock, NOW, x.id, '2026-03-11T00:00:00.000Z', 's6');
    // another agent's activity today does not show on X
    await chatAt(t, clock, NOW, other.id, '2026-03-10T08:00:00.000Z', 'o1');
    return { t, clock, a, x };
  }

  it('a 7-day window: every day present, UTC midnight boundaries, all-time totals', async () => {
    const { t, a, x } = await seeded();
    const { status, body } = await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=7`);
    expect(status).toBe(200);
    expect(body).toEqual({
      // all-time for the agent: 6 conversations, 7 turns of 2 messages
      total_conversations: 6,
      total_messages: 14,
      date_range: ['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10'],
      conversations_by_date: {
        '2026-03-04': 0,
        '2026-03-05': 0,
        '2026-03-06': 0,
        '2026-03-07': 0,
        '2026-03-08': 0,
        '2026-03-09': 1, // s1, created at 23:59:59.999
        '2026-03-10': 1, // s2, created at 00:00:00.000 (s1's second turn does not make a conversation)
      },
      messages_by_date: {
        '2026-03-04': 0,
        '2026-03-05': 0,
        '2026-03-06': 0,
        '2026-03-07': 0,
        '2026-03-08': 0,
        '2026-03-09': 2,
        '2026-03-10': 4,
      },
      ...NO_OUTCOMES,
    });
    // the maps' keys come in the order of date_range
    expect(Object.keys(body.conversations_by_date)).toEqual(body.date_range);
    expect(Object.keys(body.messages_by_date)).toEqual(body.date_range);

    // one day more takes in 03-03 (its last instant)
    const eight = await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=8`);
    expect(eight.body.date_range[0]).toBe('2026-03-03');
    expect(eight.body.conversations_by_date['2026-03-03']).toBe(1);
    expect(eight.body.messages_by_date['2026-03-03']).toBe(2);
    expect(eight.body.total_conversations).toBe(6);
  });

  it('a 1-day window is today only', async () => {
    const { t, a, x } = await seeded();
    expect((await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=1`)).body).toEqual({
      total_conversations: 6,
      total_messages: 14,
      date_range: ['2026-03-10'],
      conversations_by_date: { '2026-03-10': 1 },
      messages_by_date: { '2026-03-10': 4 },
      ...NO_OUTCOMES,
    });
  });

  it('a 365-day window runs from today - 364 to today', async () => {
    const { t, a, x } = await seeded();
    const { status, body } = await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=365`);
    expect(status).toBe(200);
    expect(body.date_range).toHaveLength(365);
    expect(body.date_range[0]).toBe('2025-03-11');
    expect(body.date_range[364]).toBe('2026-03-10');
    expect(isConsecutive(body.date_range)).toBe(true);
    expect(Object.keys(body.conversations_by_date)).toEqual(body.date_range);
    expect(Object.keys(body.messages_by_date)).toEqual(body.date_range);
    expect(body.conversations_by_date['2025-03-11']).toBe(1); // its first instant
    expect(body.conversations_by_date['2025-03-10']).toBeUndefined(); // one ms before: outside
    expect(body.conversations_by_date['2026-02-14']).toBe(0);
    // s1, s2, s3, s4 in the window; s5 before it, s6 after it
    expect(sum(body.conversations_by_date)).toBe(4);
    expect(sum(body.messages_by_date)).toBe(10);
    expect(body.total_conversations).toBe(6);
  });

  it('days defaults to 30', async () => {
    const { t, a, x } = await seeded();
    const { status, body } = await get(t, a.token, `/api/analytics/chatbot/${x.id}`);
    expect(status).toBe(200);
    expect(body.date_range).toHaveLength(30);
    expect(body.date_range[0]).toBe('2026-02-09');
    expect(body.date_range[29]).toBe('2026-03-10');
    expect(isConsecutive(body.date_range)).toBe(true);
  });

  it('an agent with no activity has every day at 0', async () => {
    const { t } = await start(NOW);
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    const { body } = await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=3`);
    expect(body).toEqual({
      total_conversations: 0,
      total_messages: 0,
      date_range: ['2026-03-08', '2026-03-09', '2026-03-10'],
      conversations_by_date: { '2026-03-08': 0, '2026-03-09': 0, '2026-03-10': 0 },
      messages_by_date: { '2026-03-08': 0, '2026-03-09': 0, '2026-03-10': 0 },
      ...NO_OUTCOMES,
    });
  });

  it('"today" is the UTC day of the clock, also just after midnight', async () => {
    const { t, clock } = await start('2026-03-10T23:59:59.999Z');
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    expect((await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=2`)).body.date_range).toEqual([
      '2026-03-09',
      '2026-03-10',
    ]);
    clock.advance(1);
    expect((await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=2`)).body.date_range).toEqual([
      '2026-03-10',
      '2026-03-11',
    ]);
  });

  it('another account’s agent is 404, exactly like an unknown id and like GET /api/chatbots/{id}', async () => {
    const { t } = await start(NOW);
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    const theirs = await get(t, b.token, `/api/analytics/chatbot/${x.id}`);
    const unknown = await get(t, b.token, `/api/analytics/chatbot/${randomUUID()}`);
    const agentGet = await get(t, b.token, `/api/chatbots/${x.id}`);
    expect(theirs.status).toBe(404);
    expect(unknown).toEqual(theirs);
    expect(agentGet).toEqual(theirs);
    expect(theirs.body).toEqual({ detail: 'Chatbot not found' });
    // with any days, the same
    expect(await get(t, b.token, `/api/analytics/chatbot/${x.id}?days=7`)).toEqual(theirs);
  });
});

describe('GET /api/analytics/trends', () => {
  const NOW = '2025-11-03T12:00:00.000Z';

  it('one entry per day, ascending, `Mon DD` labels, summed over the caller’s agents only', async () => {
    const { t, clock, a, b, x, y, z } = await twoAccounts(NOW);

    await chatAt(t, clock, NOW, x.id, '2025-10-29T23:59:59.999Z', 'x0'); // before the window
    await chatAt(t, clock, NOW, x.id, '2025-10-30T00:00:00.000Z', 'x1');
    await chatAt(t, clock, NOW, y.id, '2025-10-31T23:59:59.999Z', 'y1');
    await chatAt(t, clock, NOW, y.id, '2025-11-01T00:00:00.000Z', 'y2');
    await chatAt(t, clock, NOW, x.id, '2025-11-01T09:00:00.000Z', 'x2');
    await chatAt(t, clock, NOW, x.id, '2025-11-01T09:30:00.000Z', 'x1'); // an old conversation's message
    await chatAt(t, clock, NOW, z.id, '2025-11-02T10:00:00.000Z', 'z1'); // another account
    await chatAt(t, clock, NOW, z.id, '2025-11-03T10:00:00.000Z', 'z2');

    const { status, body } = await get(t, a.token, '/api/analytics/trends?days=5');
    expect(status).toBe(200);
    expect(body.conversations).toEqual(perDay({ 'Oct 30': 1, 'Oct 31': 1, 'Nov 01': 2, 'Nov 02': 0, 'Nov 03': 0 }));
    expect(body.messages).toEqual(perDay({ 'Oct 30': 2, 'Oct 31': 2, 'Nov 01': 6, 'Nov 02': 0, 'Nov 03': 0 }));
    // knowledge-base answers are stored with the clock unmoved: 0 ms each, something to average
    expect(body.avg_response_time).toBe('0ms');

    // B sees only Z
    const theirs = await get(t, b.token, '/api/analytics/trends?days=2');
    expect(theirs.body).toEqual({
      conversations: perDay({ 'Nov 02': 1, 'Nov 03': 1 }),
      messages: perDay({ 'Nov 02': 2, 'Nov 03': 2 }),
      avg_response_time: '0ms',
    });

    // default window: 30 entries ending today
    const dflt = await get(t, a.token, '/api/analytics/trends');
    expect(dflt.body.conversations).toHaveLength(30);
    expect(dflt.body.messages).toHaveLength(30);
    expect(dflt.body.conversations[0].date).toBe('Oct 05');
    expect(dflt.body.conversations[29].date).toBe('Nov 03');
    expect(dflt.body.conversations.find((p: Json) => p.date === 'Oct 29').count).toBe(1);

    // 365 entries
    const year = await get(t, a.token, '/api/analytics/trends?days=365');
    expect(year.body.conversations).toHaveLength(365);
    expect(year.body.conversations[0].date).toBe('Nov 04'); // 2024-11-04 = today - 364
    expect(year.body.messages.at(-1).date).toBe('Nov 03');
  });

  it('no agents: empty arrays and 0s', async () => {
    const { t } = await start(NOW);
    const a = await registerUser(t.app);
    for (const url of ['/api/analytics/trends', '/api/analytics/trends?days=7']) {
      expect(await get(t, a.token, url)).toEqual({
        status: 200,
        body: { conversations: [], messages: [], avg_response_time: '0s' },
      });
    }
  });

  it('agents without activity: every day at 0 and 0s', async () => {
    const { t } = await start(NOW);
    const a = await registerUser(t.app);
    await createAgent(t.app, a.token);
    expect((await get(t, a.token, '/api/analytics/trends?days=2')).body).toEqual({
      conversations: perDay({ 'Nov 02': 0, 'Nov 03': 0 }),
      messages: perDay({ 'Nov 02': 0, 'Nov 03': 0 }),
      avg_response_time: '0s',
    });
  });

  it('avg_response_time averages the assistant replies of the window, formatted', async () => {
    const { t, clock, a, x, y, z } = await twoAccounts(NOW);
    const cx = (await chatAt(t, clock, NOW, x.id, '2025-11-03T08:00:00.000Z', 'x1')).conversation_id as string;
    const cy = (await chatAt(t, clock, NOW, y.id, '2025-11-02T08:00:00.000Z', 'y1')).conversation_id as string;
    await chatAt(t, clock, NOW, z.id, '2025-11-03T08:00:00.000Z', 'z1');

    const db = t.database.sqlite;
    const setReply = (chatbotId: string, ms: number | null) =>
      db
        .prepare("UPDATE messages SET response_time_ms = ? WHERE chatbot_id = ? AND role = 'assistant'")
        .run(ms, chatbotId);
    const addReply = (conversationId: string, chatbotId: string, at: string, ms: number | null) =>
      db
        .prepare(
          "INSERT INTO messages (id, conversation_id, chatbot_id, role, content, timestamp, response_time_ms, sources_json) VALUES (?, ?, ?, 'assistant', 'late reply', ?, ?, '[]')",
        )
        .run(randomUUID(), conversationId, chatbotId, at, ms);
    const avg = async (days = 5) =>
      (await get(t, a.token, `/api/analytics/trends?days=${days}`)).body.avg_response_time as string;

    // the other account's reply time never counts
    setReply(z.id, 9_999_999);
    setReply(y.id, null); // a reply without a recorded time is not averaged

    for (const [ms, text] of [
      [450, '450ms'],
      [1000, '1s'],
      [59_999, '59s'],
      [135_000, '2m 15s'],
      [3_900_000, '1h 5m'],
    ] as const) {
      setReply(x.id, ms);
      expect(await avg(), `${ms} ms`).toBe(text);
    }

    // averaged over both agents' replies: (400 + 500) / 2
    setReply(x.id, 400);
    setReply(y.id, 500);
    expect(await avg()).toBe('450ms');
    // a reply just before the window does not count; one at its first instant does
    addReply(cx, x.id, '2025-10-29T23:59:59.999Z', 3_600_000);
    expect(await avg()).toBe('450ms');
    addReply(cy, y.id, '2025-10-30T00:00:00.000Z', 1500);
    expect(await avg()).toBe('800ms'); // (400 + 500 + 1500) / 3
    // a 1-day window holds X's reply of today only
    expect(await avg(1)).toBe('400ms');

    // a window with replies that have no time: nothing to average
    setReply(x.id, null);
    setReply(y.id, null);
    expect(await avg()).toBe('0s');
  });
});

describe('the days parameter', () => {
  it('must be an integer from 1 to 365: otherwise 400 naming days', async () => {
    const NOW = '2026-03-10T12:00:00.000Z';
    const { t } = await start(NOW);
    const a = await registerUser(t.app);
    const x = await createAgent(t.app, a.token);
    const bad = [
      '0',
      '366',
      '1.5',
      'abc',
      '-1',
      '',
      '10abc',
      '1e2',
      '+5',
      ' 7',
      '0x10',
      '1000000',
      '99999999999999999999',
    ];
    for (const base of [`/api/analytics/chatbot/${x.id}`, '/api/analytics/trends']) {
      for (const days of bad) {
        const url = `${base}?days=${encodeURIComponent(days)}`;
        const res = await get(t, a.token, url);
        expect(res.status, url).toBe(400);
        expect(res.body.detail, url).toMatch(/^days: /);
      }
      // repeated parameter
      const twice = await get(t, a.token, `${base}?days=1&days=2`);
      expect(twice.status).toBe(400);
      expect(twice.body.detail).toMatch(/^days: /);
      // the bounds themselves are fine, and so is a leading zero
      for (const days of ['1', '365', '007']) {
        expect((await get(t, a.token, `${base}?days=${days}`)).status, `${base} days=${days}`).toBe(200);
      }
    }
    expect((await get(t, a.token, `/api/analytics/chatbot/${x.id}?days=007`)).body.date_range).toHaveLength(7);
  });
});
