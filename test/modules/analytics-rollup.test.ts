import { afterEach, describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/** The per-day rollup (triggers) always agrees with the rows it summarises. */
describe('analytics rollup', () => {
  let t: TestApp | undefined;
  afterEach(async () => t?.cleanup(), 60_000);

  function raw(sql: string): number {
    return (t!.database.sqlite.prepare(sql).get() as { n: number }).n;
  }

  it('matches raw counts through chats on several days, a deleted agent and direct row changes', async () => {
    const clock = new ManualClock('2026-04-10T23:59:00.000Z');
    t = await startTestApp({ clock });
    const { token } = await registerUser(t.app);
    const a = await createAgent(t.app, token, { name: 'A' });
    const b = await createAgent(t.app, token, { name: 'B' });
    for (let i = 0; i < 6; i++) {
      for (const agent of [a, b]) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/public/chat/${agent.id}`,
          payload: { message: `question ${i}`, session_id: `s${i % 3}` },
        });
        expect(res.statusCode).toBe(200);
      }
      clock.advance(30_000); // crosses UTC midnight after the second round
    }
    const dashboard = async () =>
      (await t!.app.inject({ method: 'GET', url: '/api/analytics/dashboard', headers: auth(token) })).json();
    let d = await dashboard();
    expect(d.total_messages).toBe(raw('SELECT count(*) AS n FROM messages'));
    expect(d.total_conversations).toBe(raw('SELECT count(*) AS n FROM conversations'));
    expect(d.total_messages).toBe(24);
    expect(raw('SELECT count(DISTINCT day) AS n FROM analytics_daily')).toBe(2);

    // a direct change of a row (as a repair or an import would do) moves the rollup with it
    t.database.sqlite
      .prepare("UPDATE messages SET timestamp = '2026-04-01T10:00:00.000Z' WHERE role = 'user' AND chatbot_id = ?")
      .run(a.id);
    const perDay = t.database.sqlite
      .prepare('SELECT day, sum(messages) AS m FROM analytics_daily GROUP BY day ORDER BY day')
      .all();
    const rawPerDay = t.database.sqlite
      .prepare('SELECT substr(timestamp, 1, 10) AS day, count(*) AS m FROM messages GROUP BY day ORDER BY day')
      .all();
    expect(perDay.filter((r: any) => r.m > 0)).toEqual(rawPerDay);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/chatbots/${a.id}`, headers: auth(token) });
    expect(del.statusCode).toBe(204);
    d = await dashboard();
    expect(d.total_messages).toBe(raw('SELECT count(*) AS n FROM messages'));
    expect(d.total_messages).toBe(12);
    expect(raw(`SELECT count(*) AS n FROM analytics_daily WHERE chatbot_id = '${a.id}'`)).toBe(0);
  });
});
