import type OpenAI from 'openai';
import { lazy } from '../../platform/lazy.js';
import { ProviderError } from './errors.js';
import { guarded, guardedStream, sdkProviderError, type StopReason } from './guard.js';
import type { ChatRequest, LlmProvider, ProviderSettings, ProviderDefinition } from './contract.js';

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
export class OpenAiProvider implements LlmProvider {
  readonly name = PROVIDER;
  private client: OpenAI | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly settings: ProviderSettings) {
    this.timeoutMs = settings.timeoutMs;
  }

  private async getClient(): Promise<OpenAI> {
    const { OpenAI } = await sdk();
    const s = this.settings;
    return (this.client ??= new OpenAI({ apiKey: s.apiKey, baseURL: s.baseURL, timeout: s.timeoutMs, maxRetries: 1 }));
  }

  complete(request: ChatRequest): Promise<string> {
    return guarded(
      this.timeoutMs,
      request.signal,
      async (call) => {
        const client = await call.wait(this.getClient());
        const res = await call.wait(
          client.chat.completions.create({ ...this.body(request), stream: false }, { signal: call.signal }),
        );
        const message = res.choices?.[0]?.message;
        const text = message?.content ?? message?.refusal;
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
        const client = await call.wait(this.getClient());
        return await call.wait(
          client.chat.completions.create({ ...this.body(request), stream: true }, { signal: call.signal }),
        );
      },
      (chunk: OpenAI.Chat.Completions.ChatCompletionChunk) => chunk.choices?.[0]?.delta?.content ?? undefined,
      toProviderError,
    );
  }

  private body(request: ChatRequest) {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const turn of request.messages) messages.push({ role: turn.role, content: turn.content });
    // max_tokens, not max_completion_tokens: it is what OpenAI-compatible servers understand.
    return { model: request.model, messages, temperature: request.temperature, max_tokens: request.maxTokens };
  }
}

function toProviderError(err: unknown, stopped: StopReason | undefined): ProviderError {
  return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // an SDK error implies a loaded SDK
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
