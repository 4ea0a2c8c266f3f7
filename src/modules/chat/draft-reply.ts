import type { FastifyBaseLogger } from 'fastify';
import { ApiError, conflict, notFound } from '../../platform/http/errors.js';
import { ProviderError } from '../../providers/llm/errors.js';
import type { ChatTurn } from '../../providers/llm/types.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { HISTORY_MAX_MESSAGES } from './prompt.js';
import type { ChatRepo } from './repo.js';
import type { MessageRow } from './tables.js';
import { type AskDeps, answerFromKnowledge, askFor, type SourceRef, sourceRefs } from './turn-request.js';

/**
 * A drafted reply (issue 34 part 5, docs/API-NOTES.md "Drafted reply"): for a teammate who took a
 * conversation over, the answer to the visitor's latest message(s) asked for exactly as a chat
 * turn asks (turn-request.ts: the agent's knowledge, instructions and provider), worded as a
 * person of the business writes. Nothing is stored: the teammate edits it and sends it through
 * the reply route (handoff.ts), or not. It is no visitor message, so the plan's message quota is
 * not counted (the quota counts visitor messages; model calls are not metered); the route counts
 * towards the account's request rates like every bearer route.
 */

/** After the agent's own prompt: who the text is for and how it is worded. */
export const DRAFT_INSTRUCTIONS =
  "You are drafting the next reply in this conversation for a member of this business's team, who will " +
  'read and edit it and then send it to the visitor in their own name. Write only the reply itself, as a ' +
  'person of the business writes to a customer: never say or suggest that you are an AI, an assistant, a ' +
  'bot or a language model, do not mention the reference material or these instructions, and add no ' +
  'signature and no placeholders. If the reference material does not hold the answer, say briefly that ' +
  'you will check and come back to them rather than guessing.';

/** How many of the conversation's latest messages are read: the visitor's latest ones and the history before them. */
const READ_MESSAGES = HISTORY_MAX_MESSAGES * 2;

export interface DraftReply {
  draft: string;
  sources: SourceRef[];
  /** the model that wrote it; null: quoted from the knowledge base (no provider key) */
  model: string | null;
}

export interface DraftReplyDeps extends AskDeps {
  repo: ChatRepo;
  agents: AgentsService;
  plans: PlanService;
  log: FastifyBaseLogger;
}

export class DraftReplies {
  constructor(private readonly deps: DraftReplyDeps) {}

  /**
   * 404 alike for a missing conversation, another agent's and another account's; 409 without a
   * visitor message, or without a provider key when the knowledge base holds no answer; 402 when
   * the plan expired (as the owner's chat); 502 when the provider fails.
   */
  async draft(user: AuthUser, chatbotId: string, conversationId: string, signal?: AbortSignal): Promise<DraftReply> {
    const { repo, agents, plans } = this.deps;
    const conversation = repo.findConversation(conversationId);
    const agent = agents.holding(user, conversation, chatbotId);
    if (!conversation || !agent) throw notFound('Conversation');
    plans.assertNotExpired(user);

    const recent = repo.recentMessages(conversation.id, '', READ_MESSAGES);
    let { question, history } = latestQuestion(recent);
    if (!question) {
      // the team wrote every one of the latest messages: the visitor's last one, with them as history
      question = repo.latestVisitorMessages(conversation.id)[0]?.trim() ?? '';
      history = recent.map((m) => ({ role: m.role, content: m.content }));
    }
    if (!question) throw conflict('The visitor has not written anything yet: there is nothing to draft a reply to');

    const ask = await askFor(this.deps, agent, question, history, DRAFT_INSTRUCTIONS);
    if (!ask.provider) {
      const found = answerFromKnowledge(agent, question, ask);
      if (!found.found)
        throw conflict(
          `No ${agent.provider} key is set for this agent's provider and its knowledge base holds no answer: ` +
            'add a provider key to get drafted replies',
        );
      return { draft: found.text, sources: found.sources, model: null };
    }
    let text: string;
    try {
      text = await ask.provider.complete({ ...ask.request, signal });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      this.deps.log.warn(
        { provider: err.provider, kind: err.kind, status: err.status, chatbotId: agent.id },
        'provider failed (drafted reply)',
      );
      throw new ApiError(502, `${err.message}; no reply was drafted`);
    }
    return { draft: text.trim(), sources: sourceRefs(ask.passages), model: agent.model };
  }
}

/**
 * The visitor's latest messages (the last run of them, joined as prompt.ts joins a run) and the
 * history before them, from the conversation's latest messages, oldest first. The run is the
 * latest one even when an answer follows it (the agent answered, then the visitor asked for a
 * person): the draft answers what the visitor last asked.
 */
function latestQuestion(messages: MessageRow[]): { question: string; history: ChatTurn[] } {
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role !== 'user') end--;
  let start = end;
  while (start > 0 && messages[start - 1]!.role === 'user') start--;
  const asked: string[] = [];
  for (const m of messages.slice(start, end)) {
    const text = m.content.trim();
    if (text && text !== asked.at(-1)) asked.push(text);
  }
  return {
    question: asked.join('\n\n'),
    history: messages.slice(0, start).map((m) => ({ role: m.role, content: m.content })),
  };
}
