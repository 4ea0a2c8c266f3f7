import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import {
  auth,
  createAgent,
  ManualClock,
  registerUser,
  useTestApps,
  type TestApp,
  expectKeys,
  send,
  jsonOf,
  accountWithAgent,
} from '../helpers/app.js';
import { withTimeout } from '../helpers/server-process.js';
import {
  providerEnv,
  startFakeLlm,
  type FakeBehaviour,
  type FakeLlm,
  type FakeProviderName,
  type RecordedRequest,
} from '../helpers/fake-llm.js';
import { addText } from '../helpers/sources.js';
import { CONVERSATION_FIELDS, chatRequests, providerSetup, publicChat, SSE } from '../helpers/chat.js';
import { LEAD_FORM_AND_LANGUAGE_DEFAULTS, LEAD_FORM_AND_LANGUAGE_KEYS } from '../helpers/agent-fields.js';

/**
 * Chat through the whole app: public and owner chat routes, conversations and messages, SSE
 * streaming (also over a real socket), provider failures, the no-key answer, and each of the four
 * providers wired through the app's configuration to a fake server spoken to by the real SDK.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-SECRET-chat-key-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DEFAULT_NO_ANSWER = 'I could not find that in our information.';

const CHAT_KEYS = ['action', 'conversation_id', 'handled_by', 'message', 'message_id', 'session_id', 'sources'];
const CONVERSATION_KEYS = [
  ...CONVERSATION_FIELDS,
  'messages_count',
  'rating',
  'resolved_at',
  'thumbs_down',
  'thumbs_up',
].sort();
const MESSAGE_KEYS = [
  'content',
  'feedback',
  'from_person',
  'id',
  'interrupted',
  'role',
  'sender_name',
  'sender_user_id',
  'timestamp',
];
/** docs/API.md "Objects": Public agent info, plus `status` (docs/API-NOTES.md "Public agent info") */
const PUBLIC_INFO_KEYS = [
  'id',
  'name',
  'welcome_message',
  'primary_color',
  'secondary_color',
  'accent_color',
  'logo_url',
  'avatar_url',
  'font_family',
  'font_size',
  'bubble_style',
  'widget_theme',
  'widget_position',
  'widget_size',
  'auto_expand',
  'lead_capture_enabled',
  'powered_by_text',
  'status',
  ...LEAD_FORM_AND_LANGUAGE_KEYS,
  'starter_questions',
  'greeting_message',
  'greeting_delay_s',
  // issue 34.4: whether a person can be asked for now
  'handoff',
].sort();

// ---------------------------------------------------------------------------------------------
// set-up and tear-down

const apps = useTestApps();

/** The app with keyword-only retrieval unless the test says otherwise. */
async function start(env: Record<string, string> = {}, clock?: ManualClock): Promise<TestApp> {
  const t = await apps.start({ env: { EMBEDDINGS: 'none', ...env }, clock });
  return t;
}

async function fake(provider: FakeProviderName, behaviour: Partial<FakeBehaviour> = {}): Promise<FakeLlm> {
  const f = await startFakeLlm(provider, behaviour);
  apps.before(f);
  return f;
}

/** An app wired to a fake openai, one account and one openai agent. */
const openaiSetup = (behaviour: Partial<FakeBehaviour> = {}, env: Record<string, string> = {}, clock?: ManualClock) =>
  providerSetup(apps, 'openai', KEY, { name: 'Shop helper' }, { behaviour, env, clock });

// ---------------------------------------------------------------------------------------------
// request helpers

function ownerChat(t: TestApp, token: string, body: Json, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/api/chat', headers: { ...auth(token), ...headers }, payload: body });
}

async function getJson(t: TestApp, url: string, token?: string): Promise<any> {
  const res = await t.app.inject({ method: 'GET', url, headers: token ? auth(token) : {} });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
}

async function userId(t: TestApp, token: string): Promise<string> {
  return (await getJson(t, '/api/auth/me', token)).id;
}

interface SseEvent {
  event: string;
  data: any;
}

/** Parses an SSE body; every block must be exactly `event: <name>` + `data: <json>`. */
function parseSse(body: string): SseEvent[] {
  expect(body.endsWith('\n\n'), 'the stream ends after a complete event').toBe(true);
  return body
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const lines = block.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^event: (delta|done|error)$/);
      expect(lines[1]).toMatch(/^data: /);
      return { event: lines[0]!.slice('event: '.length), data: JSON.parse(lines[1]!.slice('data: '.length)) };
    });
}

/** A streamed chat answer: deltas, then exactly one `done` as the last event. */
function streamedAnswer(res: { statusCode: number; headers: Record<string, unknown>; body: string }): {
  deltas: string[];
  done: Json;
} {
  expect(res.statusCode, res.body).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
  const events = parseSse(res.body);
  const last = events.at(-1)!;
  expect(last.event).toBe('done');
  const rest = events.slice(0, -1);
  expect(rest.length).toBeGreaterThan(0);
  for (const e of rest) {
    expect(e.event).toBe('delta');
    expect(Object.keys(e.data)).toEqual(['text']);
    expect(typeof e.data.text).toBe('string');
  }
  return { deltas: rest.map((e) => e.data.text as string), done: last.data };
}

/**
 * The conversations of an agent, their messages, and the agent's counters, checked against each
 * other: message_count == messages_count == messages listed; agent counts == sums.
 */
async function transcript(t: TestApp, token: string, agentId: string) {
  const conversations: Json[] = await getJson(t, `/api/chat/conversations/${agentId}`, token);
  const messages = new Map<string, Json[]>();
  for (const c of conversations) {
    const list: Json[] = await getJson(t, `/api/chat/messages/${c.id}`, token);
    expect(c.message_count).toBe(list.length);
    expect(c.messages_count).toBe(list.length);
    messages.set(c.id, list);
  }
  const agent = await getJson(t, `/api/chatbots/${agentId}`, token);
  const total = [...messages.values()].reduce((n, l) => n + l.length, 0);
  expect(agent.messages_count).toBe(total);
  expect(agent.conversations_count).toBe(conversations.length);
  return { conversations, messages, agent, total };
}

/** Listens on a free loopback port (closed with the app in afterEach). */
async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

/**
 * A streaming chat request over a real socket. `firstEvent` resolves with the first complete SSE
 * event; `request.destroy()` is the visitor leaving.
 */
