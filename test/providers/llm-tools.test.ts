import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatRequest,
  createLlmProvider,
  type LlmProvider,
  NO_MORE_TOOLS_NOTE,
  type ProviderName,
  runToolLoop,
  type StepEvent,
  type ToolCall,
  type ToolOutcome,
  type ToolSpec,
} from '../../src/providers/llm/index.js';
import {
  type FakeBehaviour,
  type FakeLlm,
  type FakeToolReply,
  type RecordedRequest,
  startFakeLlm,
} from '../helpers/fake-llm.js';
import { fakeThoughtSignature } from '../helpers/fake-llm-tools.js';
import { providerError } from '../helpers/llm-errors.js';

const KEY = 'sk-test-tools-key';
const SYSTEM = 'You are a test bot with tools.';
const QUESTION = 'Where are my orders A1 and B2?';

const TOOLS: ToolSpec[] = [
  {
    name: 'lookup_order',
    description: 'Looks an order up',
    parameters: [
      { name: 'order', description: 'the order number', required: true },
      { name: 'note', description: 'anything else', required: false },
    ],
  },
];
const SCHEMA = {
  type: 'object',
  properties: {
    order: { type: 'string', description: 'the order number' },
    note: { type: 'string', description: 'anything else' },
  },
  required: ['order'],
};

/** the first step: some text and two calls */
const CALLS: FakeToolReply = {
  text: 'Let me look.',
  toolCalls: [
    { name: 'lookup_order', arguments: { order: 'A1' } },
    { name: 'lookup_order', arguments: { order: 'B2' } },
  ],
};
const ANSWER = 'Both have shipped.';

interface Case {
  name: ProviderName;
  model: string;
  /** the request carries TOOLS in the provider's shape */
  expectTools(body: any): void;
  /** whether the request carries tools at all */
  hasTools(body: any): boolean;
  /** the second request's history: the question, CALLS with results 'A1 shipped' and 'B2 shipped' */
  expectHistory(body: any): void;
  /** the content of the last tool result in a request */
  lastResult(body: any): string;
}

/** openai and ollama: TOOLS as `{ type: 'function', function }` */
const expectFunctionTools = (body: any) =>
  expect(body.tools).toEqual([
    { type: 'function', function: { name: 'lookup_order', description: 'Looks an order up', parameters: SCHEMA } },
  ]);

/**
 * openai and ollama: the system and the question, the assistant's text with the calls for A1 and B2,
 * then one tool message per result, each in the provider's shape (`wire(order, index)`)
 */
const expectMessagesHistory =
  (wire: (order: string, index: number) => { call: unknown; result: unknown }) => (body: any) => {
    const steps = ['A1', 'B2'].map(wire);
    expect(body.messages).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: 'Let me look.', tool_calls: steps.map((step) => step.call) },
      ...steps.map((step) => step.result),
    ]);
  };

