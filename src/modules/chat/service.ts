import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { ApiError, badRequest, notFound, tooManyRequests } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { ProviderError } from '../../providers/llm/errors.js';
import type { ChatRequest, LlmProvider, ProviderName } from '../../providers/llm/types.js';
import type { AgentsService } from '../agents/index.js';
import type { ChatbotRow } from '../agents/tables.js';
import type { AuthUser } from '../auth/index.js';
import type { KnowledgeService, Passage } from '../knowledge/index.js';
import { VISITOR_UNAVAILABLE_TEXT, type Account, type MessageQuota, type PlanService } from '../limits/index.js';
import { knowledgeOnlyAnswer } from './knowledge-answer.js';
import { buildSystemPrompt, buildTurns, HISTORY_MAX_MESSAGES } from './prompt.js';
import { ChatRepo } from './repo.js';
import type { ConversationRow, MessageRow } from './tables.js';

export interface ChatInput {
  message: string;
  session_id?: string;
  user_name?: string;
  user_email?: string;
}

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

export interface ChatResult {
  message: string;
  conversation_id: string;
  session_id: string;
  sources: SourceRef[];
}

/** Everything decided before the model is asked: stored user message, passages, prompt. */
export interface PreparedTurn {
  agent: ChatbotRow;
  conversation: ConversationRow;
  userMessage: MessageRow;
  passages: Passage[];
  request: ChatRequest;
  /** null: no key for the agent's provider, answer from the knowledge base alone */
  provider: LlmProvider | null;
  /** asked through the public route: the agent's visitor settings apply (citations shown or not) */
  visitor: boolean;
}

/** The longest visitor message accepted (413 over it); longer texts belong in a knowledge source. */
export const MAX_MESSAGE_CHARS = 4000;

export type ProviderLookup = (name: ProviderName) => LlmProvider | null;
export type AccountLookup = (userId: string) => Account;

const HOUR_MS = 3600_000;

