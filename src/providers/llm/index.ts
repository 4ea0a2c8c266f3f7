import { AnthropicProvider } from './anthropic.js';
import { GoogleProvider } from './google.js';
import { OllamaProvider } from './ollama.js';
import { OpenAiProvider } from './openai.js';
import { providerDefinition } from './catalog.js';
import type { LlmProvider, ProviderName, ProviderSettings } from './types.js';

export { ProviderError } from './errors.js';
export { LLM_PROVIDERS, PROVIDER_NAMES, providerDefinition, settingVariable, usesHost } from './catalog.js';
export type {
  ChatRequest,
  ChatTurn,
  LlmProvider,
  ProviderName,
  ProviderSettings,
  StepEvent,
  StepResult,
  ToolCall,
  ToolLoopOptions,
  ToolLoopResult,
  ToolOutcome,
  ToolSpec,
} from './types.js';
export { NO_MORE_TOOLS_NOTE, runToolLoop } from './tool-loop.js';
export { AnthropicProvider, GoogleProvider, OllamaProvider, OpenAiProvider };
export type { OllamaSettings } from './ollama.js';

/** The adapter for `name` (what each expects in `baseURL`/`host` is written beside its catalog entry). */
export function createLlmProvider(name: ProviderName, settings: ProviderSettings & { host?: string }): LlmProvider {
  return providerDefinition(name).create(settings);
}
