import type Anthropic from '@anthropic-ai/sdk';
import { lazy } from '../../platform/lazy.js';
import { lightFetch } from '../light-fetch.js';
import { ProviderError } from './errors.js';
import { SharedClientProvider, type StepReader } from './adapter.js';
import type { ChatRequest, ChatTurn, ProviderDefinition, StepEvent, StepResult, ToolCall } from './contract.js';
import { type CallGuard, sdkProviderError, type StopReason } from './guard.js';
import { parseArguments, toolCallEvent, toolSchema, toolsOf, toolTurnsAsText } from './tool-wire.js';

type Event = Anthropic.Messages.RawMessageStreamEvent;
type MessageParam = Anthropic.Messages.MessageParam;

const PROVIDER = 'anthropic';

/** loaded at the first call, not at start (see platform/lazy.ts) */
const sdk = lazy(() => import('@anthropic-ai/sdk'));

/**
 * Anthropic through `@anthropic-ai/sdk` (messages API, top-level `system`).
 *
 * Retries and timeouts as OpenAiProvider's (both SDKs come from the same generator), with events
 * for chunks.
 */
export class AnthropicProvider extends SharedClientProvider<Anthropic, Event> {
  readonly name = PROVIDER;

  protected async makeClient(): Promise<Anthropic> {
    const { Anthropic } = await sdk();
    const s = this.settings;
    return new Anthropic({
      apiKey: s.apiKey,
      baseURL: s.baseURL,
      timeout: s.timeoutMs,
      maxRetries: 1,
      fetch: lightFetch,
    });
  }

  protected async answer(client: Anthropic, request: ChatRequest, call: CallGuard): Promise<StepResult> {
    const message = await call.wait(
      client.messages.create({ ...this.body(request), stream: false }, { signal: call.signal }),
    );
    if (!Array.isArray(message?.content)) throw new ProviderError(PROVIDER, 'invalid-response');
    let text = '';
    const toolCalls: ToolCall[] = [];
    for (const block of message.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') toolCalls.push(toolCall(block.id, block.name, block.input));
    }
    return { text, toolCalls };
  }

  protected open(client: Anthropic, request: ChatRequest, call: CallGuard) {
    return call.wait(client.messages.create({ ...this.body(request), stream: true }, { signal: call.signal }));
  }

  protected textOf(event: Event): string | undefined {
    return event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : undefined;
  }

  /** a tool_use block starts with its id and name, its input comes as pieces of JSON, and it is whole at its stop */
  protected stepReader(): StepReader<Event> {
    const open = new Map<number, { id: string; name: string; input: unknown; json: string }>();
    return {
      read: (event): StepEvent[] => {
        const text = this.textOf(event);
        if (text) return [{ type: 'text', text }];
        if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
          const block = event.content_block;
          open.set(event.index, { id: block.id, name: block.name, input: block.input, json: '' });
        } else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
          const block = open.get(event.index);
          if (block) block.json += event.delta.partial_json;
        } else if (event.type === 'content_block_stop') {
          const block = open.get(event.index);
          open.delete(event.index);
          if (block) return [toolCallEvent(toolCall(block.id, block.name, block.json || block.input))];
        }
        return [];
      },
      end: () => [],
    };
  }

  protected toError(err: unknown, stopped: StopReason | undefined): ProviderError {
    return sdkProviderError(PROVIDER, err, stopped, sdk.loaded); // as OpenAiProvider's: the same SDK family
  }

  private body(request: ChatRequest) {
    const specs = toolsOf(request);
    const tools = specs?.map(
      (t): Anthropic.Messages.Tool => ({
        name: t.name,
        description: t.description,
        input_schema: { ...toolSchema(t) },
      }),
    );
    return {
      model: request.model,
      // an empty system text is rejected by the API, so it is left out
      ...(request.system ? { system: request.system } : {}),
      // the API refuses tool_use/tool_result blocks in a request without tools: they go as text then
      messages: tools ? messagesOf(request.messages) : toolTurnsAsText(request.messages),
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      ...(tools ? { tools } : {}),
    };
  }
}

/** the history with tool_use blocks in the assistant's turns and each run of tool results as one user message */
function messagesOf(turns: ChatTurn[]): MessageParam[] {
  const messages: MessageParam[] = [];
  let results: Anthropic.Messages.ToolResultBlockParam[] | undefined;
  for (const turn of turns) {
    if (turn.role === 'tool') {
      const block: Anthropic.Messages.ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: turn.toolCallId,
        content: turn.content,
      };
      if (results) results.push(block);
      else messages.push({ role: 'user', content: (results = [block]) });
      continue;
    }
    results = undefined;
    if (turn.role === 'assistant' && turn.toolCalls?.length) {
      const content: Anthropic.Messages.ContentBlockParam[] = [];
      // an empty text block is rejected by the API
      if (turn.content) content.push({ type: 'text', text: turn.content });
      for (const c of turn.toolCalls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
      messages.push({ role: 'assistant', content });
    } else messages.push({ role: turn.role, content: turn.content });
  }
  return messages;
}

function toolCall(id: string, name: string, input: unknown): ToolCall {
  if (!id || !name) throw new ProviderError(PROVIDER, 'invalid-response');
  return { id, name, arguments: parseArguments(input) };
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
