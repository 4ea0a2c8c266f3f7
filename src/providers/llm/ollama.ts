import type { ChatResponse, Message, Ollama } from 'ollama';
import { lazy } from '../../platform/lazy.js';
import { ProviderError } from './errors.js';
import { type CallGuard, guarded, guardedStream, networkFailure, type StopReason } from './guard.js';
import type { ChatRequest, LlmProvider, ProviderDefinition } from './contract.js';

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
export class OllamaProvider implements LlmProvider {
  readonly name = PROVIDER;
  private readonly host: string | undefined;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;

  constructor(settings: OllamaSettings) {
    this.host = settings.host;
    this.timeoutMs = settings.timeoutMs;
    this.retryDelayMs = settings.retryDelayMs ?? 250;
  }

  complete(request: ChatRequest): Promise<string> {
    return guarded(
      this.timeoutMs,
      request.signal,
      async (call) => {
        const client = await call.wait(this.client(call.signal));
        const response = await this.withRetry(call, () => client.chat({ ...this.body(request), stream: false }));
        const text = response?.message?.content;
        if (typeof text !== 'string') throw new ProviderError(PROVIDER, 'invalid-response');
        return text;
      },
      toProviderError,
    );
  }

  stream(request: ChatRequest): AsyncGenerator<string, void, undefined> {
    return guardedStream(
      this.timeoutMs,
      request.signal,
      async (call) => {
        const client = await call.wait(this.client(call.signal));
        const chunks = await this.withRetry(call, () => client.chat({ ...this.body(request), stream: true }));
        // the package's own stream controller ends with the call (the guard aborts its signal at the end)
        call.signal.addEventListener('abort', () => chunks.abort(), { once: true });
        return chunks;
      },
      (chunk: ChatResponse) => chunk.message?.content,
      toProviderError,
    );
  }

  private async client(signal: AbortSignal): Promise<Ollama> {
    const { Ollama } = await sdk();
    const guardedFetch: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    return new Ollama({ host: this.host ?? '', fetch: guardedFetch });
  }

  private body(request: ChatRequest) {
    const messages: Message[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const turn of request.messages) messages.push({ role: turn.role, content: turn.content });
    return {
      model: request.model,
      messages,
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
