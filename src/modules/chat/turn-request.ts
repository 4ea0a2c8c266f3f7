import type { ChatRequest, ChatTurn, LlmProvider, ProviderName } from '../../providers/llm/types.js';
import type { ChatbotRow } from '../agents/index.js';
import type { KnowledgeService, Passage } from '../knowledge/index.js';
import { knowledgeOnlyAnswer } from './knowledge-answer.js';
import { buildSystemPrompt, buildTurns } from './prompt.js';

/**
 * How an answer is asked for, shared by the chat turn (service.ts) and the drafted reply
 * (draft-reply.ts): the agent's knowledge searched for the question, the agent's provider, the
 * prompt (prompt.ts) with the history before the question; without a provider key, the answer
 * quoted from the knowledge base (knowledge-answer.ts) with its sources.
 */

/**
 * Where an answer comes from: the source, and the place in it: a website's own page (url and
 * title), a PDF's page. One per source and page, in the order the passages were ranked.
 */
export interface SourceRef {
  source_id: string;
  name: string;
  /** the page's own URL for a website passage (else the source's URL, null for files and texts) */
  url: string | null;
  /** the page title (websites) or the document's title */
  title: string | null;
  /** the PDF page */
  page: number | null;
}

export type ProviderLookup = (name: ProviderName) => LlmProvider | null;

export interface AskDeps {
  knowledge: KnowledgeService;
  providers: ProviderLookup;
}

export interface Ask {
  passages: Passage[];
  /** null: no key for the agent's provider, answer from the knowledge base alone */
  provider: LlmProvider | null;
  request: ChatRequest;
  /** without a provider: the question's words the agent's knowledge holds nowhere (knowledge-answer.ts) */
  unknownWords?: ReadonlySet<string>;
}

/**
 * Retrieval and prompt for `question` after `history` (oldest first): the passages, the agent's
 * provider and the request for it. `addendum` goes after the system prompt (the drafted reply's
 * instructions).
 */
export async function askFor(
  deps: AskDeps,
  agent: ChatbotRow,
  question: string,
  history: ChatTurn[],
  addendum?: string,
): Promise<Ask> {
  const passages = await deps.knowledge.search(agent.id, question);
  const provider = deps.providers(agent.provider);
  const system = buildSystemPrompt(agent.instructions, passages);
  const request: ChatRequest = {
    model: agent.model,
    system: addendum ? `${system}\n\n${addendum}` : system,
    messages: buildTurns(history, question),
    temperature: agent.temperature,
    maxTokens: agent.max_tokens,
  };
  return {
    passages,
    provider,
    request,
    unknownWords: provider ? undefined : deps.knowledge.unknownWords(agent.id, question),
  };
}

/**
 * The answer without a model: the knowledge's sentences that answer `question`, or the agent's
 * no-answer message (`found` false). The citations go in `sources`, as for a model's answer, not
 * into the text a second time.
 */
export function answerFromKnowledge(
  agent: ChatbotRow,
  question: string,
  ask: Pick<Ask, 'passages' | 'unknownWords'>,
): { text: string; found: boolean; used: number; sources: SourceRef[] } {
  const found = knowledgeOnlyAnswer(question, ask.passages, {
    noAnswer: agent.no_answer_message,
    showSources: false,
    language: agent.language,
    synonyms: agent.synonyms,
    unknownWords: ask.unknownWords,
  });
  return {
    text: found.text,
    found: found.found,
    used: found.used.length,
    sources: sourceRefs(ask.passages.filter((p) => found.used.includes(p))),
  };
}

export function sourceRefs(passages: Passage[]): SourceRef[] {
  const seen = new Map<string, SourceRef>();
  for (const p of passages) {
    const url = p.pageUrl ?? p.sourceUrl;
    const key = `${p.sourceId} ${p.pageUrl ?? ''} ${p.page ?? ''}`;
    if (!seen.has(key)) seen.set(key, { source_id: p.sourceId, name: p.sourceName, url, title: p.title, page: p.page });
  }
  return [...seen.values()];
}