const cases: Case[] = [
  {
    name: 'openai',
    model: 'gpt-test',
    expectTools: expectFunctionTools,
    hasTools: (body) => 'tools' in body,
    expectHistory: expectMessagesHistory((order, i) => ({
      call: {
        id: `call_${i}`,
        type: 'function',
        function: { name: 'lookup_order', arguments: `{"order":"${order}"}` },
      },
      result: { role: 'tool', tool_call_id: `call_${i}`, content: `${order} shipped` },
    })),
    lastResult: (body) => body.messages.at(-1).content,
  },
  {
    name: 'anthropic',
    model: 'claude-test',
    expectTools: (body) =>
      expect(body.tools).toEqual([{ name: 'lookup_order', description: 'Looks an order up', input_schema: SCHEMA }]),
    hasTools: (body) => 'tools' in body,
    expectHistory: (body) =>
      expect(body.messages).toEqual([
        { role: 'user', content: QUESTION },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_0', name: 'lookup_order', input: { order: 'A1' } },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup_order', input: { order: 'B2' } },
          ],
        },
        // consecutive results: one user message
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_0', content: 'A1 shipped' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'B2 shipped' },
          ],
        },
      ]),
    // without tools the API refuses tool blocks: the adapter writes them as text
    lastResult: (body) => {
      const content = body.messages.at(-1).content;
      return typeof content === 'string' ? content : content.at(-1).content;
    },
  },
  {
    name: 'google',
    model: 'gemini-test',
    expectTools: (body) =>
      expect(body.tools).toEqual([
        {
          functionDeclarations: [
            {
              name: 'lookup_order',
              description: 'Looks an order up',
              parameters: {
                type: 'OBJECT',
                properties: {
                  order: { type: 'STRING', description: 'the order number' },
                  note: { type: 'STRING', description: 'anything else' },
                },
                required: ['order'],
              },
            },
          ],
        },
      ]),
    hasTools: (body) => 'tools' in body,
    expectHistory: (body) =>
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: QUESTION }] },
        {
          role: 'model',
          parts: [
            { text: 'Let me look.' },
            // the fake gave no ids: the made-up ones stay here; the thought signatures go back
            {
              functionCall: { name: 'lookup_order', args: { order: 'A1' } },
              thoughtSignature: fakeThoughtSignature(0),
            },
            {
              functionCall: { name: 'lookup_order', args: { order: 'B2' } },
              thoughtSignature: fakeThoughtSignature(1),
            },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'lookup_order', response: { result: 'A1 shipped' } } },
            { functionResponse: { name: 'lookup_order', response: { result: 'B2 shipped' } } },
          ],
        },
      ]),
    lastResult: (body) => body.contents.at(-1).parts.at(-1).functionResponse.response.result,
  },
  {
    name: 'ollama',
    model: 'llama-test',
    expectTools: expectFunctionTools,
    hasTools: (body) => 'tools' in body,
    expectHistory: expectMessagesHistory((order) => ({
      call: { function: { name: 'lookup_order', arguments: { order } } },
      result: { role: 'tool', content: `${order} shipped`, tool_name: 'lookup_order' },
    })),
    lastResult: (body) => body.messages.at(-1).content,
  },
];

/** registers an afterEach that closes the fakes it started; gives the function that starts one */
function closingFakes(): (name: ProviderName, behaviour: Partial<FakeBehaviour>) => Promise<FakeLlm> {
  const open: FakeLlm[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((f) => f.close()));
  });
  return async (name, behaviour) => {
    const f = await startFakeLlm(name, behaviour);
    open.push(f);
    return f;
  };
}

function toolProvider(name: ProviderName, f: FakeLlm, timeoutMs = 5_000): LlmProvider {
  return createLlmProvider(name, {
    apiKey: name === 'ollama' ? undefined : KEY,
    baseURL: f.baseURL,
    host: f.baseURL,
    timeoutMs,
  });
}

/** the question with TOOLS offered */
function toolRequest(extra: Partial<ChatRequest> & { model: string }): ChatRequest {
  return {
    system: SYSTEM,
    messages: [{ role: 'user', content: QUESTION }],
    temperature: 0.2,
    maxTokens: 300,
    tools: TOOLS,
    ...extra,
  };
}

/** execute for the loop: records the calls, answers '<order> shipped' */
function executor(outcome?: (call: ToolCall) => ToolOutcome) {
  const seen: ToolCall[] = [];
  return {
    seen,
    execute: async (call: ToolCall): Promise<ToolOutcome> => {
      seen.push(call);
      return outcome?.(call) ?? { content: `${String(call.arguments.order)} shipped` };
    },
  };
}

const modes = [
  { mode: 'streamed', streamed: true },
  { mode: 'not streamed', streamed: false },
];

