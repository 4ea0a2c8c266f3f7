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
import * as wire from './llm-wire.js';

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
      return wire.openaiCompletion(
        model,
        { content: text || null, tool_calls: calls.map(openaiCall) },
        'tool_calls',
        usage,
      );
    case 'anthropic':
      return wire.anthropicMessage(
        model,
        [
          ...(text ? [{ type: 'text', text }] : []),
          ...calls.map((c, i) => ({ ...anthropicUse(c, i), input: c.arguments })),
        ],
        'tool_use',
        usage,
      );
    case 'google':
      return wire.googleChunk(model, [...(text ? [{ text }] : []), ...googleCalls(calls)], 'STOP', usage);
    case 'ollama':
      return wire.ollamaLine(model, { content: text, tool_calls: ollamaCalls(calls) }, true, usage);
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
  switch (provider) {
    case 'openai': {
      const chunk = wire.openaiChunks(model);
      const frames = [chunk({ role: 'assistant', content: text ? '' : null, refusal: null })];
      for (const piece of text ? pieces(text) : []) frames.push(chunk({ content: piece }));
      calls.forEach((c, index) => {
        frames.push(
          chunk({ tool_calls: [{ index, ...openaiCall(c, index), function: { name: c.name, arguments: '' } }] }),
        );
        for (const piece of pieces(json(c.arguments)))
          frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
      frames.push(chunk({}, 'tool_calls'), wire.OPENAI_DONE);
      return { contentType: 'text/event-stream', frames };
    }
    case 'anthropic': {
      const blocks = [
        ...(text
          ? [{ block: { type: 'text', text: '' }, deltas: pieces(text).map((t) => ({ type: 'text_delta', text: t })) }]
          : []),
        ...calls.map((c, i) => ({
          block: { ...anthropicUse(c, i), input: {} },
          deltas: pieces(json(c.arguments)).map((p) => ({ type: 'input_json_delta', partial_json: p })),
        })),
      ];
      const frames = [
        wire.anthropicStart(model, usage.input),
        ...blocks.flatMap(({ block, deltas }, index) => wire.anthropicBlock(index, block, deltas)),
        ...wire.anthropicEnd('tool_use', usage.output),
      ];
      return { contentType: 'text/event-stream', frames };
    }
    case 'google': {
      const frames = text ? [wire.googleFrame(wire.googleChunk(model, [{ text }], undefined, usage))] : [];
      frames.push(wire.googleFrame(wire.googleChunk(model, googleCalls(calls), 'STOP', usage)));
      return { contentType: 'text/event-stream', frames };
    }
    case 'ollama': {
      const frames = text ? [wire.ndjsonLine(wire.ollamaLine(model, { content: text }, false, usage))] : [];
      frames.push(
        wire.ndjsonLine(wire.ollamaLine(model, { content: '', tool_calls: ollamaCalls(calls) }, false, usage)),
        wire.ndjsonLine(wire.ollamaLine(model, { content: '' }, true, usage)),
      );
      return { contentType: 'application/x-ndjson', frames };
    }
  }
}

function openaiCall(c: FakeToolCall, i: number) {
  return { id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: json(c.arguments) } };
}

function anthropicUse(c: FakeToolCall, i: number) {
  return { type: 'tool_use', id: c.id ?? `toolu_${i}`, name: c.name };
}

function googleCalls(calls: FakeToolCall[]): unknown[] {
  return calls.map((c, i) => ({
    functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.arguments },
    thoughtSignature: fakeThoughtSignature(i),
  }));
}

function ollamaCalls(calls: FakeToolCall[]): unknown[] | undefined {
  if (!calls.length) return undefined;
  return calls.map((c) => ({ ...(c.id ? { id: c.id } : {}), function: { name: c.name, arguments: c.arguments } }));
}
