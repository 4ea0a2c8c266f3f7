import type OpenAI from 'openai';
import { lazy } from '../../platform/lazy.js';
import { lightFetch } from '../light-fetch.js';
import { ProviderError } from './errors.js';
import { SharedClientProvider, type StepReader } from './adapter.js';
import type { ChatRequest, ProviderDefinition, StepEvent, StepResult, ToolCall } from './contract.js';
import { type CallGuard, sdkProviderError, type StopReason } from './guard.js';
import { madeUpCallId, parseArguments, toolCallEvent, toolSchema, toolsOf } from './tool-wire.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const PROVIDER = 'openai';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('openai'));

/**
 * OpenAI and OpenAI-compatible servers through the `openai` SDK (chat completions).
 *
 * Retries: the SDK's own (maxRetries 1: one retry on 408/409/429/5xx and on connection errors,
 * after about 0.4-0.5 s, or after the server's `retry-after(-ms)` header). Timeouts: `timeoutMs`
 * bounds the whole of `complete` and, for `stream`, the wait for the first chunk and every gap
 * between chunks (see CallGuard); the SDK's own timeout only covers the wait for response headers.
 */
export class OpenAiProvider extends SharedClientProvider<OpenAI, Chunk> {
  readonly name = PROVIDER;

  protected async makeClient(): Promise<OpenAI> {
    const { OpenAI } = await sdk();
    const s = this.settings;
    return new OpenAI({ apiKey: s.apiKey, baseURL: s.baseURL, timeout: s.timeoutMs, maxRetries: 1, fetch: lightFetch });
  }

  protected async answer(client: OpenAI, request: ChatRequest, call: CallGuard): Promise<StepResult> {
    const body = { ...this.body(request), stream: false as const };
    const res = await call.wait(client.chat.completions.create(body, { signal: call.signal }));
    const message = res.choices?.[0]?.message;
    const toolCalls: ToolCall[] = [];
    for (const c of message?.tool_calls ?? [])
      if (c.type === 'function') toolCalls.push(toolCall(c.id, c.function?.name, c.function?.arguments));
    const text = message?.content ?? message?.refusal ?? (toolCalls.length ? '' : undefined);
    if (typeof text !== 'string') throw new ProviderError(PROVIDER, 'invalid-response');
    return { text, toolCalls };
  }

  protected open(client: OpenAI, request: ChatRequest, call: CallGuard) {
    return call.wait(client.chat.completions.create({ ...this.body(request), stream: true }, { signal: call.signal }));
  }

  protected textOf(chunk: Chunk): string | undefined {
    return chunk.choices?.[0]?.delta?.content ?? undefined;
  }

  /** calls arrive in pieces keyed by `index` (id and name first, then the arguments' JSON); whole once the choice finishes */
  protected stepReader(): StepReader<Chunk> {
    const pending = new Map<number, { id: string; name: string; args: string }>();
    const finish = (): StepEvent[] => {
      const calls = [...pending.entries()].sort(([a], [b]) => a - b);
      pending.clear();
      return calls.map(([, c]) => toolCallEvent(toolCall(c.id, c.name, c.args)));
    };
    return {
      read: (chunk) => {
        const choice = chunk.choices?.[0];
        const events: StepEvent[] = [];
        const text = choice?.delta?.content;
        if (text) events.push({ type: 'text', text });
        for (const piece of choice?.delta?.tool_calls ?? []) {
          const index = typeof piece.index === 'number' ? piece.index : pending.size;
          let c = pending.get(index);
          if (!c) pending.set(index, (c = { id: '', name: '', args: '' }));
          if (piece.id) c.id = piece.id;
          if (piece.function?.name) c.name += piece.function.name;
          if (piece.function?.arguments) c.args += piece.function.arguments;
        }
        if (choice?.finish_reason) events.push(...finish());
        return events;
      },
      end: finish,
    };
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // an SDK error implies a loaded SDK
  }

  private body(request: ChatRequest) {
    const messages: MessageParam[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const turn of request.messages) messages.push(messageOf(turn));
    const tools = toolsOf(request)?.map(
      (t): OpenAI.Chat.Completions.ChatCompletionTool => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: { ...toolSchema(t) } },
      }),
    );
    // max_tokens, not max_completion_tokens: it is what OpenAI-compatible servers understand.
    return {
      model: request.model,
      messages,
      temperature: request.temperature,
      max_tokens: request.maxTokens,
      ...(tools ? { tools } : {}),
    };
  }
}

function messageOf(turn: ChatRequest['messages'][number]): MessageParam {
  if (turn.role === 'tool') return { role: 'tool', tool_call_id: turn.toolCallId, content: turn.content };
  if (turn.role === 'assistant' && turn.toolCalls?.length)
    return {
      role: 'assistant',
      content: turn.content || null,
      tool_calls: turn.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    };
  return { role: turn.role, content: turn.content };
}

function toolCall(id: string | undefined, name: string | undefined, args: string | undefined): ToolCall {
  if (!name) throw new ProviderError(PROVIDER, 'invalid-response');
  return { id: id || madeUpCallId(), name, arguments: parseArguments(args) };
}

/** The catalog entry (catalog.ts); `baseURL`/`host`: OPENAI_BASE_URL as the SDK's baseURL, ending in /v1 (default https://api.openai.com/v1). */
export const openai: ProviderDefinition<'openai'> = {
  name: 'openai',
  connection: {
    kind: 'key',
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    baseUrlHelp: 'OpenAI-compatible endpoint',
  },
  defaultModel: 'gpt-4o-mini',
  create: (settings) => new OpenAiProvider(settings),
};