function openSse(port: number, path: string, body: Json) {
  let request!: http.ClientRequest;
  const firstEvent = new Promise<{ status: number; contentType: string; event: SseEvent }>((resolve, reject) => {
    request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      },
      (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          const end = buffer.indexOf('\n\n');
          if (end >= 0)
            resolve({
              status: res.statusCode!,
              contentType: String(res.headers['content-type']),
              event: parseSse(buffer.slice(0, end + 2))[0]!,
            });
        });
        res.on('error', () => {}); // the test's own abort
        res.on('end', () => reject(new Error(`stream ended before an event: ${res.statusCode} ${buffer}`)));
      },
    );
    request.on('error', () => {}); // the test's own abort
    request.end(JSON.stringify(body));
  });
  firstEvent.catch(() => {}); // awaited only by the tests that expect an event
  return { request, firstEvent };
}

/** `work`, or a clear failure after `ms` instead of the test's own timeout. */
const within = <T>(work: Promise<T>, ms: number, what: string): Promise<T> => withTimeout(work, ms, what);

/** What a fake received, read the same way for every provider. */
interface Seen {
  model: string;
  temperature: number;
  maxTokens: number;
  system: string;
  turns: Array<{ role: string; content: string }>;
  stream: boolean;
}

function seen(provider: FakeProviderName, req: RecordedRequest): Seen {
  const b = req.body;
  switch (provider) {
    case 'openai':
      return {
        model: b.model,
        temperature: b.temperature,
        maxTokens: b.max_tokens ?? b.max_completion_tokens,
        system: b.messages
          .filter((m: Json) => m.role === 'system' || m.role === 'developer')
          .map((m: Json) => m.content)
          .join('\n'),
        turns: b.messages
          .filter((m: Json) => m.role === 'user' || m.role === 'assistant')
          .map((m: Json) => ({ role: m.role, content: m.content })),
        stream: req.stream,
      };
    case 'anthropic':
      return {
        model: b.model,
        temperature: b.temperature,
        maxTokens: b.max_tokens,
        system: typeof b.system === 'string' ? b.system : (b.system ?? []).map((p: Json) => p.text).join(''),
        turns: b.messages.map((m: Json) => ({
          role: m.role,
          content: typeof m.content === 'string' ? m.content : m.content.map((p: Json) => p.text).join(''),
        })),
        stream: req.stream,
      };
    case 'google':
      return {
        model: /\/models\/([^/:]+):/.exec(req.path)![1]!,
        temperature: b.generationConfig?.temperature,
        maxTokens: b.generationConfig?.maxOutputTokens,
        system: (b.systemInstruction?.parts ?? []).map((p: Json) => p.text).join(''),
        turns: b.contents.map((c: Json) => ({
          role: c.role === 'model' ? 'assistant' : c.role,
          content: c.parts.map((p: Json) => p.text).join(''),
        })),
        stream: req.stream,
      };
    case 'ollama':
      return {
        model: b.model,
        temperature: b.options?.temperature,
        maxTokens: b.options?.num_predict,
        system: b.messages
          .filter((m: Json) => m.role === 'system')
          .map((m: Json) => m.content)
          .join('\n'),
        turns: b.messages
          .filter((m: Json) => m.role !== 'system')
          .map((m: Json) => ({ role: m.role, content: m.content })),
        stream: req.stream,
      };
  }
}

/** A 502 body that names the provider and shows no key, address or stack. */
function expectSafe502(res: { statusCode: number; body: string; json: () => any }, provider: string, f: FakeLlm): void {
  expect(res.statusCode, res.body).toBe(502);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
  expect(body.detail).toContain(provider);
  expect(res.body).not.toContain(KEY);
  expect(res.body).not.toContain(f.url);
  expect(res.body).not.toContain('127.0.0.1');
  expect(res.body).not.toMatch(/\bat .+:\d+:\d+/); // no stack frames
}

// ---------------------------------------------------------------------------------------------

describe('GET /api/public/chatbot/{id}', () => {
  it('answers without a token with exactly the public fields (docs/API.md plus status) and their defaults', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token, {
      name: 'Front desk',
      welcome_message: 'Welcome to the shop!',
      instructions: 'secret prompt',
    });

    const info = await getJson(t, `/api/public/chatbot/${agent.id}`);
    expectKeys(info, PUBLIC_INFO_KEYS);
    expect(info).toEqual({
      id: agent.id,
      name: 'Front desk',
      welcome_message: 'Welcome to the shop!',
      primary_color: '#7c3aed',
      secondary_color: '#ec4899',
      accent_color: '#ec4899',
      logo_url: null,
      avatar_url: null,
      font_family: expect.any(String),
      font_size: 14,
      bubble_style: 'rounded',
      widget_theme: 'auto',
      widget_position: 'bottom-right',
      widget_size: 'medium',
      auto_expand: false,
      lead_capture_enabled: true,
      powered_by_text: null, // free plan: default branding
      status: 'active',
      // beyond the spec (issue 22): when the lead form shows and what it says, the widget's language and wording
      ...LEAD_FORM_AND_LANGUAGE_DEFAULTS,
      starter_questions: [],
      greeting_message: null,
      greeting_delay_s: 5,
      // issue 34.4: always open, the owner online
      handoff: { available: true, next_opening: null },
    });
    // nothing private leaks
    expect(JSON.stringify(info)).not.toContain('secret prompt');
  });

  it('reflects an edit made after it was read (the JSON kept for an agent goes with its old version)', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token, { name: 'Before' });
    for (let i = 0; i < 2; i++) expect((await getJson(t, `/api/public/chatbot/${agent.id}`)).name).toBe('Before');
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      name: 'After',
      primary_color: '#112233',
    });
    expect(put.statusCode, put.body).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: `/api/public/chatbot/${agent.id}` });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toMatchObject({ name: 'After', primary_color: '#112233' });
  });

  it('shows the stored powered_by_text on a plan with custom branding, and null once the owner loses it', async () => {
    const t = await start({ DEFAULT_PLAN: 'starter' });
    const { token } = await registerUser(t.app); // first account: admin, on starter
    const me = await userId(t, token);
    const agent = await createAgent(t.app, token);
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      powered_by_text: 'Powered by Acme Widgets',
    });
    expect(put.statusCode, put.body).toBe(200);

    expect((await getJson(t, `/api/public/chatbot/${agent.id}`)).powered_by_text).toBe('Powered by Acme Widgets');

    const toFree = await send(t.app, token, 'PATCH', `/api/admin/users/${me}`, { plan_id: 'free' });
    expect(toFree.statusCode, toFree.body).toBe(200);
    expect((await getJson(t, `/api/public/chatbot/${agent.id}`)).powered_by_text).toBeNull();

    // the text was kept, and shows again on a paid plan
    const back = await send(t.app, token, 'PATCH', `/api/admin/users/${me}`, { plan_id: 'starter' });
    expect(back.statusCode, back.body).toBe(200);
    expect((await getJson(t, `/api/public/chatbot/${agent.id}`)).powered_by_text).toBe('Powered by Acme Widgets');
  });

  it('is 404 for an unknown agent, 403 without public access, and shows an inactive agent as inactive', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);

    const unknown = await t.app.inject({ method: 'GET', url: '/api/public/chatbot/no-such-agent' });
    expect(unknown.statusCode).toBe(404);
    expect(typeof unknown.json().detail).toBe('string');

    const toggle = await send(t.app, token, 'PATCH', `/api/chatbots/${agent.id}/toggle`);
    expect(toggle.json().status).toBe('inactive');
    expect((await getJson(t, `/api/public/chatbot/${agent.id}`)).status).toBe('inactive');

    await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, { public_access: false });
    const closed = await t.app.inject({ method: 'GET', url: `/api/public/chatbot/${agent.id}` });
    expect(closed.statusCode).toBe(403);
    expect(typeof closed.json().detail).toBe('string');
  });
});

