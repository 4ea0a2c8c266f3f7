import type { Provider } from './types.js';

/** What the admin UI shows of one AI provider. */
export interface ProviderInfo {
  id: Provider;
  /** in the agent's provider select */
  label: string;
  /** the server settings card's heading */
  name: string;
  /** model names suggested in the agent's Model box */
  models: string[];
  /** set with an API key (and an optional base URL); otherwise with a host (Ollama) */
  keyed: boolean;
  /** the hint under the Base URL box */
  baseHint: string;
}

/**
 * The providers, the one list the pages use (the new-agent form, the agent's settings, the
 * server settings). Keyed by the API's own provider enum (types.ts, generated from the server's
 * schema), so a provider the server adds or drops is a type error here rather than a missing
 * or dead option.
 */
const BY_ID: Record<Provider, Omit<ProviderInfo, 'id'>> = {
  openai: {
    label: 'OpenAI',
    name: 'OpenAI',
    models: ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'gpt-4.1'],
    keyed: true,
    baseHint: 'Optional: an OpenAI-compatible endpoint, ending in /v1',
  },
  anthropic: {
    label: 'Anthropic',
    name: 'Anthropic',
    models: ['claude-3-5-haiku-latest', 'claude-sonnet-4-0'],
    keyed: true,
    baseHint: 'Optional: a proxy in front of the Anthropic API',
  },
  google: {
    label: 'Google',
    name: 'Google Gemini',
    models: ['gemini-2.0-flash', 'gemini-2.5-flash'],
    keyed: true,
    baseHint: 'Optional: a proxy in front of the Gemini API',
  },
  ollama: { label: 'Ollama', name: 'Ollama', models: ['llama3.2', 'mistral', 'qwen2.5'], keyed: false, baseHint: '' },
};

export const PROVIDERS: ProviderInfo[] = (Object.keys(BY_ID) as Provider[]).map((id) => ({ id, ...BY_ID[id] }));