describe.each(cases)('$name: tool calls against its fake server', (c) => {
  const startFake = closingFakes();
  const provider = (f: FakeLlm) => toolProvider(c.name, f);
  const request = (extra: Partial<ChatRequest> = {}) => toolRequest({ model: c.model, ...extra });

  /** a fake whose replies are `replies(n)` for its n-th request (0-based) */
  function start(replies: (n: number, req: RecordedRequest) => string | FakeToolReply): Promise<FakeLlm> {
    let n = 0;
    return startFake(c.name, { reply: (req) => replies(n++, req) });
  }

  /** runToolLoop on the fake `f` with `run` executing; streamed: collects the deltas */
  async function loop(f: FakeLlm, streamed: boolean, maxCalls: number, run = executor()) {
    const deltas: string[] = [];
    const result = await runToolLoop({
      provider: provider(f),
      request: request(),
      maxCalls,
      execute: run.execute,
      ...(streamed ? { onDelta: (d: string) => deltas.push(d) } : {}),
    });
    return { result, deltas, seen: run.seen };
  }

  it.each(modes)(
    '$mode: tools go out in the provider shape, a call comes back whole, the next request carries the call and its result',
    async ({ streamed }) => {
      const f = await start((n) => (n === 0 ? CALLS : ANSWER));
      const { result, deltas, seen } = await loop(f, streamed, 5);
      expect(result).toEqual({ text: `Let me look.${ANSWER}`, calls: 2, ended: 'answered' });
      if (streamed) expect(deltas.join('')).toBe(result.text);
      expect(seen.map((call) => [call.name, call.arguments])).toEqual([
        ['lookup_order', { order: 'A1' }],
        ['lookup_order', { order: 'B2' }],
      ]);
      expect(new Set(seen.map((call) => call.id)).size).toBe(2);
      expect(f.requests).toHaveLength(2);
      for (const req of f.requests) expect(req.stream).toBe(streamed);
      c.expectTools(f.requests[0]!.body);
      c.expectTools(f.requests[1]!.body);
      c.expectHistory(f.requests[1]!.body);
    },
  );

  it.each(modes)(
    '$mode: step yields the text, then each call once whole; completeStep gives both',
    async ({ streamed }) => {
      const f = await start(() => CALLS);
      const p = provider(f);
      let text = '';
      let calls: ToolCall[] = [];
      if (streamed) {
        const events: StepEvent[] = [];
        for await (const event of p.step(request())) events.push(event);
        const firstCall = events.findIndex((e) => e.type === 'tool-call');
        expect(events.slice(firstCall).every((e) => e.type === 'tool-call')).toBe(true);
        for (const e of events) {
          if (e.type === 'text') text += e.text;
          else calls.push(e.call);
        }
      } else ({ text, toolCalls: calls } = await p.completeStep(request()));
      expect(text).toBe('Let me look.');
      expect(calls.map((call) => [call.name, call.arguments])).toEqual([
        ['lookup_order', { order: 'A1' }],
        ['lookup_order', { order: 'B2' }],
      ]);
      for (const call of calls) expect(call.id).toMatch(/^\S+$/);
    },
  );

  it.each(modes)(
    '$mode: a model that always calls a tool is stopped after maxCalls and asked once more without tools',
    async ({ streamed }) => {
      const f = await start((n, req) =>
        c.hasTools(req.body)
          ? { toolCalls: [{ name: 'lookup_order', arguments: { order: `A${n}` } }] }
          : 'Final words.',
      );
      const { result, seen } = await loop(f, streamed, 2);
      expect(result).toEqual({ text: 'Final words.', calls: 2, ended: 'cap' });
      expect(seen).toHaveLength(2);
      expect(f.requests).toHaveLength(3);
      expect(c.hasTools(f.requests[0]!.body)).toBe(true);
      expect(c.hasTools(f.requests[1]!.body)).toBe(true);
      const last = f.requests[2]!.body;
      expect(c.hasTools(last)).toBe(false);
      expect(c.lastResult(last)).toContain('A1 shipped');
      expect(c.lastResult(last)).toContain(NO_MORE_TOOLS_NOTE);
    },
  );

  it.each(modes)('$mode: a call to a tool not offered gets an error result and is not run', async ({ streamed }) => {
    const f = await start((n) => (n === 0 ? { toolCalls: [{ name: 'drop_tables', arguments: {} }] } : ANSWER));
    const { result, seen } = await loop(f, streamed, 3);
    expect(result).toEqual({ text: ANSWER, calls: 1, ended: 'answered' });
    expect(seen).toEqual([]);
    expect(c.lastResult(f.requests[1]!.body)).toBe('Error: there is no tool named drop_tables');
  });

  it.each(modes)('$mode: a paused outcome ends the turn at once with the text so far', async ({ streamed }) => {
    const f = await start(() => CALLS);
    const pause = executor(() => ({ content: 'waiting for the visitor', pause: true }));
    const { result, deltas, seen } = await loop(f, streamed, 5, pause);
    expect(result).toEqual({ text: 'Let me look.', calls: 1, ended: 'paused' });
    expect(seen).toHaveLength(1);
    expect(f.requests).toHaveLength(1);
    if (streamed) expect(deltas.join('')).toBe('Let me look.');
  });

  it.each(modes)('$mode: arguments that are not a JSON object read as {}', async ({ streamed }) => {
    const f = await start(() => ({
      toolCalls: [
        { name: 'lookup_order', arguments: '{"order": "A1"' },
        { name: 'lookup_order', arguments: '["A1"]' },
      ],
    }));
    const p = provider(f);
    let calls: ToolCall[] = [];
    if (streamed) {
      for await (const event of p.step(request())) if (event.type === 'tool-call') calls.push(event.call);
    } else calls = (await p.completeStep(request())).toolCalls;
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ['lookup_order', {}],
      ['lookup_order', {}],
    ]);
  });

  it('step and completeStep keep the guard: a server that never answers times out, an aborted signal aborts', async () => {
    const p = toolProvider(c.name, await startFake(c.name, { hang: true }), 300);
    const drain = async (req: ChatRequest) => {
      for await (const _ of p.step(req));
    };
    expect(await providerError(drain(request()))).toMatchObject({ provider: c.name, kind: 'timeout' });
    expect(await providerError(p.completeStep(request()))).toMatchObject({ kind: 'timeout' });
    const signal = AbortSignal.abort();
    expect(await providerError(drain(request({ signal })))).toMatchObject({ kind: 'aborted' });
    expect(await providerError(p.completeStep(request({ signal })))).toMatchObject({ kind: 'aborted' });
  });

  it('complete and stream without tools send none', async () => {
    const f = await start(() => ANSWER);
    const p = provider(f);
    await expect(p.complete(request({ tools: undefined }))).resolves.toBe(ANSWER);
    let streamed = '';
    for await (const delta of p.stream(request({ tools: [] }))) streamed += delta;
    expect(streamed).toBe(ANSWER);
    for (const req of f.requests) expect(c.hasTools(req.body)).toBe(false);
  });
});

