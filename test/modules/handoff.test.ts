import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createAgent, ManualClock, registerUser, type TestApp } from '../helpers/app.js';
import { listenOnLoopback } from '../helpers/browser.js';
import type { FakeLlm } from '../helpers/fake-llm.js';
import type { TestSmtp } from '../helpers/smtp.js';
import { appWithMailAndLlm } from '../helpers/mail-app.js';
import { takeSseEvents } from '../helpers/chat.js';

/**
 * Live handoff (issue 23 point 4) on a listening app: escalation e-mails the owner, a person
 * takes over (the agent stays silent), their reply reaches the visitor's open stream, hand back,
 * the timeout of an escalation nobody took, and the 404/400/409 answers.
 */

type Json = Record<string, any>;

let t: TestApp;
let base: string;
let smtp: TestSmtp;
let fake: FakeLlm;
let token: string;
let otherToken: string;
let email: string;
const clock = new ManualClock();

let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ t, smtp, fake, close } = await appWithMailAndLlm({
    key: 'sk-test-handoff',
    llm: { reply: 'The agent answers.', chunks: 2 },
    clock,
  }));
  base = `http://127.0.0.1:${await listenOnLoopback(t)}`;
  const owner = await registerUser(t.app);
  token = owner.token;
  email = owner.email;
  otherToken = (await registerUser(t.app)).token;
}, 30_000);

afterAll(async () => close?.(), 60_000);

async function call(
  method: string,
  path: string,
  body?: Json,
  bearer: string | null = token,
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(bearer ? auth(bearer) : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** An SSE stream read with fetch streaming: `next(name)` waits for the next event of that name. */
async function openStream(path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(base + path, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: Array<{ event: string; data: any }> = [];
  const waiters: Array<() => void> = [];
  let read = 0;
  let ended = false;
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const taken = takeSseEvents(buffer + decoder.decode(chunk, { stream: true }));
          buffer = taken.rest;
          events.push(...taken.events);
          waiters.splice(0).forEach((w) => w());
        }
      } catch {
        // aborted
      }
      ended = true;
      waiters.splice(0).forEach((w) => w());
    })();
  }
  return {
    res,
    events,
    /** the next event (after those already taken) named `name`, skipping others */
    async next(name: string): Promise<any> {
      for (;;) {
        while (read < events.length) {
          const e = events[read++]!;
          if (e.event === name) return e.data;
        }
        if (ended) throw new Error(`stream ended before a ${name} event`);
        await new Promise<void>((r) => waiters.push(r));
      }
    },
    close: () => controller.abort(),
  };
}

async function visitorSays(agentId: string, session: string, message: string): Promise<Json> {
  const r = await call('POST', `/api/public/chat/${agentId}`, { session_id: session, message }, null);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json;
}

const chatRequests = () => fake.requests.filter((r) => r.kind === 'chat').length;

