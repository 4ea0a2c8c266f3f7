import type {
  Content,
  GenerateContentConfig,
  GenerateContentParameters,
  GenerateContentResponse,
  GoogleGenAI,
  Part,
  Schema,
} from '@google/genai';
import { lazy } from '../../platform/lazy.js';
import { lightFetch } from '../light-fetch.js';
import { ProviderError } from './errors.js';
import { SharedClientProvider, type StepReader } from './adapter.js';
import type { ChatRequest, ChatTurn, ProviderDefinition, StepEvent, StepResult, ToolCall } from './contract.js';
import { type CallGuard, networkFailure, type StopReason } from './guard.js';
import { madeUpCallId, parseArguments, toolCallEvent, toolSchema, toolsOf } from './tool-wire.js';

const PROVIDER = 'google';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('@google/genai'));

/** seconds before the SDK's one retry (p-retry waits between 1x and 2x this) */
const RETRY_INITIAL_DELAY_S = 0.25;

/**
 * Gemini API through `@google/genai` (models.generateContent / generateContentStream).
 * `baseURL` is `httpOptions.baseUrl`: the host root, the SDK appends `/v1beta/models/...`.
 *
 * Retries: the SDK's own (retryOptions.attempts 2: one retry on 408/429/500/502/503/504 and on a
 * per-attempt timeout, after 0.25-0.5 s; connection errors are not retried). Timeouts: `timeoutMs`
 * bounds the whole of `complete` and, for `stream`, the wait for the first chunk and every gap
 * between chunks (see CallGuard). The SDK's `httpOptions.timeout` stays armed while a response body
 * is read, so it would cut off any stream longer than timeoutMs: streams switch it off per request.
 */
export class GoogleProvider extends SharedClientProvider<GoogleGenAI, GenerateContentResponse> {
  readonly name = PROVIDER;

  protected async makeClient(): Promise<GoogleGenAI> {
    const { GoogleGenAI } = await sdk();
    const settings = this.settings;
    return new GoogleGenAI({
      // explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the backend
      vertexai: false,
      apiKey: settings.apiKey,
      httpOptions: {
        baseUrl: settings.baseURL,
        timeout: settings.timeoutMs,
        fetch: lightFetch,
        retryOptions: { attempts: 2, initialDelay: RETRY_INITIAL_DELAY_S },
      },
    });
  }

  protected async answer(client: GoogleGenAI, request: ChatRequest, call: CallGuard): Promise<StepResult> {
    const response = await call.wait(client.models.generateContent(this.params(request, call.signal, false)));
    const text = textOf(response);
    if (text === undefined) throw new ProviderError(PROVIDER, 'invalid-response');
    return { text, toolCalls: callsOf(response) };
  }

  protected open(client: GoogleGenAI, request: ChatRequest, call: CallGuard) {
    return call.wait(client.models.generateContentStream(this.params(request, call.signal, true)));
  }

  protected textOf(chunk: GenerateContentResponse): string | undefined {
    return textOf(chunk);
  }

  /** each chunk carries whole functionCall parts */
  protected stepReader(): StepReader<GenerateContentResponse> {
    return {
      read: (chunk) => {
        const events: StepEvent[] = [];
        const text = textOf(chunk);
        if (text) events.push({ type: 'text', text });
        for (const c of callsOf(chunk)) events.push(toolCallEvent(c));
        return events;
      },
      end: () => [],
    };
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return toProviderError(err, stopped);
  }

  private params(request: ChatRequest, signal: AbortSignal, stream: boolean): GenerateContentParameters {
    const specs = toolsOf(request);
    const config: GenerateContentConfig = {
      temperature: request.temperature,
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
      // no silent re-sends after text was produced
      automaticContinuation: false,
    };
    if (request.system) config.systemInstruction = { parts: [{ text: request.system }] };
    if (specs)
      config.tools = [
        {
          functionDeclarations: specs.map((t) => ({
            name: t.name,
            description: t.description,
            // JSON schema; the SDK writes its types as the API's enum (OBJECT, STRING)
            parameters: toolSchema(t) as unknown as Schema,
          })),
        },
      ];
    // 0 = no SDK timer; CallGuard bounds the gaps instead of the stream's total length
    if (stream) config.httpOptions = { timeout: 0 };
    return { model: request.model, contents: contentsOf(request.messages), config };
  }
}

