import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { buildTurns } from '../../src/modules/chat/prompt.js';
import type { ChatTurn } from '../../src/providers/llm/types.js';
import { auth, useTestApps, type TestApp } from '../helpers/app.js';
import { chatRequests, providerSetup, publicChat, SSE } from '../helpers/chat.js';
import type { FakeBehaviour, FakeProviderName, RecordedRequest } from '../helpers/fake-llm.js';

/**
 * Answers cut off mid-way (issue 21.9), through the whole app and the real SDKs of the four
 * providers talking to fake servers: a stream the provider drops is stored with its partial text
 * and marked `interrupted`, and the turns sent to a provider stay valid (start with the user,
 * strictly alternate, end with the new message, no empty text) after a turn that got no answer.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-SECRET-interrupted-key-0123456789';

const apps = useTestApps();

/** An app wired to a fake `provider`, one account and one agent on that provider. */
const setup = (provider: FakeProviderName, behaviour: Partial<FakeBehaviour> = {}) =>
  providerSetup(
    apps,
    provider,
    KEY,
    { name: `${provider} helper`, provider, model: `${provider}-model` },
    { behaviour },
  );

async function getJson(t: TestApp, url: string, token: string): Promise<any> {
  const res = await t.app.inject({ method: 'GET', url, headers: auth(token) });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
}

const user = (content: string): ChatTurn => ({ role: 'user', content });
const assistant = (content: string): ChatTurn => ({ role: 'assistant', content });

/** The messages of the agent's only conversation, as listed by the API. */
async function listed(t: TestApp, token: string, agentId: string): Promise<Json[]> {
  const conversations: Json[] = await getJson(t, `/api/chat/conversations/${agentId}`, token);
  expect(conversations).toHaveLength(1);
  const list: Json[] = await getJson(t, `/api/chat/messages/${conversations[0]!.id}`, token);
  expect(conversations[0]!.message_count).toBe(list.length);
  return list;
}

/** Role, content and `interrupted` of each message of the agent's only conversation. */
async function transcript(t: TestApp, token: string, agentId: string): Promise<unknown[][]> {
  return (await listed(t, token, agentId)).map((m) => [m.role, m.content, m.interrupted]);
}

function parseSse(body: string): Array<{ event: string; data: any }> {
  return body
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const [event, data] = block.split('\n');
      expect(event).toMatch(/^event: (delta|done|error)$/);
      return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
    });
}

/** The user/assistant turns a fake received, read the same way for every provider. */
function turnsSent(provider: FakeProviderName, req: RecordedRequest): Array<{ role: string; content: string }> {
  const b = req.body;
  switch (provider) {
    case 'openai':
    case 'ollama':
      return b.messages
        .filter((m: Json) => m.role !== 'system' && m.role !== 'developer')
        .map((m: Json) => ({ role: m.role, content: m.content }));
    case 'anthropic':
      return b.messages.map((m: Json) => ({
        role: m.role,
        content: typeof m.content === 'string' ? m.content : m.content.map((p: Json) => p.text).join(''),
      }));
    case 'google':
      return b.contents.map((c: Json) => ({
        role: c.role === 'model' ? 'assistant' : c.role,
        content: c.parts.map((p: Json) => p.text).join(''),
      }));
  }
}

/** What every provider accepts: user first and last, strictly alternating, no empty text. */
function expectValidTurns(turns: Array<{ role: string; content: string }>): void {
  expect(turns.length).toBeGreaterThan(0);
  turns.forEach((turn, i) => {
    expect(turn.role, `turn ${i}`).toBe(i % 2 === 0 ? 'user' : 'assistant');
    expect(turn.content.trim(), `turn ${i}`).not.toBe('');
  });
  expect(turns.at(-1)!.role).toBe('user');
}

// ---------------------------------------------------------------------------------------------

