import { anthropic } from './anthropic.js';
import { google } from './google.js';
import { ollama } from './ollama.js';
import { openai } from './openai.js';
import type { ProviderDefinition } from './contract.js';

/**
 * Every LLM provider, in the order lists show them (status, settings, --help). Config variables,
 * request schemas, the settings page and default models all derive from these entries, so adding
 * a provider is adding its file and naming it here.
 */
export const LLM_PROVIDERS = [openai, anthropic, google, ollama] as const;

export type ProviderName = (typeof LLM_PROVIDERS)[number]['name'];

/** The names, as a non-empty tuple (what z.enum and drizzle's text enums take). */
export const PROVIDER_NAMES = LLM_PROVIDERS.map((p) => p.name) as [ProviderName, ...ProviderName[]];

const byName = new Map<string, ProviderDefinition<ProviderName>>(LLM_PROVIDERS.map((p) => [p.name, p]));

export function providerDefinition(name: ProviderName): ProviderDefinition<ProviderName> {
  return byName.get(name)!;
}

/** The variable that configures the provider on its own (its key, or Ollama's host); set in the environment, it wins over stored settings. */
export function settingVariable(name: ProviderName): string {
  const c = providerDefinition(name).connection;
  return c.kind === 'key' ? c.keyVariable : c.hostVariable;
}

/** Whether the provider is reached by a host (no key): Ollama. */
export function usesHost(name: ProviderName): boolean {
  return providerDefinition(name).connection.kind === 'host';
}
