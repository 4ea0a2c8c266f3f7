import type { ChatResponse, Message, Ollama, Tool } from 'ollama';
import { lazy } from '../../platform/lazy.js';
import { lightFetch } from '../light-fetch.js';
import { ProviderError } from './errors.js';
import { GuardedProvider, type StepReader } from './adapter.js';
import type { ChatRequest, ChatTurn, ProviderDefinition, StepResult, ToolCall } from './contract.js';
import { type CallGuard, networkFailure, type StopReason } from './guard.js';
import { madeUpCallId, parseArguments, toolCallEvent, toolSchema, toolsOf } from './tool-wire.js';

const PROVIDER = 'ollama';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('ollama'));

export interface OllamaSettings {
  /** OLLAMA_HOST, e.g. http://127.0.0.1:11434 (no /api) */
  host?: string;
  timeoutMs: number;
  /** wait before the one retry on 429/5xx (default 250 ms) */
  retryDelayMs?: number;
}

/**
 * Ollama through the `ollama` package (`/api/chat`).
 *
 * The package has no timeout, no retry, and no signal for non-streamed calls, so this adapter
 * gives each call its own client whose `fetch` carries the call's signal (which also keeps the
 * shared client's list of open streams from growing), bounds the call with CallGuard (the whole of
 * `complete`; for `stream`, the wait for the first chunk and every gap between chunks), and retries
 * once on 429/5xx before any text was produced. Timeouts and connection errors are not retried.
 */
export class OllamaProvider extends GuardedProvider<Ollama, ChatResponse> {
  readonly name = PROVIDER;
  private readonly host: string | undefined;
  private readonly retryDelayMs: number;

  constructor(settings: OllamaSettings) {
    super(settings.timeoutMs);
    this.host = settings.host;
    this.retryDelayMs = settings.retryDelayMs ?? 250;
  }

  /** a client of this call alone, whose fetch follows the call's signal */
  protected async client(call: CallGuard): Promise<Ollama> {
    const { Ollama } = await sdk();
    const signal = call.signal;
    const guardedFetch: typeof fetch = (input, init) =>
      lightFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    return new Ollama({ host: this.host ?? '', fetch: guardedFetch });
  }

  protected async answer(client: Ollama, request: ChatRequest, call: CallGuard): Promise<StepResult> {
    const response = await this.withRetry(call, () => client.chat({ ...this.body(request), stream: false }));
    const text = response?.message?.content;
    if (typeof text !== 'string') throw new ProviderError(PROVIDER, 'invalid-response');
    return { text, toolCalls: callsOf(response) };
  }

  protected async open(client: Ollama, request: ChatRequest, call: CallGuard) {
    const chunks = await this.withRetry(call, () => client.chat({ ...this.body(request), stream: true }));
    // the package's own stream controller ends with the call (the guard aborts its signal when the call ends before the stream)
    call.signal.addEventListener('abort', () => chunks.abort(), { once: true });
    return chunks;
  }

  protected textOf(chunk: ChatResponse): string | undefined {
    return chunk.message?.content;
  }

  /** a chunk's tool_calls are whole */
  protected stepReader(): StepReader<ChatResponse> {
    return {
      read: (chunk) => {
        const text = chunk.message?.content;
        return [...(text ? [{ type: 'text' as const, text }] : []), ...callsOf(chunk).map(toolCallEvent)];
      },
      end: () => [],
    };
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return toProviderError(err, stopped);
  }

  private body(request: ChatRequest) {
    const messages: Message[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const turn of request.messages) messages.push(messageOf(turn));
    const tools = toolsOf(request)?.map(
      (t): Tool => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: toolSchema(t) },
      }),
    );
    return {
      model: request.model,
      messages,
      ...(tools ? { tools } : {}),
      options: { temperature: request.temperature, num_predict: request.maxTokens },
    };
  }

  /** one attempt, and one more after retryDelayMs if the first got 429/5xx (no text exists yet) */
  private async withRetry<T>(call: CallGuard, attempt: () => Promise<T>): Promise<T> {
    try {
      return await call.wait(attempt());
    } catch (err) {
      if (call.stopped || !isRetryable(err)) throw err;
    }
    await call.wait(delay(this.retryDelayMs));
    return await call.wait(attempt());
  }
}

function messageOf(turn: ChatTurn): Message {
  if (turn.role === 'tool') return { role: 'tool', content: turn.content, tool_name: turn.name };
  if (turn.role === 'assistant' && turn.toolCalls?.length)
    return {
      role: 'assistant',
      content: turn.content,
      tool_calls: turn.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
    };
  return { role: turn.role, content: turn.content };
}

/** the message's tool calls; Ollama gives no id (newer servers may: it is kept), so one is made up */
function callsOf(response: ChatResponse): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const c of response?.message?.tool_calls ?? []) {
    const name = c?.function?.name;
    if (!name) throw new ProviderError(PROVIDER, 'invalid-response');
    const id = (c as { id?: unknown }).id;
    calls.push({
      id: typeof id === 'string' && id ? id : madeUpCallId(),
      name,
      arguments: parseArguments(c.function.arguments),
    });
  }
  return calls;
}

/** the package's ResponseError (not exported by it): an HTTP error status from the server */
function httpStatus(err: unknown): number | undefined {
  if (!(err instanceof Error) || err.name !== 'ResponseError') return undefined;
  const status = (err as { status_code?: unknown }).status_code;
  return typeof status === 'number' ? status : undefined;
}

function isRetryable(err: unknown): boolean {
  const status = httpStatus(err);
  return status !== undefined && (status === 429 || status >= 500);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function toProviderError(err: unknown, stopped: StopReason | undefined): ProviderError {
  if (err instanceof ProviderError) return err;
  if (stopped) return new ProviderError(PROVIDER, stopped);
  const status = httpStatus(err);
  if (status !== undefined) return new ProviderError(PROVIDER, 'http', status);
  const network = networkFailure(err);
  if (network) return new ProviderError(PROVIDER, network);
  // includes an {"error": ...} line inside a stream and a stream that ended without `done`
  return new ProviderError(PROVIDER, 'invalid-response');
}

/** The catalog entry (catalog.ts); `baseURL`/`host`: OLLAMA_HOST in `host` (falls back to `baseURL`), without /api. */
export const ollama: ProviderDefinition<'ollama'> = {
  name: 'ollama',
  connection: { kind: 'host', hostVariable: 'OLLAMA_HOST', hostHelp: 'Ollama server, e.g. http://127.0.0.1:11434' },
  defaultModel: 'llama3.2',
  create: (settings) => new OllamaProvider({ host: settings.host ?? settings.baseURL, timeoutMs: settings.timeoutMs }),
};
