import type Anthropic from '@anthropic-ai/sdk';
import { lazy } from '../../platform/lazy.js';
import { ProviderError } from './errors.js';
import { guarded, guardedStream, sdkProviderError, type StopReason } from './guard.js';
import type { ChatRequest, LlmProvider, ProviderSettings, ProviderDefinition } from './contract.js';

const PROVIDER = 'anthropic';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('@anthropic-ai/sdk'));

/**
 * Anthropic through `@anthropic-ai/sdk` (messages API, top-level `system`).
 *
 * Retries: the SDK's own (maxRetries 1: one retry on 408/409/429/5xx and on connection errors,
 * after about 0.4-0.5 s, or after the server's `retry-after(-ms)` header). Timeouts: `timeoutMs`
 * bounds the whole of `complete` and, for `stream`, the wait for the first event and every gap
 * between events (see CallGuard); the SDK's own timeout only covers the wait for response headers.
 */
export class AnthropicProvider implements LlmProvider {
  readonly name = PROVIDER;
  private client: Anthropic | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly settings: ProviderSettings) {
    this.timeoutMs = settings.timeoutMs;
  }

  private async getClient(): Promise<Anthropic> {
    const { Anthropic } = await sdk();
    const s = this.settings;
    return (this.client ??= new Anthropic({
      apiKey: s.apiKey,
      baseURL: s.baseURL,
      timeout: s.timeoutMs,
      maxRetries: 1,
    }));
  }

  complete(request: ChatRequest): Promise<string> {
    return guarded(
      this.timeoutMs,
      request.signal,
      async (call) => {
        const client = await call.wait(this.getClient());
        const message = await call.wait(
          client.messages.create({ ...this.body(request), stream: false }, { signal: call.signal }),
        );
        if (!Array.isArray(message?.content)) throw new ProviderError(PROVIDER, 'invalid-response');
        let text = '';
        for (const block of message.content) if (block.type === 'text') text += block.text;
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
          client.messages.create({ ...this.body(request), stream: true }, { signal: call.signal }),
        );
      },
      (event: Anthropic.Messages.RawMessageStreamEvent) =>
        event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : undefined,
      toProviderError,
    );
  }

  private body(request: ChatRequest) {
    const messages: Anthropic.Messages.MessageParam[] = request.messages.map((turn) => ({
      role: turn.role,
      content: turn.content,
    }));
    return {
      model: request.model,
      // an empty system text is rejected by the API, so it is left out
      ...(request.system ? { system: request.system } : {}),
      messages,
      max_tokens: request.maxTokens,
      temperature: request.temperature,
    };
  }
}

function toProviderError(err: unknown, stopped: StopReason | undefined): ProviderError {
  return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // an SDK error implies a loaded SDK
}

/** The catalog entry (catalog.ts); `baseURL`/`host`: ANTHROPIC_BASE_URL, the host root without /v1 (default https://api.anthropic.com). */
export const anthropic: ProviderDefinition<'anthropic'> = {
  name: 'anthropic',
  connection: {
    kind: 'key',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    baseUrlHelp: 'Anthropic endpoint',
  },
  defaultModel: 'claude-3-5-haiku-latest',
  create: (settings) => new AnthropicProvider(settings),
};