describe('chat routes: answers, conversations and messages', () => {
  it('public chat answers with exactly {message, conversation_id, session_id, sources} and stores both messages', async () => {
    const { f, t, token, agent } = await openaiSetup({ reply: 'We open at nine.' });
    const res = await publicChat(t, agent.id, {
      message: 'When do you open?',
      session_id: 'visitor-1',
      user_name: 'Ada',
      user_email: 'Ada@Example.com',
    });
    const body = jsonOf(res, 200, CHAT_KEYS);
    expect(body).toEqual({
      message: 'We open at nine.',
      conversation_id: expect.any(String),
      session_id: 'visitor-1',
      sources: [],
      message_id: expect.any(String),
      handled_by: 'agent',
      action: null,
    });
    expect(chatRequests(f)).toHaveLength(1);
    expect(seen('openai', chatRequests(f)[0]!).turns).toEqual([{ role: 'user', content: 'When do you open?' }]);

    const { conversations, messages, agent: after } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expectKeys(c, CONVERSATION_KEYS);
    expect(c).toMatchObject({
      id: body.conversation_id,
      chatbot_id: agent.id,
      session_id: 'visitor-1',
      user_name: 'Ada',
      status: 'active',
      rating: null,
      message_count: 2,
      messages_count: 2,
    });
    expect(c.user_email.toLowerCase()).toBe('ada@example.com');
    expect(c.created_at).toMatch(ISO);
    expect(c.updated_at).toMatch(ISO);

    const list = messages.get(c.id)!;
    for (const m of list) {
      expectKeys(m, MESSAGE_KEYS);
      expect(m.timestamp).toMatch(ISO);
    }
    expect(list.map((m) => [m.role, m.content])).toEqual([
      ['user', 'When do you open?'],
      ['assistant', 'We open at nine.'],
    ]);
    expect(after.messages_count).toBe(2);
    expect(after.conversations_count).toBe(1);
  });

  it('threads one conversation per session and agent, sends the history to the model, and starts anew for a new session', async () => {
    const f = await fake('openai');
    let turn = 0;
    f.setBehaviour({ reply: () => `Answer ${++turn}.` });
    const t = await start(providerEnv(f, KEY));
    const { token, agent } = await accountWithAgent(t.app);
    const other = await createAgent(t.app, token, { name: 'Other bot' });

    const a1 = (await publicChat(t, agent.id, { message: 'First question', session_id: 's-1' })).json();
    const a2 = (await publicChat(t, agent.id, { message: 'Second question', session_id: 's-1' })).json();
    expect(a2.conversation_id).toBe(a1.conversation_id);
    expect(a2.message).toBe('Answer 2.');
    expect(seen('openai', chatRequests(f)[1]!).turns).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'Answer 1.' },
      { role: 'user', content: 'Second question' },
    ]);

    // the owner's route with the same session continues the same thread
    const a3 = await ownerChat(t, token, { chatbot_id: agent.id, message: 'Third question', session_id: 's-1' });
    expect(a3.statusCode, a3.body).toBe(200);
    expect(a3.json().conversation_id).toBe(a1.conversation_id);
    expect(seen('openai', chatRequests(f)[2]!).turns.map((x) => x.content)).toEqual([
      'First question',
      'Answer 1.',
      'Second question',
      'Answer 2.',
      'Third question',
    ]);

    // a new session: a new conversation with no history
    const b1 = (await publicChat(t, agent.id, { message: 'Unrelated question', session_id: 's-2' })).json();
    expect(b1.conversation_id).not.toBe(a1.conversation_id);
    expect(seen('openai', chatRequests(f)[3]!).turns).toEqual([{ role: 'user', content: 'Unrelated question' }]);

    // the same session id on another agent is another conversation
    const o1 = (await publicChat(t, other.id, { message: 'Hello other', session_id: 's-1' })).json();
    expect(o1.conversation_id).not.toBe(a1.conversation_id);
    expect(seen('openai', chatRequests(f)[4]!).turns).toHaveLength(1);

    const { conversations, messages, agent: counts } = await transcript(t, token, agent.id);
    expect(conversations.map((c) => c.id).sort()).toEqual([a1.conversation_id, b1.conversation_id].sort());
    expect(messages.get(a1.conversation_id)!.map((m) => m.content)).toEqual([
      'First question',
      'Answer 1.',
      'Second question',
      'Answer 2.',
      'Third question',
      'Answer 3.',
    ]);
    expect(counts.messages_count).toBe(8);
    expect(counts.conversations_count).toBe(2);
    const otherT = await transcript(t, token, other.id);
    expect(otherT.total).toBe(2);
  });

  it('POST /api/chat without session_id makes a UUID, returns it, and that id continues the thread', async () => {
    const { f, t, token, agent } = await openaiSetup({ reply: 'Owner answer.' });
    const first = await ownerChat(t, token, {
      chatbot_id: agent.id,
      message: 'Testing my bot',
      user_name: 'Owner',
      user_email: 'owner@example.com',
    });
    const body = jsonOf(first, 200, CHAT_KEYS);
    expect(body.session_id).toMatch(UUID);
    expect(body.message).toBe('Owner answer.');

    const second = await ownerChat(t, token, { chatbot_id: agent.id, message: 'Again', session_id: body.session_id });
    expect(second.json().conversation_id).toBe(body.conversation_id);
    expect(seen('openai', chatRequests(f)[1]!).turns.map((x) => x.content)).toEqual([
      'Testing my bot',
      'Owner answer.',
      'Again',
    ]);

    // a call without a session id is a new conversation each time
    const third = (await ownerChat(t, token, { chatbot_id: agent.id, message: 'Fresh start' })).json();
    expect(third.session_id).toMatch(UUID);
    expect(third.session_id).not.toBe(body.session_id);
    expect(third.conversation_id).not.toBe(body.conversation_id);

    const { conversations, agent: counts } = await transcript(t, token, agent.id);
    const c = conversations.find((x) => x.id === body.conversation_id)!;
    expect(c).toMatchObject({
      session_id: body.session_id,
      user_name: 'Owner',
      user_email: 'owner@example.com',
      message_count: 4,
    });
    expect(counts.messages_count).toBe(6);
    expect(counts.conversations_count).toBe(2);
  });

  it('lists conversations most recently updated first and messages oldest first', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const { t, token, agent } = await openaiSetup({ reply: 'ok' }, {}, clock);
    const say = async (session: string, message: string) => {
      clock.advance(60_000);
      const res = await publicChat(t, agent.id, { message, session_id: session });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().conversation_id as string;
    };
    const a = await say('A', 'a1');
    const b = await say('B', 'b1');
    const c = await say('C', 'c1');
    let list: Json[] = await getJson(t, `/api/chat/conversations/${agent.id}`, token);
    expect(list.map((x) => x.id)).toEqual([c, b, a]);

    await say('A', 'a2');
    list = await getJson(t, `/api/chat/conversations/${agent.id}`, token);
    expect(list.map((x) => x.id)).toEqual([a, c, b]);
    const convA = list[0]!;
    expect(convA.updated_at).toBe(clock.now().toISOString());
    expect(convA.created_at).toBe('2026-03-01T12:01:00.000Z');

    const messages: Json[] = await getJson(t, `/api/chat/messages/${a}`, token);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'a1'],
      ['assistant', 'ok'],
      ['user', 'a2'],
      ['assistant', 'ok'],
    ]);
    const times = messages.map((m) => Date.parse(m.timestamp));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(messages[0]!.timestamp).toBe('2026-03-01T12:01:00.000Z');
    expect(messages[3]!.timestamp).toBe('2026-03-01T12:04:00.000Z');
  });

  it('stores user_name and user_email on the conversation and takes later values when sent', async () => {
    const { t, token, agent } = await openaiSetup();
    await publicChat(t, agent.id, { message: 'hi', session_id: 'v' });
    let [c] = await getJson(t, `/api/chat/conversations/${agent.id}`, token);
    expect(c).toMatchObject({ user_name: null, user_email: null });

    await publicChat(t, agent.id, {
      message: 'I am Grace',
      session_id: 'v',
      user_name: 'Grace Hopper',
      user_email: 'grace@example.com',
    });
    [c] = await getJson(t, `/api/chat/conversations/${agent.id}`, token);
    expect(c).toMatchObject({ user_name: 'Grace Hopper', user_email: 'grace@example.com', message_count: 4 });

    // a message without them keeps what is stored
    await publicChat(t, agent.id, { message: 'thanks', session_id: 'v' });
    [c] = await getJson(t, `/api/chat/conversations/${agent.id}`, token);
    expect(c).toMatchObject({ user_name: 'Grace Hopper', user_email: 'grace@example.com', message_count: 6 });
  });
});

