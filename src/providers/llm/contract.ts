/**
 * What an adapter implements and is made from. Adapters import this file and errors.ts, never
 * catalog.ts (which imports the adapters), so the provider files form no import circle.
 */
/** A tool the model may call: a name, what it does, and its string parameters. */
export interface ToolSpec {
  /** [a-zA-Z0-9_-]{1,64} */
  name: string;
  description: string;
  /** every parameter is a string */
  parameters: { name: string; description: string; required: boolean }[];
}

/** One call the model asked for; `arguments` parsed from the model's JSON ({} when it was not a JSON object). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One turn of the history: the visitor's, the model's (with the tools it called), or a tool's result. */
export type ChatTurn =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** What one step of a tool-using turn yields: text deltas as they arrive, then each tool call once it is whole. */
export type StepEvent = { type: 'text'; text: string } | { type: 'tool-call'; call: ToolCall };

/** What one non-streamed step of a tool-using turn gives. */
export interface StepResult {
  text: string;
  toolCalls: ToolCall[];
}

export interface ChatRequest {
  model: string;
  /** the whole system prompt: agent instructions plus reference material */
  system: string;
  /** history oldest first, ending with the user's new message */
  messages: ChatTurn[];
  temperature: number;
  maxTokens: number;
  /** tools the model may call (`step`/`completeStep` report its calls; `complete`/`stream` only its text) */
  tools?: ToolSpec[];
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
 *   ProviderError, never with an unhandled rejection;
 * - `step` is `stream` for a tool-using turn (same guard rules), also yielding each tool call once
 *   it is whole; `completeStep` is its non-streamed form. Both send `tools` and map tool turns of
 *   the history to the provider's shape; a request without tools writes earlier tool turns in a
 *   form the provider accepts without tool definitions.
 */
export interface LlmProvider {
  /** the name of its catalog entry (a ProviderName, catalog.ts) */
  readonly name: string;
  complete(request: ChatRequest): Promise<string>;
  stream(request: ChatRequest): AsyncIterable<string>;
  step(request: ChatRequest): AsyncIterable<StepEvent>;
  completeStep(request: ChatRequest): Promise<StepResult>;
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
