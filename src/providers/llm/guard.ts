/**
 * What every adapter shares: the call guard (deadline + caller abort, enforced by us because the
 * SDKs' own timeouts differ), the guarded call and stream around it, the stream pump, and the
 * mapping of network failures.
 */
import { ProviderError } from './errors.js';

export type StopReason = 'timeout' | 'aborted';

/** rejection value of CallGuard.wait when the guard, not the SDK, ended the wait */
export const STOPPED = Symbol('stopped');

/**
 * One provider call: an AbortController handed to the SDK, which follows the caller's signal and
 * is aborted when the call ends (so a stream the consumer left is torn down), and a deadline that
 * `wait` enforces itself instead of trusting the SDK to notice: a timeout or an abort ends the
 * wait at once, and the SDK promise's late result or rejection is swallowed.
 */
export class CallGuard {
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

  /**
   * The call is over: stop following the caller, and abort what the SDK may still hold open. A
   * call that ended `whole` (its answer read to the end) holds nothing open, and is not aborted:
   * an abort builds an exception and runs every listener the SDK put on the signal, ~0.15 ms of a
   * chat turn's two calls.
   */
  end(whole = false): void {
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (!whole) this.controller.abort();
  }
}

/** How an adapter turns a failure into a ProviderError (`stopped`: the guard ended the call). */
export type ToProviderError = (err: unknown, stopped: StopReason | undefined) => ProviderError;

/**
 * One `complete`: `call` runs under a CallGuard for `timeoutMs` that follows the caller's
 * `signal`; whatever it throws leaves as `toError` makes it, and the guard ends either way.
 */
export async function guarded<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  call: (guard: CallGuard) => Promise<T>,
  toError: ToProviderError,
): Promise<T> {
  const guard = new CallGuard(timeoutMs, signal);
  let whole = false;
  try {
    const result = await call(guard);
    whole = true;
    return result;
  } catch (err) {
    throw toError(err, guard.stopped);
  } finally {
    guard.end(whole);
  }
}

/**
 * One `stream` (or `step`): as `guarded`, where `open` starts the SDK's stream and `pump` yields
 * what `read` finds in each of its chunks, then what `flush` gives once the stream ended whole.
 */
export async function* guardedStream<T, U = string>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  open: (guard: CallGuard) => Promise<AsyncIterable<T>>,
  read: (chunk: T) => Iterable<U>,
  toError: ToProviderError,
  flush?: () => Iterable<U>,
): AsyncGenerator<U, void, undefined> {
  const guard = new CallGuard(timeoutMs, signal);
  // the stream read to its end; a consumer that stops early leaves it false, and the SDK's stream is aborted
  let whole = false;
  try {
    yield* pump(guard, await open(guard), read);
    whole = true;
    if (flush) yield* flush();
  } catch (err) {
    throw toError(err, guard.stopped);
  } finally {
    guard.end(whole);
  }
}

/** Yields what `read` finds in each chunk; each chunk must come within timeoutMs of the previous one. */
export async function* pump<T, U>(
  call: CallGuard,
  chunks: AsyncIterable<T>,
  read: (chunk: T) => Iterable<U>,
): AsyncGenerator<U, void, undefined> {
  const iterator = chunks[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await call.wait(iterator.next());
      if (next.done) break;
      yield* read(next.value);
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

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** 'timeout' or 'unreachable' for a fetch/socket failure (looking through `cause`), else undefined */
export function networkFailure(err: unknown): 'timeout' | 'unreachable' | undefined {
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

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The error classes the openai and @anthropic-ai/sdk packages share (both SDKs are generated by
 * the same tool, so their families match; `status` is undefined for an error event inside a stream).
 */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: abstract new (...args: never[]) => Error & { status?: number };
}

/** A failed call of such an SDK as a ProviderError; `sdk` is undefined when the SDK never loaded. */
export function sdkProviderError(
  provider: string,
  err: unknown,
  stopped: StopReason | undefined,
  sdk: SdkErrorClasses | undefined,
): ProviderError {
  if (err instanceof ProviderError) return err;
  if (stopped) return new ProviderError(provider, stopped);
  if (sdk) {
    if (err instanceof sdk.APIUserAbortError) return new ProviderError(provider, 'aborted');
    if (err instanceof sdk.APIConnectionTimeoutError) return new ProviderError(provider, 'timeout');
    if (err instanceof sdk.APIConnectionError)
      return new ProviderError(provider, networkFailure(err.cause) ?? 'unreachable');
    if (err instanceof sdk.APIError) return new ProviderError(provider, 'http', err.status);
  }
  const network = networkFailure(err);
  if (network) return new ProviderError(provider, network);
  return new ProviderError(provider, 'invalid-response');
}