describe('chat routes: status codes', () => {
  it('public chat: unknown agent 404, public_access false 403, inactive 400; nothing is stored', async () => {
    const { f, t, token, agent } = await openaiSetup();
    const msg = { message: 'hello', session_id: 's' };

    const unknown = await publicChat(t, 'no-such-agent', msg);
    expect(unknown.statusCode).toBe(404);
    expect(typeof unknown.json().detail).toBe('string');

    await t.app.inject({ method: 'PATCH', url: `/api/chatbots/${agent.id}/toggle`, headers: auth(token) });
    const inactive = await publicChat(t, agent.id, msg);
    expect(inactive.statusCode).toBe(400);
    expect(typeof inactive.json().detail).toBe('string');
    // also when streaming was asked for: an ordinary JSON error
    const inactiveStream = await publicChat(t, agent.id, msg, SSE);
    expect(inactiveStream.statusCode).toBe(400);
    expect(inactiveStream.headers['content-type']).toMatch(/application\/json/);

    // the owner may still try an inactive agent (docs/API-NOTES.md "Chat")
    const owner = await ownerChat(t, token, { chatbot_id: agent.id, message: 'owner test' });
    expect(owner.statusCode, owner.body).toBe(200);

    await t.app.inject({ method: 'PATCH', url: `/api/chatbots/${agent.id}/toggle`, headers: auth(token) });
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, { public_access: false });
    expect(put.statusCode).toBe(200);
    const closed = await publicChat(t, agent.id, msg);
    expect(closed.statusCode).toBe(403);
    expect(typeof closed.json().detail).toBe('string');

    const { conversations, agent: counts } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(1); // only the owner's
    expect(counts.messages_count).toBe(2);
    expect(chatRequests(f)).toHaveLength(1);
  });

  it("bearer routes answer 404 for another account's agent or conversation, and store nothing there", async () => {
    const { t, token, agent } = await openaiSetup();
    const mine = (await publicChat(t, agent.id, { message: 'hello', session_id: 's' })).json();
    const intruder = (await registerUser(t.app)).token;

    const foreignChat = await ownerChat(t, intruder, { chatbot_id: agent.id, message: 'let me in', session_id: 's' });
    expect(foreignChat.statusCode).toBe(404);
    const missingChat = await ownerChat(t, intruder, { chatbot_id: 'no-such-agent', message: 'hi' });
    expect(missingChat.statusCode).toBe(404);
    expect(foreignChat.json().detail).toBe(missingChat.json().detail);

    // 404 with the same detail as for an id that does not exist (docs/API.md "Errors")
    const pairs = [
      [`/api/chat/conversations/${agent.id}`, '/api/chat/conversations/nope'],
      [`/api/chat/messages/${mine.conversation_id}`, '/api/chat/messages/nope'],
    ];
    for (const [foreignUrl, missingUrl] of pairs) {
      const foreign = await t.app.inject({ method: 'GET', url: foreignUrl!, headers: auth(intruder) });
      const missing = await t.app.inject({ method: 'GET', url: missingUrl!, headers: auth(intruder) });
      expect(foreign.statusCode, foreignUrl).toBe(404);
      expect(missing.statusCode, missingUrl).toBe(404);
      expect(typeof foreign.json().detail).toBe('string');
      expect(foreign.json().detail, foreignUrl).toBe(missing.json().detail);
    }
    // without a token: 401
    const anon = await t.app.inject({ method: 'GET', url: `/api/chat/messages/${mine.conversation_id}` });
    expect(anon.statusCode).toBe(401);
    const anonChat = await send(t.app, null, 'POST', '/api/chat', { chatbot_id: agent.id, message: 'x' });
    expect(anonChat.statusCode).toBe(401);

    const { total, conversations } = await transcript(t, token, agent.id);
    expect(total).toBe(2);
    expect(conversations).toHaveLength(1);
  });

  it('a missing or empty message is 400, one over 4000 characters 413 (4000 is fine), on both routes', async () => {
    const { t, token, agent } = await openaiSetup({ reply: 'fine' });
    const cases: Array<[Json, number]> = [
      [{ session_id: 's' }, 400],
      [{ message: '', session_id: 's' }, 400],
      [{ message: '   \n ', session_id: 's' }, 400],
      [{ message: 42, session_id: 's' }, 400],
      [{ message: 'x'.repeat(4001), session_id: 's' }, 413],
    ];
    for (const [body, status] of cases) {
      const pub = await publicChat(t, agent.id, body);
      expect(pub.statusCode, `public ${JSON.stringify(body).slice(0, 60)}`).toBe(status);
      expect(typeof pub.json().detail).toBe('string');
      if (status === 400) expect(pub.json().detail).toMatch(/message/);
      const own = await ownerChat(t, token, { ...body, chatbot_id: agent.id });
      expect(own.statusCode, `owner ${JSON.stringify(body).slice(0, 60)}`).toBe(status);
      expect(typeof own.json().detail).toBe('string');
    }
    // public chat needs a session_id; the owner's does not
    const noSession = await publicChat(t, agent.id, { message: 'hi' });
    expect(noSession.statusCode).toBe(400);
    expect(noSession.json().detail).toMatch(/session_id/);
    const noAgent = await ownerChat(t, token, { message: 'hi' });
    expect(noAgent.statusCode).toBe(400);
    expect(noAgent.json().detail).toMatch(/chatbot_id/);

    let { total } = await transcript(t, token, agent.id);
    expect(total).toBe(0);

    const max = await publicChat(t, agent.id, { message: 'y'.repeat(4000), session_id: 's' });
    expect(max.statusCode, max.body).toBe(200);
    ({ total } = await transcript(t, token, agent.id));
    expect(total).toBe(2);
  });

  it('an expired plan gives 402 on public chat and on /api/chat (streaming too), and nothing is stored', async () => {
    const { f, t, token: adminToken } = await openaiSetup();
    const owner = await registerUser(t.app);
    const ownerId = await userId(t, owner.token);
    const agent = await createAgent(t.app, owner.token);

    const patch = await send(t.app, adminToken, 'PATCH', `/api/admin/users/${ownerId}`, {
      plan_expires_at: '2020-01-01T00:00:00Z',
    });
    expect(patch.statusCode, patch.body).toBe(200);

    for (const res of [
      await publicChat(t, agent.id, { message: 'hi', session_id: 's' }),
      await publicChat(t, agent.id, { message: 'hi', session_id: 's' }, SSE),
      await ownerChat(t, owner.token, { chatbot_id: agent.id, message: 'hi' }),
      await ownerChat(t, owner.token, { chatbot_id: agent.id, message: 'hi' }, SSE),
    ]) {
      expect(res.statusCode, res.body).toBe(402);
      expect(typeof res.json().detail).toBe('string');
    }
    expect(chatRequests(f)).toHaveLength(0);
    const { total, conversations } = await transcript(t, owner.token, agent.id);
    expect(total).toBe(0);
    expect(conversations).toHaveLength(0);

    // renewing the plan restores chat
    await send(t.app, adminToken, 'PATCH', `/api/admin/users/${ownerId}`, { plan_expires_at: null });
    expect((await publicChat(t, agent.id, { message: 'hi', session_id: 's' })).statusCode).toBe(200);
  });
});

