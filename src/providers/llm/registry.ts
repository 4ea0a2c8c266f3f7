import type { Config } from '../../config/index.js';
import { createLlmProvider } from './index.js';
import { PROVIDER_NAMES, usesHost } from './catalog.js';
import type { LlmProvider, ProviderName } from './types.js';

export { PROVIDER_NAMES };

/** What one provider is configured with now: a key (and base URL), or Ollama's host; null when it is not configured. */
export interface ProviderConnection {
  apiKey?: string;
  baseURL?: string;
  host?: string;
}

export interface ProviderRegistry {
  /** the provider, or null when it has no key (chat then answers from the knowledge base) */
  get: (name: ProviderName) => LlmProvider | null;
  /** the providers configured at the time of reading */
  readonly configured: ProviderName[];
  readonly missing: ProviderName[];
}

/**
 * Providers as the configuration is *now*: `current(name)` is asked at every `get`, so a key an
 * admin saves (or removes) applies to the next chat turn without a restart. A client is made once
 * per set of settings and reused while they stay the same (the SDKs keep connections), and made
 * anew when they change.
 */
export function providerRegistry(
  current: (name: ProviderName) => ProviderConnection | null,
  timeoutMs: number,
): ProviderRegistry {
  const clients = new Map<ProviderName, { fingerprint: string; provider: LlmProvider }>();
  const get = (name: ProviderName): LlmProvider | null => {
    const settings = current(name);
    if (!settings) {
      clients.delete(name);
      return null;
    }
    const fingerprint = JSON.stringify([settings.apiKey ?? null, settings.baseURL ?? null, settings.host ?? null]);
    const made = clients.get(name);
    if (made?.fingerprint === fingerprint) return made.provider;
    const provider = createLlmProvider(name, { ...settings, timeoutMs });
    clients.set(name, { fingerprint, provider });
    return provider;
  };
  return {
    get,
    get configured() {
      return PROVIDER_NAMES.filter((n) => current(n) !== null);
    },
    get missing() {
      return PROVIDER_NAMES.filter((n) => current(n) === null);
    },
  };
}

/** What the environment alone configures for `name` (null without its key, or OLLAMA_HOST for Ollama). */
export function environmentProvider(providers: Config['providers'], name: ProviderName): ProviderConnection | null {
  const p = providers[name];
  if (usesHost(name)) return p.host ? { host: p.host } : null;
  return p.apiKey ? { apiKey: p.apiKey, baseURL: p.baseURL } : null;
}

/** The providers of the environment alone (the app itself uses the stored settings too: modules/settings). */
export function configuredProviders(config: Pick<Config, 'providers' | 'llmTimeoutMs'>): ProviderRegistry {
  return providerRegistry((name) => environmentProvider(config.providers, name), config.llmTimeoutMs);
}
