import { randomUUID } from 'node:crypto';
import { isoNow } from '../../platform/clock.js';
import { ApiError, badRequest, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { ProviderError } from '../../providers/llm/errors.js';
import type { ActionCard, ActionRunner } from '../actions/index.js';
import type { ChatbotRow, IdentityService, VisitorUser } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import type { KnowledgeService } from '../knowledge/index.js';
import { VISITOR_UNAVAILABLE_TEXT, type Account, type MessageQuota, type PlanService } from '../limits/index.js';
import { ChatConversations, type ConversationDeps, matchesKeyword } from './conversations.js';
import { HISTORY_MAX_MESSAGES } from './prompt.js';
import type { MessageRow } from './tables.js';
import { answerFromKnowledge, askFor, type ProviderLookup, type SourceRef, sourceRefs } from './turn-request.js';
import { answerWithActions, confirmPrompt } from './turn-actions.js';
import { type AnswerStoreDeps, storeAnswer } from './turn-answer-store.js';
import type { ChatInput, ChatResult, PreparedTurn } from './turn-types.js';
import { openConversation } from './turn-conversation.js';
import { assertDailyCap, assertSessionRate } from './visitor-limits.js';
import type { ConversationChannel } from '../../providers/channels/index.js';

export type { ProviderLookup, SourceRef } from './turn-request.js';

export type { ChatInput, ChatResult, PreparedTurn } from './turn-types.js';

/** The longest visitor message accepted (413 over it); longer texts belong in a knowledge source. */
export const MAX_MESSAGE_CHARS = FIELD_MAX.message;

export interface ChatServiceDeps extends ConversationDeps {
  knowledge: KnowledgeService;
  plans: PlanService;
  quota: MessageQuota;
  providers: ProviderLookup;
  /** the agent's actions, offered to the model as tools (modules/actions) */
  actions?: ActionRunner;
  /** verified visitors: checks the public chat's `user` against the agent's identity secret */
  identity: Pick<IdentityService, 'verify'>;
}

/** A chat turn: the visitor's (or owner's) message stored and checked, the answer asked for and stored. */
export class ChatService extends ChatConversations {
  private readonly knowledge: KnowledgeService;
  private readonly plans: PlanService;
  private readonly quota: MessageQuota;
  private readonly providers: ProviderLookup;
  private readonly actions: ActionRunner | undefined;
  private readonly identity: Pick<IdentityService, 'verify'>;
  private readonly answers: AnswerStoreDeps;

  constructor(deps: ChatServiceDeps) {
    super(deps);
    this.knowledge = deps.knowledge;
    this.plans = deps.plans;
    this.quota = deps.quota;
    this.providers = deps.providers;
    this.actions = deps.actions;
    this.identity = deps.identity;
    const { repo, agents, clock, log, events } = this;
    this.answers = {
      repo,
      agents,
      clock,
      log,
      events,
      emitMessage: (agent, message) => this.emitMessage(agent, message),
    };
  }

  /** Public chat: unknown agent 404, not public 403, inactive (or owner suspended) 400, owner's plan expired 402. */
  async preparePublic(chatbotId: string, input: ChatInput): Promise<PreparedTurn> {
    const agent = this.agents.reachable(chatbotId);
    const owner = this.agents.ownerOf(agent);
    this.plans.assertNotExpired(owner);
    // a `user` that does not verify is dropped whole: the visitor is anonymous, nothing of it is kept
    const claimed = this.identity.verify(agent.id, input.user);
    return this.prepare(agent, input, { account: owner, visitor: true, claimed });
  }

  /** The owner's chat (test panel, integrations): any of their agents, active or not. */
  async prepareOwned(user: AuthUser, chatbotId: string, input: ChatInput): Promise<PreparedTurn> {
    const agent = this.agents.get(user, chatbotId);
    this.plans.assertNotExpired(user);
    return this.prepare(agent, input, { account: user, visitor: false });
  }

  /**
   * A message from a messaging channel (modules/channels): the public chat's rules and limits.
   * `stored` runs inside the transaction that stores the visitor's message, so the channel's record
   * of it and the message are written together.
   */
  async prepareChannel(
    chatbotId: string,
    input: ChatInput & { session_id: string; channel: ConversationChannel },
    stored: (message: MessageRow) => void,
  ): Promise<PreparedTurn> {
    const agent = this.agents.answering(chatbotId);
    const owner = this.agents.ownerOf(agent);
    this.plans.assertNotExpired(owner);
    return this.prepare(agent, input, { account: owner, visitor: true, stored });
  }

  /**
   * The turn of a channel message stored by an attempt that a restart cut off before its answer:
   * asked again without storing or counting the message twice. Null when it was answered meanwhile,
   * or erased.
   */
  async resumeChannel(chatbotId: string, userMessageId: string): Promise<PreparedTurn | null> {
    const agent = this.agents.answering(chatbotId);
    const userMessage = this.repo.findMessage(userMessageId);
    const conversation = userMessage && this.repo.findConversation(userMessage.conversation_id);
    if (!userMessage || conversation?.chatbot_id !== agent.id || this.repo.answeredSince(userMessage)) return null;
    return this.ask({ agent, conversation, userMessage, visitor: true });
  }

  /**
   * An action started from its button in the widget (docs/ACTIONS.md "Without a model"): stored as
   * the visitor's message saying what they asked, then run as the model would have run it; the
   * answer is the look-up's fields in words, or the card to confirm.
   */
  async startAction(
    chatbotId: string,
    input: ChatInput & { session_id: string; action_id: string; inputs: Record<string, string> },
  ): Promise<ChatResult> {
    const agent = this.agents.reachable(chatbotId);
    const owner = this.agents.ownerOf(agent);
    this.plans.assertNotExpired(owner);
    const action = this.actions?.find(agent, input.action_id);
    if (!action || !this.actions) throw notFound('Action');
    const message = buttonMessage(action, input.inputs);
    const claimed = this.identity.verify(agent.id, input.user);
    const turn = await this.prepare(
      agent,
      { ...input, message },
      { account: owner, visitor: true, claimed, retrieve: false },
    );
    if (turn.conversation.handled_by === 'person') return this.result(turn, '', [], null);
    const ctx = {
      agent,
      conversationId: turn.conversation.id,
      sessionId: turn.conversation.session_id,
      visitor: turn.visitorUser,
    };
    const outcome = await this.actions.start(ctx, action, input.inputs);
    const text = outcome.kind === 'confirm' ? confirmPrompt(outcome.card) : outcome.visitorText;
    const card = outcome.kind === 'confirm' ? outcome.card : null;
    return this.result(turn, text, [], storeAnswer(this.answers, turn, text, []), card);
  }

  /**
   * Asks the model (or the knowledge base alone) and stores the answer. With `onDelta` the answer
   * streams; when it is cut off part-way the text produced so far is stored, marked `interrupted`,
   * so the conversation never holds a question whose shown answer is missing. A provider failure
   * before any text is a 502 and leaves the user's message stored (prompt.ts `buildTurns` merges it
   * into the next question).
   */
  async reply(
    turn: PreparedTurn,
    opts: { onDelta?: (text: string) => void; signal?: AbortSignal } = {},
  ): Promise<ChatResult> {
    // live handoff: a person handles the conversation, the visitor's message is stored and the agent stays silent
    if (turn.conversation.handled_by === 'person') return this.result(turn, '', [], null);
    let text = '';
    let card: ActionCard | null = null;
    let sources: SourceRef[];
    let used = turn.passages.length;
    if (!turn.provider) {
      // the citations go in `sources`, as for a model's answer (the widget lists and links them)
      const found = answerFromKnowledge(turn.agent, turn.userMessage.content, turn);
      text = found.text;
      used = found.used;
      sources = found.sources;
      opts.onDelta?.(text);
    } else {
      sources = sourceRefs(turn.passages);
      const request = { ...turn.request, signal: opts.signal };
      const streamed = opts.onDelta;
      const onDelta = streamed
        ? (delta: string) => {
            if (!delta) return;
            text += delta;
            streamed(delta);
          }
        : undefined;
      try {
        // the model may call actions as tools (turn-actions.ts), not on channels (cards need the widget)
        const withActions =
          this.actions && turn.conversation.channel === 'web'
            ? await answerWithActions(turn, this.actions, { onDelta, signal: opts.signal })
            : null;
        if (withActions) {
          if (!onDelta) text = withActions.text;
          card = withActions.card;
        } else if (onDelta) {
          for await (const delta of turn.provider.stream(request)) onDelta(delta);
        } else {
          text = await turn.provider.complete(request);
        }
      } catch (err) {
        const aborted = opts.signal?.aborted === true;
        // Cut off part-way, by a provider failure mid-stream or by the visitor leaving (client
        // abort): either way the text is not the model's whole answer, so both are stored the same
        // way, with the partial text the visitor saw and `interrupted` set for the owner reading the
        // transcript. It stays in the history sent to the model, as the visitor saw it.
        const stored =
          text && (aborted || err instanceof ProviderError)
            ? storeAnswer(this.answers, turn, text, sources, true)
            : null;
        if (aborted) return this.result(turn, text, sources, stored);
        if (err instanceof ProviderError) {
          this.log.warn(
            {
              provider: err.provider,
              kind: err.kind,
              status: err.status,
              chatbotId: turn.agent.id,
              interrupted: text !== '',
            },
            'provider failed',
          );
          // after text was streamed this becomes the stream's `error` event (routes.ts): it says the
          // text already sent is not the whole answer
          throw new ApiError(502, text ? `${err.message}; the answer was cut off` : err.message);
        }
        throw err;
      }
      if (opts.signal?.aborted && !text) return this.result(turn, text, sources, null);
    }
    const stored = storeAnswer(this.answers, turn, text, sources, false, used);
    return this.result(turn, text, sources, stored, card);
  }

  /**
   * `visitor`: the message came through the public route, so the agent's own visitor limits apply
   * (session rate, daily cap); the owner testing an agent is held only to the account's quota.
   */
  private async prepare(
    agent: ChatbotRow,
    input: ChatInput,
    by: {
      account: Account;
      visitor: boolean;
      claimed?: VisitorUser;
      retrieve?: boolean;
      stored?: (message: MessageRow) => void;
    },
  ): Promise<PreparedTurn> {
    const message = input.message.trim();
    if (!message) throw badRequest('message: must not be empty');
    if (message.length > MAX_MESSAGE_CHARS)
      throw new ApiError(413, `message: too long (at most ${MAX_MESSAGE_CHARS} characters)`);
    const sessionId = input.session_id ?? randomUUID();
    const now = isoNow(this.clock);

    // One transaction: the conversation (new or found), the visitor's details, the message, the counts.
    const { conversation, userMessage, visitorUser, isNew } = this.repo.transaction(() => {
      const opened = openConversation(this.repo, { agentId: agent.id, sessionId, input, claimed: by.claimed, now });
      let conversation = opened.conversation;
      const { isNew, visitorUser } = opened;
      // Limits are checked inside the transaction: a refused message rolls back with everything
      // above, and two requests cannot both take the last message of an allowance.
      if (by.visitor) {
        if (!isNew && agent.rate_limit_enabled) assertSessionRate(this.repo, this.clock, agent, conversation.id);
        if (agent.daily_message_limit !== null) assertDailyCap(this.repo, this.clock, agent);
      }
      this.quota.consume(
        by.account,
        by.visitor ? { message: agent.unavailable_message ?? VISITOR_UNAVAILABLE_TEXT } : undefined,
      );
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
        from_person: false,
      });
      this.agents.recordActivity(agent.id, 1, isNew ? 1 : 0);
      this.emitMessage(agent, userMessage);
      by.stored?.(userMessage);
      // a new message reopens a resolved conversation; a visitor's words on the agent's list escalate it
      if (conversation.status === 'resolved')
        conversation = this.repo.updateConversation(conversation.id, { status: 'active', resolved_at: null });
      if (by.visitor && conversation.status !== 'escalated' && matchesKeyword(message, agent.escalation_keywords)) {
        conversation = this.escalateRow(conversation, agent.user_id, 'rule');
      }
      return { conversation, userMessage, visitorUser, isNew };
    });

    const turn = { agent, conversation, userMessage, visitor: by.visitor, ...(visitorUser ? { visitorUser } : {}) };
    // an action's button (no model asked): nothing to search or prompt
    if (by.retrieve === false) {
      const request = { model: agent.model, system: '', messages: [], temperature: 0, maxTokens: 0 };
      return { ...turn, passages: [], provider: null, request };
    }
    // a conversation this message opened has no history to read
    return this.ask(turn, !isNew);
  }

  /** The passages, provider and prompt for a stored visitor message, after the history before it. */
  private async ask(
    turn: Omit<PreparedTurn, 'passages' | 'provider' | 'request'>,
    hasHistory = true,
  ): Promise<PreparedTurn> {
    const { agent, conversation, userMessage } = turn;
    const earlier = hasHistory ? this.repo.recentMessages(conversation.id, userMessage.id, HISTORY_MAX_MESSAGES) : [];
    const history = earlier.map((m) => ({ role: m.role, content: m.content }));
    const deps = { knowledge: this.knowledge, providers: this.providers };
    return { ...turn, ...(await askFor(deps, agent, userMessage.content, history)) };
  }

  /** The stored message keeps its sources for the owner; a visitor sees them only when the agent shows them. */
  private result(
    turn: PreparedTurn,
    text: string,
    sources: SourceRef[],
    messageId: string | null,
    action: ActionCard | null = null,
  ): ChatResult {
    const shown = turn.visitor && !turn.agent.show_sources ? [] : sources;
    return {
      message: text,
      conversation_id: turn.conversation.id,
      session_id: turn.conversation.session_id,
      sources: shown,
      message_id: messageId,
      handled_by: turn.conversation.handled_by,
      action,
    };
  }
}

/** The visitor's message for an action's button: "Order status (order_id: 1003)". */
function buttonMessage(action: { description: string }, inputs: Record<string, string>): string {
  const given = Object.entries(inputs).map(([k, v]) => `${k}: ${v}`);
  const text = given.length ? `${action.description} (${given.join(', ')})` : action.description;
  return text.slice(0, MAX_MESSAGE_CHARS);
}

/** What a messaging channel (modules/channels) asks of the chat turn. */
export type ChannelTurns = Pick<ChatService, 'prepareChannel' | 'resumeChannel' | 'reply'>;
