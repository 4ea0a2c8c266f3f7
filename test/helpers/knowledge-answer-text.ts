import {
  type AnswerPassage,
  type KnowledgeAnswer,
  type KnowledgeAnswerOptions,
  knowledgeOnlyAnswer,
} from '../../src/modules/chat/knowledge-answer.js';
import { createAgent, type TestApp } from './app.js';
import { answerPassage } from './answer-passage.js';
import { addText } from './sources.js';

/** The quoted lines of a no-key answer, without their "> ". */
export function quoted(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.startsWith('> '))
    .map((l) => l.slice(2))
    .join('\n');
}

/**
 * The no-key answer to `question` from `passages` (a string is one keyword-found passage of a text
 * source), sources not shown unless `options` say so.
 */
export function answerFrom(
  question: string,
  passages: Array<string | AnswerPassage>,
  options: Partial<KnowledgeAnswerOptions> = {},
): KnowledgeAnswer {
  const found = passages.map((p) => (typeof p === 'string' ? answerPassage(p) : p));
  return knowledgeOnlyAnswer(question, found, { showSources: false, ...options });
}

/** The lines the no-key answer to `question` from `passages` quotes (sources not shown). */
export function quotedAnswer(question: string, passages: Array<string | AnswerPassage>): string {
  return quoted(answerFrom(question, passages).text);
}

/** A new agent of `token`'s (created with `body`) whose knowledge is the text sources `texts` (name: content). */
export async function agentKnowing(
  t: TestApp,
  token: string,
  texts: Record<string, string>,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const agent = await createAgent(t.app, token, body);
  for (const [name, content] of Object.entries(texts)) await addText(t, token, agent.id, name, content);
  return agent;
}
