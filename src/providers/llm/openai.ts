import type OpenAI from 'openai';
import { lazy } from '../../platform/lazy.js';
import { ProviderError } from './errors.js';
import { GuardedProvider } from './adapter.js';
import type { ChatRequest, ProviderDefinition, ProviderSettings } from './contract.js';
import { type CallGuard, sdkProviderError, type StopReason } from './guard.js';

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
export class OpenAiProvider extends GuardedProvider<OpenAI, OpenAI.Chat.Completions.ChatCompletionChunk> {
  readonly name = PROVIDER;
  private made: OpenAI | undefined;

  constructor(private readonly settings: ProviderSettings) {
    super(settings.timeoutMs);
  }

  protected async client(): Promise<OpenAI> {
    const { OpenAI } = await sdk();
    const s = this.settings;
    return (this.made ??= new OpenAI({ apiKey: s.apiKey, baseURL: s.baseURL, timeout: s.timeoutMs, maxRetries: 1 }));
  }

  protected async answer(client: OpenAI, request: ChatRequest, call: CallGuard): Promise<string> {
    const body = { ...this.body(request), stream: false as const };
    const res = await call.wait(client.chat.completions.create(body, { signal: call.signal }));
    const message = res.choices?.[0]?.message;
    const text = message?.content ?? message?.refusal;
    if (typeof text !== 'string') throw new ProviderError(PROVIDER, 'invalid-response');
    return text;
  }

  protected open(client: OpenAI, request: ChatRequest, call: CallGuard) {
    return call.wait(client.chat.completions.create({ ...this.body(request), stream: true }, { signal: call.signal }));
  }

  protected textOf(chunk: OpenAI.Chat.Completions.ChatCompletionChunk): string | undefined {
    return chunk.choices?.[0]?.delta?.content ?? undefined;
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // an SDK error implies a loaded SDK
  }

  private body(request: ChatRequest) {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const turn of request.messages) messages.push({ role: turn.role, content: turn.content });
    // max_tokens, not max_completion_tokens: it is what OpenAI-compatible servers understand.
    return { model: request.model, messages, temperature: request.temperature, max_tokens: request.maxTokens };
  }
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
