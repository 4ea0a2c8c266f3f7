import { AnthropicProvider } from './anthropic.js';
import { GoogleProvider } from './google.js';
import { OllamaProvider } from './ollama.js';
import { OpenAiProvider } from './openai.js';
import type { LlmProvider, ProviderName, ProviderSettings } from './types.js';

export { ProviderError } from './errors.js';
export type { ChatRequest, ChatTurn, LlmProvider, ProviderName, ProviderSettings } from './types.js';
export { AnthropicProvider, GoogleProvider, OllamaProvider, OpenAiProvider };
export type { OllamaSettings } from './ollama.js';

/**
 * The adapter for `name`. What each one expects in `baseURL`/`host`:
 * - openai: OPENAI_BASE_URL as the SDK's baseURL, ending in /v1 (default https://api.openai.com/v1);
 * - anthropic: ANTHROPIC_BASE_URL, the host root without /v1 (default https://api.anthropic.com);
 * - google: GEMINI_BASE_URL as httpOptions.baseUrl, the host root without /v1beta;
 * - ollama: OLLAMA_HOST in `host` (falls back to `baseURL`), without /api.
 */
export function createLlmProvider(name: ProviderName, settings: ProviderSettings & { host?: string }): LlmProvider {
  switch (name) {
    case 'openai':
      return new OpenAiProvider(settings);
    case 'anthropic':
      return new AnthropicProvider(settings);
    case 'google':
      return new GoogleProvider(settings);
    case 'ollama':
      return new OllamaProvider({ host: settings.host ?? settings.baseURL, timeoutMs: settings.timeoutMs });
  }
}
