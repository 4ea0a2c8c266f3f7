/**
 * The envelopes of each provider's chat replies, whole and streamed, shared by the fake servers'
 * text replies (fake-llm.ts) and tool-call replies (fake-llm-tools.ts): what differs between the
 * two is only the content and the stop reason put into them.
 */

export interface WireUsage {
  input: number;
  output: number;
}

/** one server-sent event with JSON data (openai) */
export const sseFrame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
/** Gemini separates SSE events with CRLF pairs */
export const googleFrame = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;
/** one line of an NDJSON stream (ollama) */
export const ndjsonLine = (data: unknown) => `${JSON.stringify(data)}\n`;
/** one named anthropic event; its data repeats the type */
export const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** a whole openai chat completion whose assistant message carries `message` (content, tool_calls) */
export function openaiCompletion(
  model: string,
  message: Record<string, unknown>,
  finishReason: string,
  usage: WireUsage,
): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', refusal: null, ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

/** the maker of one openai stream's chunk frames: `chunk(delta, finishReason)` */
export function openaiChunks(model: string): (delta: unknown, finishReason?: string | null) => string {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  return (delta, finishReason = null) =>
    sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
}

export const OPENAI_DONE = 'data: [DONE]\n\n';

/** an anthropic message: the whole reply, or (stop reason null, no content) the one message_start carries */
export function anthropicMessage(
  model: string,
  content: unknown[],
  stopReason: string | null,
  usage: WireUsage,
): unknown {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

/** the message_start event of an anthropic stream */
export const anthropicStart = (model: string, input: number) =>
  anthropicEvent('message_start', { message: anthropicMessage(model, [], null, { input, output: 1 }) });

/** the message_delta and message_stop events that end an anthropic stream */
export const anthropicEnd = (stopReason: string, output: number) => [
  anthropicEvent('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: output },
  }),
  anthropicEvent('message_stop', {}),
];

/** the events of one anthropic content block: start, a delta per piece, stop */
export function anthropicBlock(index: number, block: unknown, deltas: unknown[]): string[] {
  return [
    anthropicEvent('content_block_start', { index, content_block: block }),
    ...deltas.map((delta) => anthropicEvent('content_block_delta', { index, delta })),
    anthropicEvent('content_block_stop', { index }),
  ];
}

/** a google GenerateContentResponse: the whole reply or one streamed chunk (the last carries finishReason) */
export function googleChunk(
  model: string,
  parts: unknown[],
  finishReason: string | undefined,
  usage: WireUsage,
): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
    modelVersion: model,
    responseId: 'fake-response',
  };
}

/** an ollama chat line: the whole reply or one streamed line (the done one carries the counts) */
export function ollamaLine(
  model: string,
  message: { content: string; tool_calls?: unknown[] },
  done: boolean,
  usage: WireUsage,
): unknown {
  return {
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', ...message },
    done,
    ...(done
      ? {
          done_reason: 'stop',
          total_duration: 1000,
          load_duration: 10,
          prompt_eval_count: usage.input,
          prompt_eval_duration: 100,
          eval_count: usage.output,
          eval_duration: 500,
        }
      : {}),
  };
}