export class ChatService {
  constructor(
    private readonly repo: ChatRepo,
    private readonly agents: AgentsService,
    private readonly knowledge: KnowledgeService,
    private readonly plans: PlanService,
    private readonly quota: MessageQuota,
    private readonly accountOf: AccountLookup,
    private readonly providers: ProviderLookup,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Public chat: unknown agent 404, not public 403, inactive (or owner suspended) 400, owner's plan expired 402. */
  async preparePublic(chatbotId: string, input: ChatInput): Promise<PreparedTurn> {
    const agent = this.agents.reachable(chatbotId);
    const owner = this.accountOf(agent.user_id);
    this.plans.assertNotExpired(owner);
    return this.prepare(agent, input, { account: owner, visitor: true });
  }

  /** The owner's chat (test panel, integrations): any of their agents, active or not. */
  async prepareOwned(user: AuthUser, chatbotId: string, input: ChatInput): Promise<PreparedTurn> {
    const agent = this.agents.get(user, chatbotId);
    this.plans.assertNotExpired(user);
    return this.prepare(agent, input, { account: user, visitor: false });
  }

  /**
   * Asks the model (or the knowledge base alone) and stores the answer. With `onDelta` the answer
   * streams; when it is cut off part-way the text produced so far is stored, marked `interrupted`,
   * so the conversation never holds a question whose shown answer is missing. A provider failure
   * before any text is a 502 and leaves the user's message stored (prompt.ts `buildTurns` merges it
   * into the next question).
   */
  async reply(turn: PreparedTurn, opts: { onDelta?: (text: string) => void; signal?: AbortSignal } = {}): Promise<ChatResult> {
    let text = '';
    let sources: SourceRef[];
    if (!turn.provider) {
      // the citations go in `sources`, as for a model's answer (the widget lists and links them),
      // not into the text a second time
      const found = knowledgeOnlyAnswer(turn.userMessage.content, turn.passages, { noAnswer: turn.agent.no_answer_message, showSources: false });
      text = found.text;
      sources = sourceRefs(turn.passages.filter((p) => found.used.includes(p)));
      opts.onDelta?.(text);
    } else {
      sources = sourceRefs(turn.passages);
      const request = { ...turn.request, signal: opts.signal };
      try {
        if (opts.onDelta) {
          for await (const delta of turn.provider.stream(request)) {
            if (!delta) continue;
            text += delta;
            opts.onDelta(delta);
          }
        } else {
          text = await turn.provider.complete(request);
        }
      } catch (err) {
        const aborted = opts.signal?.aborted === true;
        // Cut off part-way, by a provider failure mid-stream or by the visitor leaving (client
        // abort): either way the text is not the model's whole answer, so both are stored the same
        // way, with the partial text the visitor saw and `interrupted` set for the owner reading the
        // transcript. It stays in the history sent to the model, as the visitor saw it.
        if (text && (aborted || err instanceof ProviderError)) {
          this.storeAnswer(turn, text, sources, true);
        }
        if (aborted) return this.result(turn, text, sources);
        if (err instanceof ProviderError) {
          this.log.warn({ provider: err.provider, kind: err.kind, status: err.status, chatbotId: turn.agent.id, interrupted: text !== '' }, 'provider failed');
          // after text was streamed this becomes the stream's `error` event (routes.ts): it says the
          // text already sent is not the whole answer
          throw new ApiError(502, text ? `${err.message}; the answer was cut off` : err.message);
        }
        throw err;
      }
      if (opts.signal?.aborted && !text) return this.result(turn, text, sources);
    }
    this.storeAnswer(turn, text, sources);
    return this.result(turn, text, sources);
  }

  listConversations(user: AuthUser, chatbotId: string): ConversationRow[] {
    const agent = this.agents.get(user, chatbotId);
    return this.repo.listConversations(agent.id);
  }

  /** Messages of a conversation of one of the caller's agents; 404 otherwise. */
  listMessages(user: AuthUser, conversationId: string): MessageRow[] {
    const conversation = this.repo.findConversation(conversationId);
    // another account's conversation is 404 with the same detail as a missing one (CONTRACT)
    const agent = conversation ? this.agents.findById(conversation.chatbot_id) : undefined;
    if (!conversation || agent?.user_id !== user.id) throw notFound('Conversation');
    return this.repo.listMessages(conversation.id);
  }

  /**
   * Erasure of one visitor (GDPR art. 17; README "Erasure"): the conversation with all its
   * messages and, unless `keepLeads`, the agent's widget leads of the same session with their
   * alert e-mails, in one transaction. The agent's counts (and, by the database's triggers, the
   * analytics rollup) go down by what was erased. 404 for a missing conversation, one of another
   * agent and another account's, alike; nothing is deleted then.
   */
  eraseConversation(user: AuthUser, chatbotId: string, conversationId: string, opts: { keepLeads: boolean }): { messages: number; leads: number; alerts: number } {
    const conversation = this.repo.findConversation(conversationId);
    const agent = conversation?.chatbot_id === chatbotId ? this.agents.findById(chatbotId) : undefined;
    if (!conversation || !agent || agent.user_id !== user.id) throw notFound('Conversation');
    return this.repo.erasing(() =>
      this.repo.transaction(() => {
        const erased = this.repo.eraseConversation(conversation, agent.user_id, opts.keepLeads);
        if (!erased) throw notFound('Conversation');
        this.agents.recordActivity(agent.id, -erased.messages, -1);
        return erased;
      }),
    );
  }

  /**
   * `visitor`: the message came through the public route, so the agent's own visitor limits apply
   * (session rate, daily cap); the owner testing an agent is held only to the account's quota.
   */
  private async prepare(agent: ChatbotRow, input: ChatInput, by: { account: Account; visitor: boolean }): Promise<PreparedTurn> {
    const message = input.message.trim();
    if (!message) throw badRequest('message: must not be empty');
    if (message.length > MAX_MESSAGE_CHARS) throw new ApiError(413, `message: too long (at most ${MAX_MESSAGE_CHARS} characters)`);
    const sessionId = input.session_id ?? randomUUID();
    const now = this.clock.now().toISOString();

    // One transaction: the conversation (new or found), the visitor's details, the message, the counts.
    const { conversation, userMessage } = this.repo.transaction(() => {
      let conversation = this.repo.findConversationBySession(agent.id, sessionId);
      const isNew = !conversation;
      conversation ??= this.repo.insertConversation({
        id: newId(),
        chatbot_id: agent.id,
        session_id: sessionId,
        user_name: input.user_name ?? null,
        user_email: input.user_email ?? null,
        status: 'active',
        rating: null,
        message_count: 0,
        escalated_at: null,
        resolved_at: null,
        owner_read_at: null,
        created_at: now,
        updated_at: now,
      });
      if (!isNew) {
        const visitor: { user_name?: string; user_email?: string } = {};
        if (input.user_name !== undefined) visitor.user_name = input.user_name;
        if (input.user_email !== undefined) visitor.user_email = input.user_email;
        this.repo.updateVisitor(conversation.id, visitor);
      }
      // Limits are checked inside the transaction: a refused message rolls back with everything
      // above, and two requests cannot both take the last message of an allowance.
      if (by.visitor) {
        if (!isNew && agent.rate_limit_enabled) this.assertSessionRate(agent, conversation.id);
        if (agent.daily_message_limit !== null) this.assertDailyCap(agent);
      }
      this.quota.consume(by.account, by.visitor ? { message: agent.unavailable_message ?? VISITOR_UNAVAILABLE_TEXT } : undefined);
      const userMessage = this.repo.insertMessage({
        id: newId(),
        conversation_id: conversation.id,
        chatbot_id: agent.id,
        role: 'user',
        content: message,
        timestamp: now,
        response_time_ms: null,
        sources_json: null,
        interrupted: false,
        feedback: null,
      });
      this.agents.recordActivity(agent.id, 1, isNew ? 1 : 0);
      return { conversation, userMessage };
    });

    const passages = await this.knowledge.search(agent.id, message);
    const history = this.repo
      .recentMessages(conversation.id, userMessage.id, HISTORY_MAX_MESSAGES)
      .map((m) => ({ role: m.role, content: m.content }));
    const request: ChatRequest = {
      model: agent.model,
      system: buildSystemPrompt(agent.instructions, passages),
      messages: buildTurns(history, message),
      temperature: agent.temperature,
      maxTokens: agent.max_tokens,
    };
    return { agent, conversation, userMessage, passages, request, provider: this.providers(agent.provider), visitor: by.visitor };
  }

  /** `messages_per_hour` visitor messages per session in any rolling hour (CONTRACT "Plans"). */
  private assertSessionRate(agent: ChatbotRow, conversationId: string): void {
    const now = this.clock.now().getTime();
    const { count, earliest } = this.repo.userMessagesSince(conversationId, new Date(now - HOUR_MS).toISOString());
    if (count < agent.messages_per_hour) return;
    // the allowance grows again when the earliest message of the last hour leaves the window
    const retryAfterS = (Date.parse(earliest!) + HOUR_MS - now) / 1000;
    throw tooManyRequests(`Too many messages: this chat allows ${agent.messages_per_hour} messages per hour; try again later`, retryAfterS);
  }

  /** The agent's optional cap on visitor messages per UTC day (beyond the spec). */
  private assertDailyCap(agent: ChatbotRow): void {
    const now = this.clock.now();
    const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const count = this.repo.agentUserMessagesSince(agent.id, new Date(dayStart).toISOString());
    if (count < agent.daily_message_limit!) return;
    const retryAfterS = (dayStart + 24 * HOUR_MS - now.getTime()) / 1000;
    throw tooManyRequests('This chatbot has reached its message limit for today; please try again tomorrow', retryAfterS);
  }

  /** `interrupted`: `text` is only the part produced before the answer was cut off */
  private storeAnswer(turn: PreparedTurn, text: string, sources: SourceRef[], interrupted = false): void {
    const now = this.clock.now();
    try {
      this.storeAnswerRow(turn, now, text, sources, interrupted);
    } catch (err) {
      // the owner erased the conversation while its answer was being written (the message's
      // foreign key refuses it): the answer is not stored, since it would bring back part of what
      // was erased; the visitor still gets it
      if (sqliteCode(err) !== 'SQLITE_CONSTRAINT_FOREIGNKEY' || this.repo.findConversation(turn.conversation.id)) throw err;
      this.log.info({ chatbotId: turn.agent.id }, 'answer not stored: its conversation was erased meanwhile');
    }
  }

  private storeAnswerRow(turn: PreparedTurn, now: Date, text: string, sources: SourceRef[], interrupted: boolean): void {
    this.repo.transaction(() => {
      this.repo.insertMessage({
        id: newId(),
        conversation_id: turn.conversation.id,
        chatbot_id: turn.agent.id,
        role: 'assistant',
        content: text,
        timestamp: now.toISOString(),
        response_time_ms: Math.max(0, now.getTime() - Date.parse(turn.userMessage.timestamp)),
        sources_json: JSON.stringify(sources),
        interrupted,
        feedback: null,
      });
      this.agents.recordActivity(turn.agent.id, 1, 0);
    });
  }

  /** The stored message keeps its sources for the owner; a visitor sees them only when the agent shows them. */
  private result(turn: PreparedTurn, text: string, sources: SourceRef[]): ChatResult {
    const shown = turn.visitor && !turn.agent.show_sources ? [] : sources;
    return { message: text, conversation_id: turn.conversation.id, session_id: turn.conversation.session_id, sources: shown };
  }
}

/** The SQLite error code of a failed statement (also when wrapped by drizzle, as its `cause`). */
function sqliteCode(err: unknown): unknown {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code ?? e?.cause?.code;
}

function sourceRefs(passages: Passage[]): SourceRef[] {
  const seen = new Map<string, SourceRef>();
  for (const p of passages) {
    const url = p.pageUrl ?? p.sourceUrl;
    const key = `${p.sourceId} ${p.pageUrl ?? ''} ${p.page ?? ''}`;
    if (!seen.has(key)) seen.set(key, { source_id: p.sourceId, name: p.sourceName, url, title: p.title, page: p.page });
  }
  return [...seen.values()];
}