describe('live handoff', () => {
  let agent: Json;
  let conversationId: string;
  const session = 'visitor-handoff-1';

  beforeAll(async () => {
    agent = await createAgent(t.app, token, { name: 'Helpdesk', provider: 'openai', model: 'gpt-4o-mini' });
  }, 60_000);

  it('escalation e-mails the owner with a link to the conversation', async () => {
    const first = await visitorSays(agent.id, session, 'Hello there');
    expect(first).toMatchObject({ message: 'The agent answers.', handled_by: 'agent' });
    conversationId = first.conversation_id;
    const before = smtp.messages.length;
    const esc = await call('POST', `/api/public/chat/${agent.id}/escalate`, { session_id: session }, null);
    expect(esc.status).toBe(200);
    const mail = await smtp.waitFor(before + 1);
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toContain('A visitor asked for a person on Helpdesk');
    expect(mail.body).toContain(`#/agents/${agent.id}/conversations/${conversationId}`);
  });

  it('the visitor stream needs the session of this agent (404 otherwise)', async () => {
    expect((await call('GET', `/api/public/chat/${agent.id}/events?session_id=nobody`, undefined, null)).status).toBe(
      404,
    );
    expect(
      (await call('GET', `/api/public/chat/unknown-agent/events?session_id=${session}`, undefined, null)).status,
    ).toBe(404);
    expect((await call('GET', `/api/public/chat/${agent.id}/events`, undefined, null)).status).toBe(400);
  });

  it('owner routes: another account 404, reply before take 409, empty reply 400', async () => {
    const path = `/api/chat/conversations/${agent.id}/${conversationId}`;
    expect((await call('POST', `${path}/take`, undefined, otherToken)).status).toBe(404);
    expect((await call('POST', `${path}/reply`, { message: 'hi' }, otherToken)).status).toBe(404);
    expect((await call('POST', `${path}/hand-back`, undefined, otherToken)).status).toBe(404);
    expect((await call('POST', `/api/chat/conversations/${agent.id}/missing/take`)).status).toBe(404);
    expect((await call('POST', `${path}/take`, undefined, null)).status).toBe(401);
    const early = await call('POST', `${path}/reply`, { message: 'hi' });
    expect(early.status).toBe(409);
    expect(typeof early.json.detail).toBe('string');
    expect((await call('POST', `${path}/reply`, {})).status).toBe(400);
    expect((await call('GET', `/api/chat/conversations/${agent.id}/events`, undefined, otherToken)).status).toBe(404);
  });

  it('take over: the agent stays silent; the reply reaches the open stream; hand back', async () => {
    const visitor = await openStream(`/api/public/chat/${agent.id}/events?session_id=${session}`);
    expect(visitor.res.headers.get('content-type')).toContain('text/event-stream');
    expect(await visitor.next('ready')).toMatchObject({
      conversation_id: conversationId,
      status: 'escalated',
      handled_by: 'agent',
    });
    const owner = await openStream(`/api/chat/conversations/${agent.id}/events`, auth(token));
    await owner.next('ready');

    const path = `/api/chat/conversations/${agent.id}/${conversationId}`;
    const taken = await call('POST', `${path}/take`);
    expect(taken.status).toBe(200);
    expect(taken.json).toMatchObject({ conversation_id: conversationId, handled_by: 'person' });
    expect(taken.json.taken_at).toEqual(expect.any(String));
    expect(await visitor.next('status')).toMatchObject({ status: 'taken' });

    const asked = chatRequests();
    const silent = await visitorSays(agent.id, session, 'Are you a real person?');
    expect(silent).toMatchObject({ message: '', handled_by: 'person', message_id: null });
    expect(chatRequests()).toBe(asked);
    // the owner sees the visitor's message live
    expect(await owner.next('message')).toMatchObject({
      conversation_id: conversationId,
      message: { role: 'user', content: 'Are you a real person?' },
    });

    const sent = await call('POST', `${path}/reply`, { message: '  Yes, I am Anna from support.  ' });
    expect(sent.status).toBe(201);
    expect(sent.json).toMatchObject({ role: 'assistant', content: 'Yes, I am Anna from support.', from_person: true });
    expect(await visitor.next('message')).toMatchObject({
      id: sent.json.id,
      content: 'Yes, I am Anna from support.',
      from_person: true,
    });

    const transcript = await call('GET', `/api/chat/messages/${conversationId}`);
    expect(transcript.json.map((m: Json) => [m.role, m.from_person])).toEqual([
      ['user', false],
      ['assistant', false],
      ['user', false],
      ['assistant', true],
    ]);
    const listed = await call('GET', `/api/chat/conversations/${agent.id}`);
    expect(listed.json[0]).toMatchObject({ id: conversationId, handled_by: 'person', message_count: 4 });

    const back = await call('POST', `${path}/hand-back`);
    expect(back.json).toMatchObject({ handled_by: 'agent', taken_at: null, status: 'active' });
    expect(await visitor.next('status')).toMatchObject({ status: 'handed_back' });
    expect((await call('POST', `${path}/reply`, { message: 'late' })).status).toBe(409);
    const again = await visitorSays(agent.id, session, 'Thanks, bye');
    expect(again).toMatchObject({ message: 'The agent answers.', handled_by: 'agent' });
    expect(chatRequests()).toBe(asked + 1);
    visitor.close();
    owner.close();
  });

  it("a stream opened later repeats the person's messages in ready, so a reloaded widget shows what it missed", async () => {
    const later = await openStream(`/api/public/chat/${agent.id}/events?session_id=${session}`);
    const ready = await later.next('ready');
    expect(ready).toMatchObject({ conversation_id: conversationId, handled_by: 'agent' });
    expect(ready.messages).toEqual([
      {
        id: expect.any(String),
        role: 'assistant',
        content: 'Yes, I am Anna from support.',
        timestamp: expect.any(String),
        from_person: true,
        // the display name of the person who sent it (their name unless they chose one)
        sender_name: 'Test User',
      },
    ]);
    later.close();
  });

  it("the agent's own handoff_wait_s sets when the visitor is told", async () => {
    const quick = await createAgent(t.app, token, {
      name: 'Quick',
      provider: 'openai',
      model: 'gpt-4o-mini',
      handoff_wait_s: 30,
    });
    expect(quick.handoff_wait_s).toBe(30);
    const s = 'visitor-handoff-quick';
    await visitorSays(quick.id, s, 'Hello');
    expect((await call('POST', `/api/public/chat/${quick.id}/escalate`, { session_id: s }, null)).status).toBe(200);
    const visitor = await openStream(`/api/public/chat/${quick.id}/events?session_id=${s}`);
    expect((await visitor.next('ready')).messages).toEqual([]);
    clock.advance(31_000);
    expect(await visitor.next('status')).toMatchObject({ status: 'handoff_timeout', wait_s: 30 });
    visitor.close();
  });

  it('an escalation nobody takes within handoff_wait_s is a handoff_timeout on the stream', async () => {
    const s = 'visitor-handoff-timeout';
    await visitorSays(agent.id, s, 'Hello');
    expect((await call('POST', `/api/public/chat/${agent.id}/escalate`, { session_id: s }, null)).status).toBe(200);
    const visitor = await openStream(`/api/public/chat/${agent.id}/events?session_id=${s}`);
    await visitor.next('ready');
    // the default wait is 120 s; the stream rechecks against the app's clock
    clock.advance(121_000);
    expect(await visitor.next('status')).toMatchObject({ status: 'handoff_timeout', wait_s: 120 });
    visitor.close();
    // a stream opened later (after a restart, say) learns it at once
    const later = await openStream(`/api/public/chat/${agent.id}/events?session_id=${s}`);
    expect(await later.next('status')).toMatchObject({ status: 'handoff_timeout' });
    later.close();
  });
});
