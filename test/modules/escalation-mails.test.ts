import { describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, say, useTestApps, type TestApp } from '../helpers/app.js';

/**
 * Issue 31 point 3: "A visitor asked for a person" e-mails had no cap of their own (14 mails in
 * 6 s from one address). One per conversation, and at most ESCALATION_MAILS_PER_AGENT_PER_HOUR
 * per agent within an hour. The mails are read from the outbox (queued whether or not mail is set up).
 */

const apps = useTestApps();

async function setup() {
  const clock = new ManualClock();
  const t = await apps.start({ clock, env: { EMBEDDINGS: 'none' } });
  const owner = await registerUser(t.app);
  const agent = await createAgent(t.app, owner.token, { name: 'Helpdesk' });
  return { t, clock, owner, agent };
}

async function escalate(t: TestApp, agentId: string, session: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}/escalate`,
    payload: { session_id: session },
  });
  expect(res.statusCode, res.body).toBe(200);
}

function escalationMails(t: TestApp, agentName = 'Helpdesk'): Array<{ subject: string; body: string }> {
  return t.database.sqlite
    .prepare('SELECT subject, body FROM mail_outbox WHERE subject = ? ORDER BY created_at, id')
    .all(`A visitor asked for a person on ${agentName}`) as Array<{ subject: string; body: string }>;
}

describe('escalation e-mails to the owner', () => {
  it('one conversation escalated again (after a hand back, by the button and by a keyword) is one e-mail', async () => {
    const { t, owner } = await setup();
    const agent = await createAgent(t.app, owner.token, { name: 'Helpdesk', escalation_keywords: ['human'] });
    const first = await say(t, agent.id, 's1', 'Hello');
    const path = `/api/chat/conversations/${agent.id}/${first.conversation_id}`;
    for (let i = 0; i < 5; i++) {
      await escalate(t, agent.id, 's1');
      for (const step of ['take', 'hand-back']) {
        const res = await t.app.inject({ method: 'POST', url: `${path}/${step}`, headers: auth(owner.token) });
        expect(res.statusCode, res.body).toBe(200);
      }
      await say(t, agent.id, 's1', 'I want a human please');
      for (const step of ['take', 'hand-back'])
        await t.app.inject({ method: 'POST', url: `${path}/${step}`, headers: auth(owner.token) });
    }
    expect(escalationMails(t)).toHaveLength(1);
    // the mark is the server's own: conversations as the API shows them do not carry it
    const list = await t.app.inject({ url: `/api/chat/conversations/${agent.id}`, headers: auth(owner.token) });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.body).not.toContain('owner_notified_at');
  });

  it('fourteen conversations escalated within seconds: ten e-mails an hour per agent, the tenth says so; another agent and the next hour are not held back', async () => {
    const { t, clock, owner, agent } = await setup();
    for (let i = 0; i < 14; i++) {
      await say(t, agent.id, `v${i}`, 'Hello');
      await escalate(t, agent.id, `v${i}`);
      clock.advance(400);
    }
    const mails = escalationMails(t);
    expect(mails).toHaveLength(10);
    expect(mails.slice(0, 9).every((m) => !m.body.includes('not e-mailed'))).toBe(true);
    expect(mails[9]!.body).toContain(
      'This is the 10th e-mail within an hour about visitors of Helpdesk asking for a person: until 13:00 UTC further requests are not e-mailed;',
    );

    // another agent of the same account has its own allowance
    const other = await createAgent(t.app, owner.token, { name: 'Sales' });
    await say(t, other.id, 'w1', 'Hello');
    await escalate(t, other.id, 'w1');
    expect(escalationMails(t, 'Sales')).toHaveLength(1);

    // an hour after the first one, the allowance is back
    clock.advance(60 * 60_000);
    await say(t, agent.id, 'later', 'Hello');
    await escalate(t, agent.id, 'later');
    expect(escalationMails(t)).toHaveLength(11);
  });
});
