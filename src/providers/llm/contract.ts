/**
 * What an adapter implements and is made from. Adapters import this file and errors.ts, never
 * catalog.ts (which imports the adapters), so the provider files form no import circle.
 */
export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  /** the whole system prompt: agent instructions plus reference material */
  system: string;
  /** history oldest first, ending with the user's new message */
  messages: ChatTurn[];
  temperature: number;
  maxTokens: number;
  /** aborts the upstream call (client went away, shutdown) */
  signal?: AbortSignal;
}

/**
 * One LLM provider behind one interface; adding a provider is adding one file.
 *
 * Contract for every implementation:
 * - honours model, system, messages, temperature and maxTokens as given;
 * - times out after the configured time and retries once on 429/5xx (through the SDK's own retry
 *   where it has one), never after the first text has been produced;
 * - throws only ProviderError (see errors.ts), whose message names the provider and carries no key,
 *   URL or stack;
 * - `stream` yields text deltas as they arrive; an abort via `signal` ends it quietly or with
 *   ProviderError, never with an unhandled rejection.
 */
export interface LlmProvider {
  /** the name of its catalog entry (a ProviderName, catalog.ts) */
  readonly name: string;
  complete(request: ChatRequest): Promise<string>;
  stream(request: ChatRequest): AsyncIterable<string>;
}

export interface ProviderSettings {
  apiKey?: string;
  baseURL?: string;
  timeoutMs: number;
}

/**
 * How a provider is reached, and the environment variables that say so: a key (with an optional
 * base URL), or a host (Ollama). The variables' names are fixed by docs/CONFIGURATION.md.
 */
export type ProviderConnectionSpec =
  | {
      kind: 'key';
      keyVariable: string;
      baseUrlVariable: string /** --help text of the base URL flag */;
      baseUrlHelp: string;
    }
  | { kind: 'host'; hostVariable: string /** --help text of the host flag */; hostHelp: string };

/** One provider's entry in the catalog: everything the rest of the app derives from (config, schemas, settings, defaults). */
export interface ProviderDefinition<N extends string = string> {
  readonly name: N;
  readonly connection: ProviderConnectionSpec;
  /** the model a new agent on this provider gets when none is given */
  readonly defaultModel: string;
  create(settings: ProviderSettings & { host?: string }): LlmProvider;
}
