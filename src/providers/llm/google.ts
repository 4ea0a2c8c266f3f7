import { ApiError, GoogleGenAI, type Content, type GenerateContentConfig, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import { ProviderError } from './errors.js';
import type { ChatRequest, LlmProvider, ProviderName, ProviderSettings } from './types.js';

const PROVIDER: ProviderName = 'google';

/** seconds before the SDK's one retry (p-retry waits between 1x and 2x this) */
const RETRY_INITIAL_DELAY_S = 0.25;

/**
 * Gemini API through `@google/genai` (models.generateContent / generateContentStream).
 * `baseURL` is `httpOptions.baseUrl`: the host root, the SDK appends `/v1beta/models/...`.
 *
 * Retries: the SDK's own (retryOptions.attempts 2: one retry on 408/429/500/502/503/504 and on a
 * per-attempt timeout, after 0.25-0.5 s; connection errors are not retried). Timeouts: `timeoutMs`
 * bounds the whole of `complete` and, for `stream`, the wait for the first chunk and every gap
 * between chunks (see CallGuard). The SDK's `httpOptions.timeout` stays armed while a response body
 * is read, so it would cut off any stream longer than timeoutMs: streams switch it off per request.
 */
export class GoogleProvider implements LlmProvider {
  readonly name = PROVIDER;
  private readonly client: GoogleGenAI;
  private readonly timeoutMs: number;

  constructor(settings: ProviderSettings) {
    this.timeoutMs = settings.timeoutMs;
    this.client = new GoogleGenAI({
      // explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the backend
      vertexai: false,
      apiKey: settings.apiKey,
      httpOptions: {
        baseUrl: settings.baseURL,
        timeout: settings.timeoutMs,
        retryOptions: { attempts: 2, initialDelay: RETRY_INITIAL_DELAY_S },
      },
    });
  }

  async complete(request: ChatRequest): Promise<string> {
    const call = new CallGuard(this.timeoutMs, request.signal);
    try {
      const response = await call.wait(this.client.models.generateContent(this.params(request, call.signal, false)));
      const text = textOf(response);
      if (text === undefined) throw new ProviderError(PROVIDER, 'invalid-response');
      return text;
    } catch (err) {
      throw toProviderError(err, call.stopped);
    } finally {
      call.end();
    }
  }

  async *stream(request: ChatRequest): AsyncGenerator<string, void, undefined> {
    const call = new CallGuard(this.timeoutMs, request.signal);
    try {
      const chunks = await call.wait(this.client.models.generateContentStream(this.params(request, call.signal, true)));
      yield* pump(call, chunks, textOf);
    } catch (err) {
      throw toProviderError(err, call.stopped);
    } finally {
      call.end();
    }
  }

  private params(request: ChatRequest, signal: AbortSignal, stream: boolean): GenerateContentParameters {
    const contents: Content[] = request.messages.map((turn) => ({
      role: turn.role === 'assistant' ? 'model' : 'user',
      parts: [{ text: turn.content }],
    }));
    const config: GenerateContentConfig = {
      temperature: request.temperature,
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
      // no silent re-sends after text was produced
      automaticContinuation: false,
    };
    if (request.system) config.systemInstruction = { parts: [{ text: request.system }] };
    // 0 = no SDK timer; CallGuard bounds the gaps instead of the stream's total length
    if (stream) config.httpOptions = { timeout: 0 };
    return { model: request.model, contents, config };
  }
}

/**
 * The text parts of the first candidate (thought summaries left out); undefined when there is no
 * candidate (e.g. a prompt blocked by safety settings: `complete` reports it as invalid-response).
 */
function textOf(response: GenerateContentResponse): string | undefined {
  const candidate = response?.candidates?.[0];
  if (!candidate) return undefined;
  let text = '';
  for (const part of candidate.content?.parts ?? []) if (typeof part.text === 'string' && !part.thought) text += part.text;
  return text;
}

function toProviderError(err: unknown, stopped: StopReason | undefined): ProviderError {
  if (err instanceof ProviderError) return err;
  if (stopped) return new ProviderError(PROVIDER, stopped);
  if (err instanceof ApiError) return new ProviderError(PROVIDER, 'http', err.status);
  const network = networkFailure(err);
  if (network) return new ProviderError(PROVIDER, network);
  // the SDK's own per-attempt timer aborted the fetch
  if (err instanceof Error && err.name === 'AbortError') return new ProviderError(PROVIDER, 'timeout');
  return new ProviderError(PROVIDER, 'invalid-response');
}

// ---------------------------------------------------------------------------------------------
// Call guard: the same code is in each adapter file (openai, anthropic, google, ollama).
// ---------------------------------------------------------------------------------------------

type StopReason = 'timeout' | 'aborted';

/** rejection value of CallGuard.wait when the guard, not the SDK, ended the wait */
const STOPPED = Symbol('stopped');

/**
 * One provider call: an AbortController handed to the SDK, which follows the caller's signal and
 * is aborted when the call ends (so a stream the consumer left is torn down), and a deadline that
 * `wait` enforces itself instead of trusting the SDK to notice: a timeout or an abort ends the
 * wait at once, and the SDK promise's late result or rejection is swallowed.
 */
class CallGuard {
  private readonly controller = new AbortController();
  /** why the guard ended the call, if it did */
  stopped: StopReason | undefined;
  private deadline: number;
  private interrupt: (() => void) | undefined;
  private readonly onCallerAbort = () => this.stop('aborted');

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.deadline = Date.now() + timeoutMs;
    if (callerSignal?.aborted) this.stop('aborted');
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** something arrived: the next wait may take timeoutMs again */
  touch(): void {
    this.deadline = Date.now() + this.timeoutMs;
  }

  stop(reason: StopReason): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.controller.abort();
    this.interrupt?.();
  }

  /** settles like `work`, or rejects with STOPPED when the deadline passes or the caller aborts */
  wait<T>(work: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.interrupt === interrupt) this.interrupt = undefined;
        settle();
      };
      const interrupt = () => finish(() => reject(STOPPED));
      this.interrupt = interrupt;
      work.then(
        (value) => finish(() => resolve(value)),
        (err: unknown) => finish(() => reject(err)),
      );
      if (this.stopped) interrupt();
      else timer = setTimeout(() => this.stop('timeout'), Math.max(0, this.deadline - Date.now()));
    });
  }

  end(): void {
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.controller.abort();
  }
}

/** Yields the text of each chunk; each chunk must come within timeoutMs of the previous one. */
async function* pump<T>(call: CallGuard, chunks: AsyncIterable<T>, textOf: (chunk: T) => string | undefined): AsyncGenerator<string, void, undefined> {
  const iterator = chunks[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await call.wait(iterator.next());
      if (next.done) break;
      const text = textOf(next.value);
      if (text) yield text;
      call.touch();
    }
    finished = true;
    // some SDKs end a stream quietly when its signal aborts
    if (call.stopped) throw STOPPED;
  } finally {
    if (!finished) {
      call.end();
      try {
        Promise.resolve(iterator.return?.()).catch(() => {});
      } catch {
        // the SDK's iterator is being torn down anyway
      }
    }
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** 'timeout' or 'unreachable' for a fetch/socket failure (looking through `cause`), else undefined */
function networkFailure(err: unknown): 'timeout' | 'unreachable' | undefined {
  let current: unknown = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'timeout';
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return 'unreachable';
    current = (current as { cause?: unknown }).cause;
  }
  if (err instanceof TypeError && /fetch failed|terminated|network/i.test(err.message)) return 'unreachable';
  return undefined;
}