/**
 * The text parts of the first candidate (thought summaries left out); undefined when there is no
 * candidate (e.g. a prompt blocked by safety settings: `complete` reports it as invalid-response).
 */
function textOf(response: GenerateContentResponse): string | undefined {
  const candidate = response?.candidates?.[0];
  if (!candidate) return undefined;
  let text = '';
  for (const part of candidate.content?.parts ?? [])
    if (typeof part.text === 'string' && !part.thought) text += part.text;
  return text;
}

/** what a call needs when it goes back in the history: whether the model gave its id, and its thought signature */
const callOrigins = new WeakMap<ToolCall, { idGiven: boolean; thoughtSignature?: string }>();

/** the functionCall parts of the first candidate; calls without an id get one made up */
function callsOf(response: GenerateContentResponse): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of response?.candidates?.[0]?.content?.parts ?? []) {
    const fc = part.functionCall;
    if (!fc) continue;
    if (!fc.name) throw new ProviderError(PROVIDER, 'invalid-response');
    const call: ToolCall = { id: fc.id || madeUpCallId(), name: fc.name, arguments: parseArguments(fc.args) };
    callOrigins.set(call, { idGiven: Boolean(fc.id), thoughtSignature: part.thoughtSignature });
    calls.push(call);
  }
  return calls;
}

/**
 * The history as contents: the model's calls as functionCall parts (with the model's own id and
 * thought signature, which newer models require back), each run of tool results as one user
 * content of functionResponse parts.
 */
function contentsOf(turns: ChatTurn[]): Content[] {
  const contents: Content[] = [];
  let results: Part[] | undefined;
  for (const turn of turns) {
    if (turn.role === 'tool') {
      const origin = idGiven(turn.toolCallId, turns);
      const part: Part = {
        functionResponse: {
          ...(origin ? { id: turn.toolCallId } : {}),
          name: turn.name,
          response: { result: turn.content },
        },
      };
      if (results) results.push(part);
      else contents.push({ role: 'user', parts: (results = [part]) });
      continue;
    }
    results = undefined;
    const parts: Part[] = [];
    if (turn.content || !(turn.role === 'assistant' && turn.toolCalls?.length)) parts.push({ text: turn.content });
    if (turn.role === 'assistant')
      for (const c of turn.toolCalls ?? []) {
        const origin = callOrigins.get(c);
        parts.push({
          functionCall: { ...(origin?.idGiven !== false ? { id: c.id } : {}), name: c.name, args: c.arguments },
          ...(origin?.thoughtSignature ? { thoughtSignature: origin.thoughtSignature } : {}),
        });
      }
    contents.push({ role: turn.role === 'assistant' ? 'model' : 'user', parts });
  }
  return contents;
}

/** whether the call a result answers carried the model's own id (made-up ids are not sent) */
function idGiven(toolCallId: string, turns: ChatTurn[]): boolean {
  for (const turn of turns)
    if (turn.role === 'assistant')
      for (const c of turn.toolCalls ?? []) if (c.id === toolCallId) return callOrigins.get(c)?.idGiven !== false;
  return true;
}

function toProviderError(err: unknown, stopped: StopReason | undefined): ProviderError {
  if (err instanceof ProviderError) return err;
  if (stopped) return new ProviderError(PROVIDER, stopped);
  // an SDK error implies a loaded SDK
  const m = sdk.loaded;
  if (m && err instanceof m.ApiError) return new ProviderError(PROVIDER, 'http', err.status);
  const network = networkFailure(err);
  if (network) return new ProviderError(PROVIDER, network);
  // the SDK's own per-attempt timer aborted the fetch
  if (err instanceof Error && err.name === 'AbortError') return new ProviderError(PROVIDER, 'timeout');
  return new ProviderError(PROVIDER, 'invalid-response');
}

/** The catalog entry (catalog.ts); `baseURL`/`host`: GEMINI_BASE_URL as httpOptions.baseUrl, the host root without /v1beta. */
export const google: ProviderDefinition<'google'> = {
  name: 'google',
  connection: {
    kind: 'key',
    keyVariable: 'GEMINI_API_KEY',
    baseUrlVariable: 'GEMINI_BASE_URL',
    baseUrlHelp: 'Google endpoint',
  },
  defaultModel: 'gemini-2.0-flash',
  create: (settings) => new GoogleProvider(settings),
};
