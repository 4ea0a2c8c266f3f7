import type { ChatRequest, LlmProvider, ProviderSettings, StepEvent, StepResult } from './contract.js';
import type { ProviderError } from './errors.js';
import { type CallGuard, guarded, guardedStream, type StopReason } from './guard.js';

/** Reads one streamed step: the events each chunk adds, then those left when the stream ended whole. */
export interface StepReader<Chunk> {
  read(chunk: Chunk): Iterable<StepEvent>;
  end(): Iterable<StepEvent>;
}

/**
 * The frame of an SDK adapter: `complete`, `stream`, `step` and `completeStep` each run one guarded
 * call (guard.ts) that gets the SDK client, then asks for the answer or opens the stream. An
 * adapter says only how to get its client, what to send, where the text and the tool calls are,
 * and how its SDK's failures read.
 */
export abstract class GuardedProvider<Client, Chunk> implements LlmProvider {
  abstract readonly name: string;

  constructor(protected readonly timeoutMs: number) {}

  /** the SDK's client for this call (the SDK is loaded at the first call: platform/lazy.ts) */
  protected abstract client(call: CallGuard): Promise<Client>;
  /** the whole answer: its text and the tools it calls; each wait goes through `call.wait` */
  protected abstract answer(client: Client, request: ChatRequest, call: CallGuard): Promise<StepResult>;
  /** the SDK's stream of chunks */
  protected abstract open(client: Client, request: ChatRequest, call: CallGuard): Promise<AsyncIterable<Chunk>>;
  /** the text a chunk adds, if any */
  protected abstract textOf(chunk: Chunk): string | undefined;
  /** a reader of one streamed step (text deltas and whole tool calls) */
  protected abstract stepReader(): StepReader<Chunk>;
  /** a failure as the ProviderError the contract allows (`stopped`: the guard ended the call) */
  protected abstract toError(err: unknown, stopped: StopReason | undefined): ProviderError;

  complete(request: ChatRequest): Promise<string> {
    return this.completeStep(request).then((result) => result.text);
  }

  completeStep(request: ChatRequest): Promise<StepResult> {
    return guarded(
      this.timeoutMs,
      request.signal,
      async (call) => this.answer(await call.wait(this.client(call)), request, call),
      (err, stopped) => this.toError(err, stopped),
    );
  }

  stream(request: ChatRequest): AsyncGenerator<string, void, undefined> {
    return guardedStream(
      this.timeoutMs,
      request.signal,
      async (call) => this.open(await call.wait(this.client(call)), request, call),
      (chunk) => {
        const text = this.textOf(chunk);
        return text ? [text] : [];
      },
      (err, stopped) => this.toError(err, stopped),
    );
  }

  step(request: ChatRequest): AsyncGenerator<StepEvent, void, undefined> {
    const reader = this.stepReader();
    return guardedStream(
      this.timeoutMs,
      request.signal,
      async (call) => this.open(await call.wait(this.client(call)), request, call),
      (chunk) => reader.read(chunk),
      (err, stopped) => this.toError(err, stopped),
      () => reader.end(),
    );
  }
}

/**
 * An adapter whose SDK client is made once and shared by every call (OpenAI, Anthropic, Gemini:
 * their clients take a per-request signal). Two first calls at once may each make one: harmless.
 */
export abstract class SharedClientProvider<Client, Chunk> extends GuardedProvider<Client, Chunk> {
  private made: Client | undefined;

  constructor(protected readonly settings: ProviderSettings) {
    super(settings.timeoutMs);
  }

  /** the SDK's client, made from `settings` */
  protected abstract makeClient(): Promise<Client>;

  protected async client(): Promise<Client> {
    this.made ??= await this.makeClient();
    return this.made;
  }
}
