import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { AnswerGapsRepo, GapRow } from './gaps-repo.js';
import type { KnowledgeService } from './service.js';
import { questionKey } from './question-key.js';
import type { SourceRow } from './tables.js';

/**
 * Answer gaps (docs/API-NOTES.md "Answer gaps"): questions an agent could not answer well, grouped by their
 * content words, for the owner to answer once with a `qa` source.
 *
 * Recorded by listeners inside the chat module's transactions (they only read and write rows):
 * - `no_passage`: a visitor's question answered with no passage (knowledge-only answers: none quoted)
 * - `unsure`: passages were found but the answer says it does not know (UNSURE_PHRASES, below)
 * - `thumbs_down`: the visitor's thumbs down on an answer; the gap is the visitor message before it
 * - `asked_person`: the visitor asked for a person; the gap is their latest message (the button)
 *   or the one before the message whose words escalated (an escalation keyword)
 *
 * Only visitor turns (the public chat) count; the owner's own test chat does not. A new occurrence
 * of a dismissed gap opens it again; an answered gap stays answered unless its answer gets a
 * thumbs down (or its qa source was deleted).
 */
export type GapReason = 'no_passage' | 'unsure' | 'thumbs_down' | 'asked_person';
export type { GapRow } from './gaps-repo.js';

/** the longest wording kept for a gap (a visitor message may be 4000 characters) */
const MAX_GAP_QUESTION = 500;
/** the most gaps one list shows */
const MAX_GAPS_LISTED = 500;

/**
 * Phrases by which an answer says it does not know (lower-case, apostrophes straight): a
 * heuristic over the whole answer, in English, German, French, Spanish, Italian, Dutch.
 */
const UNSURE_PHRASES = [
  "i don't know",
  'i do not know',
  "i'm not sure",
  'i am not sure',
  "i don't have information",
  "i don't have any information",
  'i do not have information',
  'i do not have any information',
  'no information',
  "i couldn't find",
  'i could not find',
  "i can't find",
  'i cannot find',
  "i'm unable to answer",
  'i am unable to answer',
  'not able to answer',
  'ich weiß nicht',
  'ich weiss nicht',
  'keine informationen',
  'bin mir nicht sicher',
  'je ne sais pas',
  "je n'ai pas d'information",
  'aucune information',
  'je ne suis pas sûr',
  'no lo sé',
  'no sé',
  'no tengo información',
  'non lo so',
  'non ho informazioni',
  'ik weet het niet',
  'geen informatie',
];

export function soundsUnsure(answer: string): boolean {
  const text = answer.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  return UNSURE_PHRASES.some((p) => text.includes(p));
}

/** Where a gap's question comes from: the visitor message before an answer, or the latest two. */
export interface VisitorQuestions {
  before(conversationId: string, answerId: string): string | undefined;
  latest(conversationId: string): [string | undefined, string | undefined];
}

export interface AnswerGapsDeps {
  repo: AnswerGapsRepo;
  agents: AgentsService;
  knowledge: KnowledgeService;
  clock: Clock;
  events: AppEvents;
  /** the visitor's questions, read by the chat module that owns the messages */
  questions: VisitorQuestions;
}

export class AnswerGapsService {
  constructor(private readonly deps: AnswerGapsDeps) {
    const { events } = deps;
    events.on('answer.stored', (e) => {
      if (!e.visitor) return;
      const reasons: GapReason[] = [];
      // no passage found: the agent's no-answer message says so, not counted as unsure too
      if (e.passages === 0) reasons.push('no_passage');
      else if (soundsUnsure(e.answer)) reasons.push('unsure');
      if (reasons.length > 0) this.record(e.chatbot_id, e.question, reasons, e.conversation_id);
    });
    events.on('message.rated', (e) => {
      if (e.value !== -1) return;
      const question = this.deps.questions.before(e.conversation_id, e.message_id);
      if (question !== undefined) this.record(e.chatbot_id, question, ['thumbs_down'], e.conversation_id);
    });
    events.on('conversation.escalated', (e) => {
      const [latest, before] = this.deps.questions.latest(e.conversation_id);
      const question = e.reason === 'rule' ? before : latest;
      if (question !== undefined) this.record(e.chatbot_id, question, ['asked_person'], e.conversation_id);
    });
    // erasure (docs/API-NOTES.md "Erasure"): a gap whose wording is the erased visitor's (it came last from
    // that conversation) goes with it; other gaps it asked count one conversation less
    events.on('conversation.erased', (e) => this.deps.repo.deleteByConversation(e.chatbot_id, e.conversation_id));
  }

  /**
   * Inside the emitter's transaction: a new gap, or one more occurrence of its group. The count is
   * of distinct conversations: the same conversation again (another wording, a thumbs down toggled,
   * an escalation after a thumbs down) adds its reasons and wording but not to the count.
   */
  record(chatbotId: string, rawQuestion: string, reasons: GapReason[], conversationId: string): void {
    const question = rawQuestion.trim().slice(0, MAX_GAP_QUESTION);
    const key = questionKey(question);
    if (!key) return;
    const now = isoNow(this.deps.clock);
    const gap = this.deps.repo.findByKey(chatbotId, key);
    if (!gap) {
      this.deps.repo.insert({
        id: newId(),
        chatbot_id: chatbotId,
        question_key: key,
        question,
        reasons,
        count: 1,
        status: 'open',
        source_id: null,
        conversation_id: conversationId,
        first_seen_at: now,
        last_seen_at: now,
      });
      return;
    }
    let status = gap.status;
    if (status === 'dismissed') status = 'open';
    else if (status === 'answered') {
      // its qa source deleted: nothing answers it any more
      const answerKept = gap.source_id ? this.deps.repo.sourceExists(gap.source_id) : false;
      if (!answerKept || reasons.includes('thumbs_down')) status = 'open';
    }
    this.deps.repo.recordOccurrence(gap.id, conversationId, {
      question,
      reasons: [...new Set([...gap.reasons, ...reasons])],
      status,
      conversation_id: conversationId,
      last_seen_at: now,
    });
  }

  /** The agent's gaps with this status, most asked first, then the most recent. */
  list(user: AuthUser, chatbotId: string, status: GapRow['status']): (GapRow & { check_reason: string | null })[] {
    const agent = this.deps.agents.get(user, chatbotId);
    return this.deps.repo.listByStatus(agent.id, status, MAX_GAPS_LISTED);
  }

  /** The owner's answer: a qa source (the gap's question unless another wording is given); the gap is answered. */
  async answer(
    user: AuthUser,
    chatbotId: string,
    gapId: string,
    input: { answer: string; question?: string },
  ): Promise<{ gap: GapRow; source: SourceRow }> {
    const gap = this.owned(user, chatbotId, gapId);
    const source = await this.deps.knowledge.addQaSource(user, chatbotId, {
      question: input.question ?? gap.question,
      answer: input.answer,
    });
    return { gap: this.deps.repo.setStatus(gap.id, { status: 'answered', source_id: source.id }), source };
  }

  dismiss(user: AuthUser, chatbotId: string, gapId: string): GapRow {
    const gap = this.owned(user, chatbotId, gapId);
    return this.deps.repo.setStatus(gap.id, { status: 'dismissed' });
  }

  /** A gap of one of the caller's agents; any other (missing, another agent's, another account's) is 404 alike. */
  private owned(user: AuthUser, chatbotId: string, gapId: string): GapRow {
    const gap = this.deps.repo.findById(gapId);
    if (!gap || !this.deps.agents.holding(user, gap, chatbotId)) throw notFound('Answer gap');
    return gap;
  }
}
