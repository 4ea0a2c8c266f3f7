// The fake LLM servers' text answers (test/helpers/fake-llm.ts) in each provider's wire format,
// whole or as the frames of a stream; tool-call answers are in fake-llm-tools.ts.
import type { FakeProviderName } from './fake-llm.js';
import * as wire from './llm-wire.js';

/** `text` in `chunks` pieces of about equal length (at least one, possibly empty). */
export function split(text: string, chunks: number): string[] {
  const n = Math.max(1, Math.min(chunks, text.length));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length ? pieces : [''];
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function promptWords(body: unknown): number {
  return words(JSON.stringify(body ?? {}));
}

/** A text answer, whole, in `provider`'s wire format (`body`: the request, for the usage counts). */
export function wholeTextReply(provider: FakeProviderName, model: string, body: unknown, text: string): unknown {
  const usage = { input: promptWords(body), output: words(text) };
  switch (provider) {
    case 'openai':
      return wire.openaiCompletion(model, { content: text }, 'stop', usage);
    case 'anthropic':
      return wire.anthropicMessage(model, [{ type: 'text', text }], 'end_turn', usage);
    case 'google':
      return wire.googleChunk(model, [{ text }], 'STOP', usage);
    case 'ollama':
      return wire.ollamaLine(model, { content: text }, true, usage);
  }
}

/** A streamed reply: its content type, the frames before the pieces, one per piece, and after them. */
export interface StreamFrames {
  contentType: string;
  head: string[];
  pieces: string[];
  tail: string[];
}

/** The frames of a streamed text reply in `pieces`, in `provider`'s wire format. */
export function streamedTextReply(
  provider: FakeProviderName,
  model: string,
  body: unknown,
  pieces: string[],
): StreamFrames {
  const usage = { input: promptWords(body), output: words(pieces.join('')) };
  switch (provider) {
    case 'openai': {
      const chunk = wire.openaiChunks(model);
      return {
        contentType: 'text/event-stream',
        head: [chunk({ role: 'assistant', content: '' })],
        pieces: pieces.map((text) => chunk({ content: text })),
        tail: [chunk({}, 'stop'), wire.OPENAI_DONE],
      };
    }
    case 'anthropic': {
      const [start, ...deltas] = wire.anthropicBlock(
        0,
        { type: 'text', text: '' },
        pieces.map((text) => ({ type: 'text_delta', text })),
      );
      return {
        contentType: 'text/event-stream',
        head: [wire.anthropicStart(model, usage.input), start!, wire.anthropicEvent('ping', {})],
        pieces: deltas.slice(0, -1),
        tail: [...deltas.slice(-1), ...wire.anthropicEnd('end_turn', usage.output)],
      };
    }
    case 'google': {
      // the last chunk carries finishReason
      const last = pieces.length - 1;
      return {
        contentType: 'text/event-stream',
        head: [],
        pieces: pieces.map((text, i) =>
          wire.googleFrame(wire.googleChunk(model, [{ text }], i === last ? 'STOP' : undefined, usage)),
        ),
        tail: [],
      };
    }
    case 'ollama':
      return {
        contentType: 'application/x-ndjson',
        head: [],
        pieces: pieces.map((text) => wire.ndjsonLine(wire.ollamaLine(model, { content: text }, false, usage))),
        tail: [wire.ndjsonLine(wire.ollamaLine(model, { content: '' }, true, usage))],
      };
  }
}