describe.each(['openai', 'anthropic', 'google', 'ollama'] as const)(
  '%s: an answer cut off by the provider',
  (provider) => {
    it('a stream dropped mid-way: the visitor gets the partial text then an error event; it is stored and listed as interrupted, and kept as history', async () => {
      const { f, t, token, agent } = await setup(provider, { reply: 'AAAA-BBBB-CCCC', chunks: 3, dropAfterChunks: 1 });

      const res = await publicChat(t, agent.id, { message: 'Tell me everything', session_id: 's' }, SSE);
      expect(res.statusCode, res.body).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
      const events = parseSse(res.body);
      expect(
        events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('AAAA-');
      expect(events.filter((e) => e.event === 'done')).toHaveLength(0);
      const last = events.at(-1)!;
      expect(last.event).toBe('error');
      expect(Object.keys(last.data)).toEqual(['detail']);
      expect(last.data.detail).toContain(provider);
      expect(last.data.detail).toMatch(/the answer was cut off$/);
      expect(res.body).not.toContain(KEY);
      expect(res.body).not.toContain(f.url);

      expect(await transcript(t, token, agent.id)).toEqual([
        ['user', 'Tell me everything', false],
        ['assistant', 'AAAA-', true],
      ]);

      // the next turn: the partial answer is history as the visitor saw it; a whole answer is not marked
      f.setBehaviour({ dropAfterChunks: undefined, reply: 'The rest: BBBB-CCCC' });
      const next = await publicChat(t, agent.id, { message: 'Go on', session_id: 's' }, SSE);
      expect(parseSse(next.body).at(-1)!.event).toBe('done');
      const turns = turnsSent(provider, chatRequests(f).at(-1)!);
      expect(turns).toEqual([user('Tell me everything'), assistant('AAAA-'), user('Go on')]);
      expect(await transcript(t, token, agent.id)).toEqual([
        ['user', 'Tell me everything', false],
        ['assistant', 'AAAA-', true],
        ['user', 'Go on', false],
        ['assistant', 'The rest: BBBB-CCCC', false],
      ]);
    });

    it('after a turn that failed before any text (502), the next request strictly alternates, the unanswered question merged into the new one', async () => {
      const { f, t, token, agent } = await setup(provider, { reply: 'First answer.', retryAfterMs: 5 });
      expect((await publicChat(t, agent.id, { message: 'First question', session_id: 's' })).statusCode).toBe(200);

      // the provider fails twice (the adapter's one retry too): 502, only the question is stored
      f.setBehaviour({ failTimes: 2, failStatus: 502 });
      const failed = await publicChat(t, agent.id, { message: 'Second question', session_id: 's' }, SSE);
      expect(failed.statusCode, failed.body).toBe(502);
      expect(failed.json().detail).toContain(provider);

      f.setBehaviour({ reply: 'Both answered.' });
      const ok = await publicChat(t, agent.id, { message: 'Third question', session_id: 's' });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().message).toBe('Both answered.');

      const turns = turnsSent(provider, chatRequests(f).at(-1)!);
      expectValidTurns(turns);
      expect(turns).toEqual([
        user('First question'),
        assistant('First answer.'),
        user('Second question\n\nThird question'),
      ]);
      // the transcript keeps what happened: the unanswered question on its own
      expect(await transcript(t, token, agent.id)).toEqual([
        ['user', 'First question', false],
        ['assistant', 'First answer.', false],
        ['user', 'Second question', false],
        ['user', 'Third question', false],
        ['assistant', 'Both answered.', false],
      ]);
    });
  },
);

