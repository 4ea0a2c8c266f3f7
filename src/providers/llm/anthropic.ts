import type Anthropic from '@anthropic-ai/sdk';
import { lazy } from '../../platform/lazy.js';
import { ProviderError } from './errors.js';
import { GuardedProvider } from './adapter.js';
import type { ChatRequest, ProviderDefinition, ProviderSettings } from './contract.js';
import { type CallGuard, sdkProviderError, type StopReason } from './guard.js';

const PROVIDER = 'anthropic';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('@anthropic-ai/sdk'));

/**
 * Anthropic through `@anthropic-ai/sdk` (messages API, top-level `system`).
 *
 * Retries and timeouts as OpenAiProvider's (both SDKs come from the same generator), with events
 * for chunks.
 */
export class AnthropicProvider extends GuardedProvider<Anthropic, Anthropic.Messages.RawMessageStreamEvent> {
  readonly name = PROVIDER;
  private made: Anthropic | undefined;

  constructor(private readonly settings: ProviderSettings) {
    super(settings.timeoutMs);
  }

  protected async client(): Promise<Anthropic> {
    const { Anthropic } = await sdk();
    const s = this.settings;
    return (this.made ??= new Anthropic({ apiKey: s.apiKey, baseURL: s.baseURL, timeout: s.timeoutMs, maxRetries: 1 }));
  }

  protected async answer(client: Anthropic, request: ChatRequest, call: CallGuard): Promise<string> {
    const message = await call.wait(
      client.messages.create({ ...this.body(request), stream: false }, { signal: call.signal }),
    );
    if (!Array.isArray(message?.content)) throw new ProviderError(PROVIDER, 'invalid-response');
    let text = '';
    for (const block of message.content) if (block.type === 'text') text += block.text;
    return text;
  }

  protected open(client: Anthropic, request: ChatRequest, call: CallGuard) {
    return call.wait(client.messages.create({ ...this.body(request), stream: true }, { signal: call.signal }));
  }

  protected textOf(event: Anthropic.Messages.RawMessageStreamEvent): string | undefined {
    return event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : undefined;
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // as OpenAiProvider's: the same SDK family
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