describe('ids the model gave go back with its results (google, ollama)', () => {
  const startFake = closingFakes();

  it.each(['google', 'ollama'] as const)('%s', async (name) => {
    let n = 0;
    const fake = await startFake(name, {
      reply: () =>
        n++ === 0 ? { toolCalls: [{ id: 'fc-7', name: 'lookup_order', arguments: { order: 'A1' } }] } : ANSWER,
    });
    const run = executor();
    const result = await runToolLoop({
      provider: toolProvider(name, fake),
      request: toolRequest({ model: 'm' }),
      maxCalls: 3,
      execute: run.execute,
    });
    expect(result.ended).toBe('answered');
    expect(run.seen.map((call) => call.id)).toEqual(['fc-7']);
    const body = fake.requests[1]!.body;
    if (name === 'google') {
      expect(body.contents[1].parts[0].functionCall).toEqual({
        id: 'fc-7',
        name: 'lookup_order',
        args: { order: 'A1' },
      });
      expect(body.contents[2].parts[0].functionResponse).toEqual({
        id: 'fc-7',
        name: 'lookup_order',
        response: { result: 'A1 shipped' },
      });
    } else expect(body.messages.at(-1)).toEqual({ role: 'tool', content: 'A1 shipped', tool_name: 'lookup_order' });
  });
});

describe('runToolLoop: calls beyond the cap within one step', () => {
  const startFake = closingFakes();

  it('are answered with an error and not run; the model then answers without tools', async () => {
    const fake = await startFake('openai', { reply: (req) => ('tools' in req.body ? CALLS : ANSWER) });
    const run = executor();
    const result = await runToolLoop({
      provider: toolProvider('openai', fake),
      request: toolRequest({ model: 'm', system: '' }),
      maxCalls: 1,
      execute: run.execute,
    });
    expect(result).toEqual({ text: `Let me look.${ANSWER}`, calls: 1, ended: 'cap' });
    expect(run.seen).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests[1]!.body.messages.slice(-2);
    expect(first).toEqual({ role: 'tool', tool_call_id: 'call_0', content: 'A1 shipped' });
    expect(second.tool_call_id).toBe('call_1');
    expect(second.content).toMatch(/^Error: the tool lookup_order was not run/);
    expect(second.content).toContain(NO_MORE_TOOLS_NOTE);
  });
});
