import type { Config } from '../../config/index.js';
import { createLlmProvider } from './index.js';
import type { LlmProvider, ProviderName } from './types.js';

export interface ProviderRegistry {
  /** the provider, or null when it has no key (chat then answers from the knowledge base) */
  get: (name: ProviderName) => LlmProvider | null;
  configured: ProviderName[];
  missing: ProviderName[];
}

/** One client per configured provider, made once at start. */
export function configuredProviders(config: Pick<Config, 'providers' | 'llmTimeoutMs'>): ProviderRegistry {
  const p = config.providers;
  const timeoutMs = config.llmTimeoutMs;
  const instances = new Map<ProviderName, LlmProvider>();
  if (p.openai.apiKey) instances.set('openai', createLlmProvider('openai', { ...p.openai, timeoutMs }));
  if (p.anthropic.apiKey) instances.set('anthropic', createLlmProvider('anthropic', { ...p.anthropic, timeoutMs }));
  if (p.google.apiKey) instances.set('google', createLlmProvider('google', { ...p.google, timeoutMs }));
  if (p.ollama.host) instances.set('ollama', createLlmProvider('ollama', { host: p.ollama.host, timeoutMs }));
  const all: ProviderName[] = ['openai', 'anthropic', 'google', 'ollama'];
  return {
    get: (name) => instances.get(name) ?? null,
    configured: all.filter((n) => instances.has(n)),
    missing: all.filter((n) => !instances.has(n)),
  };
}