describe('a visitor who leaves mid-answer', () => {
  it('the text streamed so far is stored and marked interrupted (real socket)', async () => {
    const { f, t, token, agent } = await setup('openai', {
      reply: 'First part. Second part.',
      chunks: 2,
      pauseAfterChunks: 1,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;

    let request!: http.ClientRequest;
    const firstDelta = new Promise<string>((resolve, reject) => {
      request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/public/chat/${agent.id}`,
          headers: { 'content-type': 'application/json', ...SSE },
        },
        (res) => {
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            if (buffer.includes('\n\n')) resolve(buffer);
          });
          res.on('error', () => {});
          res.on('end', () => reject(new Error(`ended before an event: ${buffer}`)));
        },
      );
      request.on('error', () => {});
      request.end(JSON.stringify({ message: 'Tell me about the parts', session_id: 'leaver' }));
    });
    expect(parseSse(await firstDelta)[0]).toEqual({ event: 'delta', data: { text: 'First part. ' } });
    await f.waitForPause();
    request.destroy(); // the visitor closes the tab
    await f.waitForDisconnect();
    f.release();

    await vi.waitFor(async () => expect(await listed(t, token, agent.id)).toHaveLength(2), {
      timeout: 5_000,
      interval: 20,
    });
    expect(await transcript(t, token, agent.id)).toEqual([
      ['user', 'Tell me about the parts', false],
      ['assistant', 'First part. ', true],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('buildTurns on odd histories', () => {
  it('merges a question that got no answer into the next one (blank line between), so no two user turns follow each other', () => {
    expect(buildTurns([user('A')], 'B')).toEqual([user('A\n\nB')]);
    expect(buildTurns([user('Q1'), assistant('R1'), user('Q2'), user('Q3')], 'Q4')).toEqual([
      user('Q1'),
      assistant('R1'),
      user('Q2\n\nQ3\n\nQ4'),
    ]);
  });

  it('a history that starts with the assistant loses its leading answers, then merges what follows', () => {
    expect(buildTurns([assistant('Welcome'), user('A')], 'B')).toEqual([user('A\n\nB')]);
    expect(buildTurns([assistant('W1'), assistant('W2'), user('A'), assistant('R')], 'B')).toEqual([
      user('A'),
      assistant('R'),
      user('B'),
    ]);
    expect(buildTurns([assistant('only an answer')], 'B')).toEqual([user('B')]);
  });

  it('never sends empty text: an empty or blank message is left out, and what surrounds it still alternates', () => {
    expect(buildTurns([user('A'), assistant(''), user('B')], 'C')).toEqual([user('A\n\nB\n\nC')]);
    expect(buildTurns([user('A'), assistant('  \n ')], 'B')).toEqual([user('A\n\nB')]);
    expect(buildTurns([user(''), assistant('R'), user('A')], 'B')).toEqual([user('A\n\nB')]);
  });

  it('keeps a partial (interrupted) answer as it is, and merges two answers in a row', () => {
    expect(buildTurns([user('A'), assistant('Half an ans')], 'B')).toEqual([
      user('A'),
      assistant('Half an ans'),
      user('B'),
    ]);
    expect(buildTurns([user('A'), assistant('X'), assistant('Y')], 'B')).toEqual([
      user('A'),
      assistant('X\n\nY'),
      user('B'),
    ]);
  });

  it('a question sent again after a failure (the retry button) is not doubled', () => {
    expect(buildTurns([user('Q1'), assistant('R1'), user('Same?')], 'Same?')).toEqual([
      user('Q1'),
      assistant('R1'),
      user('Same?'),
    ]);
  });

  it('any mix of roles and empty texts gives valid turns that end with the new message and lose no text', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 500; round++) {
      const history: ChatTurn[] = Array.from({ length: Math.floor(rand() * 8) }, (_, i) => ({
        role: rand() < 0.5 ? 'user' : 'assistant',
        content: rand() < 0.2 ? (rand() < 0.5 ? '' : ' ') : `m${round}-${i}`,
      }));
      const turns = buildTurns(history, `new${round}`);
      expectValidTurns(turns);
      expect(turns.at(-1)!.content.endsWith(`new${round}`)).toBe(true);
      // every user text after the first kept user turn is still there
      const firstUser = history.findIndex((h) => h.role === 'user' && h.content.trim());
      const text = turns.map((x) => x.content).join('\n\n');
      for (const h of history.slice(Math.max(firstUser, 0)))
        if (h.role === 'user' && h.content.trim()) expect(text).toContain(h.content);
    }
  });
});
