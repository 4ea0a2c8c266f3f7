import type { ChatbotRow } from '../agents/index.js';
import { type AskDeps, answerFromKnowledge, askFor, type SourceRef, sourceRefs } from './turn-request.js';

/**
 * An agent's answer to a test question (modules/agent-tests, docs/API-NOTES.md "Test questions"),
 * asked exactly as a chat turn asks (turn-request.ts) but with no history, nothing stored and
 * nothing counted: no conversation, no message quota, no analytics, no answer gap.
 */
export interface TestAnswer {
  answer: string;
  /** the answer's sources: the passages the model read, or those the quoted answer used */
  sources: SourceRef[];
  /** the sources of every passage retrieval found (the model read all of them) */
  retrieved: string[];
  /** the model that answered; null: quoted from the knowledge base */
  model: string | null;
  /** the knowledge held an answer (quoted: a sentence answered; model: retrieval found passages) */
  found: boolean;
}

/**
 * `useModel` false, or no key for the agent's provider: the answer quoted from the knowledge base.
 * A provider's failure is thrown (ProviderError) for the caller to record.
 */
export async function answerTestQuestion(
  deps: AskDeps,
  agent: ChatbotRow,
  question: string,
  useModel: boolean,
  signal?: AbortSignal,
): Promise<TestAnswer> {
  const ask = await askFor(useModel ? deps : { ...deps, providers: () => null }, agent, question, []);
  const retrieved = [...new Set(ask.passages.map((p) => p.sourceId))];
  if (!ask.provider) {
    const found = answerFromKnowledge(agent, question, ask);
    return { answer: found.text, sources: found.sources, retrieved, model: null, found: found.found };
  }
  const text = await ask.provider.complete({ ...ask.request, signal });
  return {
    answer: text.trim(),
    sources: sourceRefs(ask.passages),
    retrieved,
    model: agent.model,
    found: ask.passages.length > 0,
  };
}
