/**
 * Tool-call replies of the fake LLM servers (fake-llm.ts), in each provider's wire format, whole
 * and streamed: a `reply` of `{ text?, toolCalls: [{ name, arguments }] }` answers with those calls.
 *
 * | provider  | whole                                                        | streamed                                                                   |
 * |-----------|--------------------------------------------------------------|----------------------------------------------------------------------------|
 * | openai    | `message.tool_calls[{id, type, function:{name, arguments}}]` | `delta.tool_calls[{index, id?, function:{name?, arguments piece}}]`, finish_reason tool_calls |
 * | anthropic | content blocks `{type:'tool_use', id, name, input}`           | content_block_start (tool_use) + input_json_delta pieces + content_block_stop |
 * | google    | parts `{functionCall:{id?, name, args}, thoughtSignature}`   | a text chunk, then one chunk with the functionCall parts                   |
 * | ollama    | `message.tool_calls[{function:{name, arguments}}]`           | a text line, a line with the tool_calls, the done line                     |
 *
 * `arguments` as a string is sent as it is (the arguments' JSON text for openai and anthropic, the
 * raw value elsewhere), so a test can send malformed arguments.
 */
import type { FakeProviderName } from './fake-llm.js';

export interface FakeToolCall {
  /** default: call_<index> (openai), toolu_<index> (anthropic); none for google and ollama */
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface FakeToolReply {
  text?: string;
  toolCalls: FakeToolCall[];
}

/** the thought signature the fake google puts on the functionCall part at `index` */
export const fakeThoughtSignature = (index: number) => `c2lnbmF0dXJl-${index}`;

const json = (args: FakeToolCall['arguments']) => (typeof args === 'string' ? args : JSON.stringify(args));

/** the JSON text in up to three pieces */
function pieces(text: string): string[] {
  if (text.length < 3) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

const usage = { input: 10, output: 5 };

/** The whole (non-streamed) response body. */
export function wholeToolReply(provider: FakeProviderName, model: string, reply: FakeToolReply): unknown {
  const text = reply.text ?? '';
  const calls = reply.toolCalls;
  switch (provider) {
    case 'openai':
      return {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || null,
              refusal: null,
              tool_calls: calls.map((c, i) => ({
                id: c.id ?? `call_${i}`,
                type: 'function',
                function: { name: c.name, arguments: json(c.arguments) },
              })),
            },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: 15 },
      };
    case 'anthropic':
      return {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [
          ...(text ? [{ type: 'text', text }] : []),
          ...calls.map((c, i) => ({ type: 'tool_use', id: c.id ?? `toolu_${i}`, name: c.name, input: c.arguments })),
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      };
    case 'google':
      return googleChunk(model, [...(text ? [{ text }] : []), ...googleCalls(calls)], 'STOP');
    case 'ollama':
      return ollamaLine(model, text, calls, true);
  }
}

/** The streamed response: its content type and frames. */
export function streamedToolReply(
  provider: FakeProviderName,
  model: string,
  reply: FakeToolReply,
): { contentType: string; frames: string[] } {
  const text = reply.text ?? '';
  const calls = reply.toolCalls;
  const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  switch (provider) {
    case 'openai': {
      const base = {
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
      };
      const chunk = (delta: unknown, finish: string | null = null) =>
        sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
      const frames = [chunk({ role: 'assistant', content: text ? '' : null, refusal: null })];
      for (const piece of text ? pieces(text) : []) frames.push(chunk({ content: piece }));
      calls.forEach((c, index) => {
        frames.push(
          chunk({
            tool_calls: [
              { index, id: c.id ?? `call_${index}`, type: 'function', function: { name: c.name, arguments: '' } },
            ],
          }),
        );
        for (const piece of pieces(json(c.arguments)))
          frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
      frames.push(chunk({}, 'tool_calls'), 'data: [DONE]\n\n');
      return { contentType: 'text/event-stream', frames };
    }
    case 'anthropic': {
      const frames = [
        event('message_start', {
          message: {
            id: 'msg_fake',
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.input, output_tokens: 1 },
          },
        }),
      ];
      let index = 0;
      if (text) {
        frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        for (const piece of pieces(text))
          frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
        frames.push(event('content_block_stop', { index }));
        index++;
      }
      calls.forEach((c, i) => {
        const block = { type: 'tool_use', id: c.id ?? `toolu_${i}`, name: c.name, input: {} };
        frames.push(event('content_block_start', { index, content_block: block }));
        for (const piece of pieces(json(c.arguments)))
          frames.push(
            event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
          );
        frames.push(event('content_block_stop', { index }));
        index++;
      });
      frames.push(
        event('message_delta', {
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: usage.output },
        }),
        event('message_stop', {}),
      );
      return { contentType: 'text/event-stream', frames };
    }
    case 'google': {
      const frame = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;
      const frames = text ? [frame(googleChunk(model, [{ text }], undefined))] : [];
      frames.push(frame(googleChunk(model, googleCalls(calls), 'STOP')));
      return { contentType: 'text/event-stream', frames };
    }
    case 'ollama': {
      const line = (data: unknown) => `${JSON.stringify(data)}\n`;
      const frames = text ? [line(ollamaLine(model, text, [], false))] : [];
      frames.push(line(ollamaLine(model, '', calls, false)), line(ollamaLine(model, '', [], true)));
      return { contentType: 'application/x-ndjson', frames };
    }
  }
}

function googleCalls(calls: FakeToolCall[]): unknown[] {
  return calls.map((c, i) => ({
    functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.arguments },
    thoughtSignature: fakeThoughtSignature(i),
  }));
}

function googleChunk(model: string, parts: unknown[], finishReason: string | undefined): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: 15 },
    modelVersion: model,
    responseId: 'fake-response',
  };
}

function ollamaLine(model: string, content: string, calls: FakeToolCall[], done: boolean): unknown {
  return {
    model,
    created_at: new Date().toISOString(),
    message: {
      role: 'assistant',
      content,
      ...(calls.length
        ? {
            tool_calls: calls.map((c) => ({
              ...(c.id ? { id: c.id } : {}),
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    },
    done,
    ...(done ? { done_reason: 'stop', eval_count: usage.output, prompt_eval_count: usage.input } : {}),
  };
}
