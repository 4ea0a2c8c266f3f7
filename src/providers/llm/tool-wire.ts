/**
 * What the adapters share to speak tools: the JSON schema of a ToolSpec, reading a model's
 * arguments, ids for calls that came without one, and the text form of tool turns for a request
 * that carries no tools.
 */
import type { ChatRequest, ChatTurn, StepEvent, ToolCall, ToolSpec } from './contract.js';

export interface ToolJsonSchema {
  type: 'object';
  properties: Record<string, { type: 'string'; description: string }>;
  required: string[];
}

/** `{type:'object', properties:{[name]:{type:'string', description}}, required:[...]}` */
export function toolSchema(spec: ToolSpec): ToolJsonSchema {
  const properties: ToolJsonSchema['properties'] = {};
  for (const p of spec.parameters) properties[p.name] = { type: 'string', description: p.description };
  return { type: 'object', properties, required: spec.parameters.filter((p) => p.required).map((p) => p.name) };
}

/** the request's tools, or undefined when it has none */
export function toolsOf(request: ChatRequest): ToolSpec[] | undefined {
  return request.tools?.length ? request.tools : undefined;
}

/** A model's arguments (a JSON string or an already parsed value) as an object; {} when they are not a JSON object. */
export function parseArguments(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    if (!raw.trim()) return {};
    try {
      value = JSON.parse(raw);
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

let madeUp = 0;

/** an id for a call the provider gave none (Gemini, Ollama): unique in this process */
export function madeUpCallId(): string {
  return `call_${++madeUp}`;
}

export function toolCallEvent(call: ToolCall): StepEvent {
  return { type: 'tool-call', call };
}

/**
 * The history for a request without tools to a provider that refuses tool turns without tool
 * definitions (Anthropic): an assistant's calls and the tools' results written as text.
 */
export function toolTurnsAsText(messages: ChatTurn[]): { role: 'user' | 'assistant'; content: string }[] {
  const out: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const turn of messages) {
    if (turn.role === 'tool') {
      out.push({ role: 'user', content: `[result of the tool ${turn.name}]\n${turn.content}` });
    } else if (turn.role === 'assistant' && turn.toolCalls?.length) {
      const calls = turn.toolCalls.map((c) => `[called the tool ${c.name} with ${JSON.stringify(c.arguments)}]`);
      out.push({ role: 'assistant', content: [turn.content, ...calls].filter(Boolean).join('\n') });
    } else {
      out.push({ role: turn.role, content: turn.content });
    }
  }
  return out;
}