describe('streaming (Accept: text/event-stream)', () => {
  it('public chat streams delta events then done with the non-streaming JSON; the stored answer is the full text', async () => {
    const reply = 'Our store opens at nine and closes at six.';
    const { f, t, token, agent } = await openaiSetup({ reply, chunks: 4 });
    const source = await addText(
      t,
      token,
      agent.id,
      'Opening hours',
      'The store opens at nine in the morning and closes at six in the evening.',
    );

    const res = await publicChat(t, agent.id, { message: 'When does the store open?', session_id: 'stream-1' }, SSE);
    const { deltas, done } = streamedAnswer(res);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(reply);
    expectKeys(done, CHAT_KEYS);
    expect(done).toEqual({
      message: reply,
      conversation_id: expect.any(String),
      session_id: 'stream-1',
      sources: [{ source_id: source.id, name: 'Opening hours', url: null, title: null, page: null }],
      message_id: expect.any(String),
      handled_by: 'agent',
      action: null,
    });
    expect(chatRequests(f)[0]!.stream).toBe(true);

    // the same question without streaming gives the same shape
    const plain = (
      await publicChat(t, agent.id, { message: 'When does the store open?', session_id: 'stream-1' })
    ).json();
    expect(plain).toEqual({ ...done, message_id: expect.any(String) });

    const { messages } = await transcript(t, token, agent.id);
    expect(messages.get(done.conversation_id)!.map((m) => [m.role, m.content])).toEqual([
      ['user', 'When does the store open?'],
      ['assistant', reply],
      ['user', 'When does the store open?'],
      ['assistant', reply],
    ]);
  });

  it('POST /api/chat streams too, with a generated session id in done', async () => {
    const reply = 'Streaming for the owner works.';
    const { t, token, agent } = await openaiSetup({ reply, chunks: 3 });
    const res = await ownerChat(t, token, { chatbot_id: agent.id, message: 'Does streaming work?' }, SSE);
    const { deltas, done } = streamedAnswer(res);
    expect(deltas.join('')).toBe(reply);
    expect(done).toEqual({
      message: reply,
      conversation_id: expect.any(String),
      session_id: expect.stringMatching(UUID),
      sources: [],
      message_id: expect.any(String),
      handled_by: 'agent',
      action: null,
    });
    const { messages } = await transcript(t, token, agent.id);
    expect(messages.get(done.conversation_id)!.map((m) => m.content)).toEqual(['Does streaming work?', reply]);
  });

  it('an upstream failure after the stream began is an error event with a detail; the transcript stays consistent', async () => {
    const { f, t, token, agent } = await openaiSetup({ reply: 'AAAA-BBBB-CCCC', chunks: 3, dropAfterChunks: 1 });
    const res = await publicChat(t, agent.id, { message: 'Tell me everything', session_id: 'drop' }, SSE);
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
    const events = parseSse(res.body);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(Object.keys(last.data)).toEqual(['detail']);
    expect(typeof last.data.detail).toBe('string');
    expect(last.data.detail).toContain('openai');
    expect(res.body).not.toContain(KEY);
    expect(res.body).not.toContain(f.url);
    expect(events.filter((e) => e.event === 'done')).toHaveLength(0);
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(deltas.join('')).toBe('AAAA-');
    await f.waitForDisconnect();

    // what the visitor saw is what is stored (docs/API-NOTES.md "Providers"), and the counts agree
    const { messages, total } = await transcript(t, token, agent.id);
    const [list] = [...messages.values()];
    expect(list!.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Tell me everything'],
      ['assistant', 'AAAA-'],
    ]);
    expect(total).toBe(2);
  });

  it('a client that disconnects mid-stream (real socket) cancels the upstream call and leaves a consistent transcript', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    try {
      const { f, t, token, agent } = await openaiSetup({
        reply: 'First part. Second part. Third part.',
        chunks: 3,
        pauseAfterChunks: 1,
      });
      const port = await listen(t);
      const client = openSse(port, `/api/public/chat/${agent.id}`, {
        message: 'Tell me about the parts',
        session_id: 'leaver',
      });

      const first = await within(client.firstEvent, 5_000, 'the first delta');
      expect(first.status).toBe(200);
      expect(first.contentType).toMatch(/^text\/event-stream/);
      expect(first.event).toEqual({ event: 'delta', data: { text: 'First part. ' } });
      await within(f.waitForPause(), 5_000, 'the fake pausing');
      client.request.destroy(); // the visitor closes the tab

      const gone = await within(f.waitForDisconnect(), 5_000, 'the upstream call being cancelled');
      expect(gone.path).toBe('/v1/chat/completions');
      expect(gone.chunksSent).toBe(1);
      f.release();

      // the answer so far is stored (docs/API-NOTES.md "Providers": the transcript shows what the visitor saw)
      await vi.waitFor(
        async () => {
          const { total } = await transcript(t, token, agent.id);
          expect(total).toBe(2);
        },
        { timeout: 5_000, interval: 20 },
      );
      const { messages, conversations, agent: counts } = await transcript(t, token, agent.id);
      expect(conversations).toHaveLength(1);
      expect(messages.get(conversations[0]!.id)!.map((m) => [m.role, m.content])).toEqual([
        ['user', 'Tell me about the parts'],
        ['assistant', 'First part. '],
      ]);
      expect(counts.messages_count).toBe(2);
      expect(counts.conversations_count).toBe(1);

      // the server is fine: the next message in that session carries the partial answer as history
      f.setBehaviour({ pauseAfterChunks: undefined, reply: 'Welcome back.' });
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(health.status).toBe(200);
      const next = await fetch(`http://127.0.0.1:${port}/api/public/chat/${agent.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Are you there?', session_id: 'leaver' }),
      });
      expect(next.status).toBe(200);
      expect(((await next.json()) as Json).message).toBe('Welcome back.');
      expect(seen('openai', chatRequests(f).at(-1)!).turns).toEqual([
        { role: 'user', content: 'Tell me about the parts' },
        { role: 'assistant', content: 'First part. ' },
        { role: 'user', content: 'Are you there?' },
      ]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
    }
  });

  it('a client that leaves before any text (real socket) cancels the upstream call; only the question is stored', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { f, t, token, agent } = await openaiSetup({ reply: 'Never seen.', chunks: 2, pauseAfterChunks: 0 });
      const port = await listen(t);
      const client = openSse(port, `/api/public/chat/${agent.id}`, { message: 'Anyone there?', session_id: 'early' });
      await within(f.waitForPause(), 5_000, 'the fake pausing'); // the model started, no text yet
      client.request.destroy();
      const gone = await within(f.waitForDisconnect(), 5_000, 'the upstream call being cancelled');
      expect(gone.chunksSent).toBe(0);
      f.release();

      const { messages, conversations, agent: counts } = await transcript(t, token, agent.id);
      expect(conversations).toHaveLength(1);
      expect(messages.get(conversations[0]!.id)!.map((m) => [m.role, m.content])).toEqual([['user', 'Anyone there?']]);
      expect(counts.messages_count).toBe(1);

      // the conversation goes on normally, with no empty answer in its history
      f.setBehaviour({ pauseAfterChunks: undefined, reply: 'Yes, here.' });
      const next = await publicChat(t, agent.id, { message: 'Hello again?', session_id: 'early' });
      expect(next.statusCode, next.body).toBe(200);
      expect(seen('openai', chatRequests(f).at(-1)!).turns.map((x) => x.role)).not.toContain('assistant');
      expect((await transcript(t, token, agent.id)).total).toBe(3);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('provider failures', () => {
  it('a provider answering 500 twice gives 502 naming the provider (no key, no stack); the user message stays stored', async () => {
    const { f, t, token, agent } = await openaiSetup({ failTimes: 2, retryAfterMs: 5 });
    const res = await publicChat(t, agent.id, { message: 'Are you up?', session_id: 'fail' });
    expectSafe502(res, 'openai', f);
    expect(chatRequests(f)).toHaveLength(2); // one retry, then the failure

    const { messages, conversations, total } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(1);
    expect(messages.get(conversations[0]!.id)!.map((m) => [m.role, m.content])).toEqual([['user', 'Are you up?']]);
    expect(total).toBe(1);

    // streaming: the failure comes before any text, so it is a plain 502 JSON as well
    f.setBehaviour({ failTimes: 2 });
    const streamed = await publicChat(t, agent.id, { message: 'Still there?', session_id: 'fail' }, SSE);
    expectSafe502(streamed, 'openai', f);
    expect(streamed.headers['content-type']).toMatch(/application\/json/);
    // and the owner's route the same
    f.setBehaviour({ failTimes: 2 });
    expectSafe502(
      await ownerChat(t, token, { chatbot_id: agent.id, message: 'Owner asks', session_id: 'fail' }),
      'openai',
      f,
    );

    const after = await transcript(t, token, agent.id);
    expect(after.messages.get(conversations[0]!.id)!.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Are you up?'],
      ['user', 'Still there?'],
      ['user', 'Owner asks'],
    ]);

    // once the provider is back, the conversation goes on
    const ok = await publicChat(t, agent.id, { message: 'Now?', session_id: 'fail' });
    expect(ok.statusCode).toBe(200);
    expect((await transcript(t, token, agent.id)).total).toBe(5);
  });

  it('a hanging provider with LLM_TIMEOUT_S=1 gives 502, streaming or not', async () => {
    const { f, t, token, agent } = await openaiSetup({ hang: true }, { LLM_TIMEOUT_S: '1' });
    const started = Date.now();
    const [plain, streamed] = await Promise.all([
      publicChat(t, agent.id, { message: 'Hello?', session_id: 'hang-1' }),
      publicChat(t, agent.id, { message: 'Hello??', session_id: 'hang-2' }, SSE),
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expectSafe502(plain, 'openai', f);
    expect(plain.json().detail).toMatch(/time/);
    expectSafe502(streamed, 'openai', f);
    const { total, conversations } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(2);
    expect(total).toBe(2);
  });
});

describe("no key for the agent's provider: answers from the knowledge base", () => {
  it('quotes the matching passage and names its source, or says it could not find it (owner-editable); streaming too', async () => {
    const f = await fake('openai');
    // openai is configured, the agent uses anthropic, which has no key
    const t = await start(providerEnv(f, KEY));
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token, {
      provider: 'anthropic',
      welcome_message: 'Hello! Ask me about our lamps.',
    });
    const passage = 'Refunds for zebra lamps are accepted within 45 days of delivery when the box is unopened.';
    const source = await addText(t, token, agent.id, 'Refund policy', passage);
    await addText(t, token, agent.id, 'Parking', 'Free parking is available behind the warehouse on weekdays.');

    const res = await publicChat(t, agent.id, {
      message: 'What is the refund window for zebra lamps?',
      session_id: 'k',
    });
    const body = jsonOf(res, 200, CHAT_KEYS);
    expect(body.message).toContain(passage);
    expect(body.message).toMatch(/^>|\n>/m); // quoted
    expect(body.message).not.toContain('Free parking');
    expect(body.sources).toEqual([{ source_id: source.id, name: 'Refund policy', url: null, title: null, page: null }]);

    const none = (await publicChat(t, agent.id, { message: 'Do you sell xylophones?', session_id: 'k2' })).json();
    expect(none.message).toBe(DEFAULT_NO_ANSWER);
    expect(none.sources).toEqual([]);
    // a question sharing one common word with the knowledge ("lamps") is not answered with it
    const loose = (
      await publicChat(t, agent.id, { message: 'Do you repair broken desk lamps at home?', session_id: 'k4' })
    ).json();
    expect(loose).toMatchObject({ message: DEFAULT_NO_ANSWER, sources: [] });

    const streamed = streamedAnswer(
      await publicChat(t, agent.id, { message: 'zebra lamps refund?', session_id: 'k3' }, SSE),
    );
    expect(streamed.deltas.join('')).toBe(streamed.done.message);
    expect(streamed.done.message).toContain(passage);
    expect(streamed.done.sources).toEqual([
      { source_id: source.id, name: 'Refund policy', url: null, title: null, page: null },
    ]);

    // the owner words the fallback, and may hide citations from visitors (the owner still sees them)
    const custom = 'Sorry, I do not know that. Call us on 010 123 4567.';
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      no_answer_message: custom,
      show_sources: false,
    });
    expect(put.statusCode, put.body).toBe(200);
    const streamedNone = streamedAnswer(
      await ownerChat(t, token, { chatbot_id: agent.id, message: 'xylophones?' }, SSE),
    );
    expect(streamedNone.done.message).toBe(custom);
    expect(streamedNone.deltas.join('')).toBe(custom);
    const hidden = (
      await publicChat(t, agent.id, { message: 'What is the refund window for zebra lamps?', session_id: 'k5' })
    ).json();
    expect(hidden.message).toContain(passage);
    expect(hidden.sources).toEqual([]);
    const owners = (
      await ownerChat(t, token, { chatbot_id: agent.id, message: 'What is the refund window for zebra lamps?' })
    ).json();
    expect(owners.sources).toEqual([
      { source_id: source.id, name: 'Refund policy', url: null, title: null, page: null },
    ]);

    expect(chatRequests(f)).toHaveLength(0);
    const { messages, total } = await transcript(t, token, agent.id);
    expect(total).toBe(14);
    expect(messages.get(body.conversation_id)!.map((m) => m.content)).toEqual([
      'What is the refund window for zebra lamps?',
      body.message,
    ]);
  });

  it('works with no provider configured at all (nothing in the knowledge: the no-answer sentence)', async () => {
    const t = await start();
    const { agent } = await accountWithAgent(t.app);
    const res = await publicChat(t, agent.id, { message: 'anything at all?', session_id: 'x' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      message: DEFAULT_NO_ANSWER,
      conversation_id: expect.any(String),
      session_id: 'x',
      sources: [],
      message_id: expect.any(String),
      handled_by: 'agent',
      action: null,
    });
  });
});

describe('sources in answers', () => {
  it('lists the knowledge sources given to the model, in the JSON and in the done event', async () => {
    const { f, t, token, agent } = await openaiSetup({ reply: 'See our policy.' });
    const returns = await addText(t, token, agent.id, 'Returns', 'Returns of garden gnomes are free within 30 days.');
    await addText(t, token, agent.id, 'Shipping', 'Parcels ship by courier on weekdays.');

    const plain = (await publicChat(t, agent.id, { message: 'Can I return a garden gnome?', session_id: 's' })).json();
    expect(plain.sources).toEqual([{ source_id: returns.id, name: 'Returns', url: null, title: null, page: null }]);
    const system = seen('openai', chatRequests(f)[0]!).system;
    expect(system).toContain('Returns of garden gnomes are free within 30 days.');
    expect(system).not.toContain('Parcels ship by courier');

    const { done } = streamedAnswer(
      await publicChat(t, agent.id, { message: 'garden gnome returns?', session_id: 's' }, SSE),
    );
    expect(done.sources).toEqual([{ source_id: returns.id, name: 'Returns', url: null, title: null, page: null }]);

    const nothing = (await publicChat(t, agent.id, { message: 'Do you like jazz?', session_id: 's' })).json();
    expect(nothing.sources).toEqual([]);
    expect(seen('openai', chatRequests(f).at(-1)!).system).not.toContain('garden gnomes');
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(['openai', 'anthropic', 'google', 'ollama'] as const)(
  'the %s provider wired through the app',
  (provider) => {
    it('sends model, temperature, max tokens, instructions with the reference passage, and the history; streaming and not', async () => {
      const f = await fake(provider, { chunks: 3 });
      const t = await start(providerEnv(f, KEY));
      const { token } = await registerUser(t.app);
      const instructions = `You are Pip, the ${provider} pastry assistant. Always mention the bakery by name.`;
      const agent = await createAgent(t.app, token, {
        provider,
        model: `${provider}-model-x1`,
        temperature: 0.2,
        max_tokens: 123,
        instructions,
      });
      const phrase = 'The quokka pie at Zanzibar Bakery is glazed with violet saffron from Cappadocia.';
      await addText(
        t,
        token,
        agent.id,
        'Menu notes',
        `Our menu changes every season.\n\n${phrase}\n\nWe are closed on Mondays.`,
      );

      f.setBehaviour({ reply: 'It is glazed with violet saffron.' });
      const first = await publicChat(t, agent.id, {
        message: 'What is the quokka pie glazed with?',
        session_id: `p-${provider}`,
      });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json().message).toBe('It is glazed with violet saffron.');

      /** The fake's `n`th chat request, its last so far: the agent's model, temperature, max tokens and instructions, streamed or not. */
      const sentWithSettings = (n: number, stream: boolean) => {
        expect(chatRequests(f)).toHaveLength(n);
        const sent = seen(provider, chatRequests(f)[n - 1]!);
        expect(sent.stream).toBe(stream);
        expect(sent.model).toBe(`${provider}-model-x1`);
        expect(sent.temperature).toBeCloseTo(0.2, 6);
        expect(sent.maxTokens).toBe(123);
        expect(sent.system.startsWith(instructions)).toBe(true);
        return sent;
      };
      const one = sentWithSettings(1, false);
      const marker = one.system.indexOf('reference material');
      expect(marker).toBeGreaterThan(0);
      expect(one.system.indexOf(phrase)).toBeGreaterThan(marker);
      expect(one.system).toContain('(source: Menu notes)');
      expect(one.turns).toEqual([{ role: 'user', content: 'What is the quokka pie glazed with?' }]);

      f.setBehaviour({ reply: 'Zanzibar Bakery bakes it on Tuesdays.' });
      const second = streamedAnswer(
        await publicChat(t, agent.id, { message: 'When is the quokka pie baked?', session_id: `p-${provider}` }, SSE),
      );
      expect(second.deltas.join('')).toBe('Zanzibar Bakery bakes it on Tuesdays.');
      expect(second.done.message).toBe('Zanzibar Bakery bakes it on Tuesdays.');
      expect(second.done.conversation_id).toBe(first.json().conversation_id);

      const two = sentWithSettings(2, true);
      expect(two.system).toContain(phrase);
      expect(two.turns).toEqual([
        { role: 'user', content: 'What is the quokka pie glazed with?' },
        { role: 'assistant', content: 'It is glazed with violet saffron.' },
        { role: 'user', content: 'When is the quokka pie baked?' },
      ]);

      const { messages, total } = await transcript(t, token, agent.id);
      expect(total).toBe(4);
      expect(messages.get(second.done.conversation_id)!.map((m) => m.content)).toEqual([
        'What is the quokka pie glazed with?',
        'It is glazed with violet saffron.',
        'When is the quokka pie baked?',
        'Zanzibar Bakery bakes it on Tuesdays.',
      ]);
    });
  },
);

describe('concurrency', () => {
  it('50 concurrent public chats with distinct sessions: all 200, 50 conversations, 100 messages, counts 100/50', async () => {
    const { f, t, token, agent } = await openaiSetup({ reply: (req) => `Echo: ${req.body.messages.at(-1).content}` });
    const sessions = Array.from({ length: 50 }, (_, i) => `session-${i}`);
    const results = await Promise.all(
      sessions.map((s) => publicChat(t, agent.id, { message: `Question from ${s}`, session_id: s })),
    );
    for (const [i, res] of results.entries()) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ session_id: sessions[i], message: `Echo: Question from ${sessions[i]}` });
    }
    expect(new Set(results.map((r) => r.json().conversation_id)).size).toBe(50);
    expect(chatRequests(f)).toHaveLength(50);

    const { conversations, messages, agent: counts, total } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(50);
    expect(total).toBe(100);
    expect(counts.messages_count).toBe(100);
    expect(counts.conversations_count).toBe(50);
    for (const c of conversations) {
      const list = messages.get(c.id)!;
      expect(list.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(list[1]!.content).toBe(`Echo: ${list[0]!.content}`);
      expect(list[0]!.content).toBe(`Question from ${c.session_id}`);
    }
  });

  it('concurrent messages in one new session make exactly one conversation', async () => {
    const { t, token, agent } = await openaiSetup();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => publicChat(t, agent.id, { message: `m${i}`, session_id: 'same' })),
    );
    for (const res of results) expect(res.statusCode, res.body).toBe(200);
    expect(new Set(results.map((r) => r.json().conversation_id)).size).toBe(1);
    const { conversations, total, agent: counts } = await transcript(t, token, agent.id);
    expect(conversations).toHaveLength(1);
    expect(total).toBe(20);
    expect(counts.conversations_count).toBe(1);
  });
});
