import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { notFound } from '../../platform/http/errors.js';
import type { AppEvents } from '../../platform/events.js';
import type { AgentsService } from '../agents/index.js';
import type { ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { ChatRepo } from './repo.js';
import type { ConversationRow, MessageRow } from './tables.js';

/**
 * A conversation as its owner reads it: `unread`, and the thumbs its answers got. The spec's
 * `rating` (1-5) is derived from the same thumbs, but one thumbs-down makes it 1, which says less
 * than "1 down, 0 up": the admin UI shows the counts (issue 31).
 */
export type ConversationView = ConversationRow & { unread: boolean; thumbs_up: number; thumbs_down: number };

export interface ConversationDeps {
  repo: ChatRepo;
  agents: AgentsService;
  clock: Clock;
  log: FastifyBaseLogger;
  events: AppEvents;
}

/**
 * A conversation's life apart from the turn itself: the owner's list and transcript, resolving
 * (by the owner or when idle), the visitor's thumbs and call for a person, erasure. ChatService
 * (service.ts) adds the turn on top of it.
 */
export class ChatConversations {
  protected readonly repo: ChatRepo;
  protected readonly agents: AgentsService;
  protected readonly clock: Clock;
  protected readonly log: FastifyBaseLogger;
  protected readonly events: AppEvents;

  constructor({ repo, agents, clock, log, events }: ConversationDeps) {
    this.repo = repo;
    this.agents = agents;
    this.clock = clock;
    this.log = log;
    this.events = events;
  }

  /**
   * The agent's conversations (idle ones resolved first), filtered by status and by text in the
   * transcript; `unread`: a message came after the owner last opened the transcript.
   */
  listConversations(
    user: AuthUser,
    chatbotId: string,
    filter: { status?: ConversationRow['status']; q?: string } = {},
  ): ConversationView[] {
    const agent = this.agents.get(user, chatbotId);
    this.resolveIdle(agent.id);
    const thumbs = this.repo.thumbsByConversation(agent.id);
    return this.repo.listConversations(agent.id, filter).map((c) => {
      const { up, down } = thumbs.get(c.id) ?? { up: 0, down: 0 };
      return { ...c, unread: isUnread(c), thumbs_up: up, thumbs_down: down };
    });
  }

  /** Messages of a conversation of one of the caller's agents; 404 otherwise. Opening it marks it read. */
  listMessages(user: AuthUser, conversationId: string): MessageRow[] {
    const conversation = this.repo.findConversation(conversationId);
    // another account's conversation is 404 with the same detail as a missing one (docs/API.md "Errors")
    if (!conversation || !this.agents.holding(user, conversation)) throw notFound('Conversation');
    return this.repo.transaction(() => {
      this.repo.updateConversation(conversation.id, { owner_read_at: isoNow(this.clock) });
      return this.repo.listMessages(conversation.id);
    });
  }

  /**
   * The owner marks a conversation resolved, or reopens it (active). 404 for a missing one, one of
   * another agent and another account's alike. `conversation.resolved` is emitted on the change.
   */
  setStatus(
    user: AuthUser,
    chatbotId: string,
    conversationId: string,
    status: 'active' | 'resolved',
  ): ConversationView {
    const conversation = this.repo.findConversation(conversationId);
    const agent = this.agents.holding(user, conversation, chatbotId);
    if (!conversation || !agent) throw notFound('Conversation');
    const row = this.repo.transaction(() => {
      const current = this.repo.findConversation(conversation.id);
      if (!current) throw notFound('Conversation');
      if (status === 'resolved')
        return current.status === 'resolved' ? current : this.resolve(current, agent.user_id, 'owner');
      return current.status === 'active'
        ? current
        : this.repo.updateConversation(current.id, { status: 'active', resolved_at: null });
    });
    const { up, down } = this.repo.feedbackCounts(row.id);
    return { ...row, unread: isUnread(row), thumbs_up: up, thumbs_down: down };
  }

  /**
   * Active conversations idle for longer than their agent's `auto_resolve_after_h` become
   * resolved (`by: 'idle'`); all agents, or one. Returns how many. Run by a timer and on listing.
   */
  resolveIdle(chatbotId: string | null = null): number {
    const now = isoNow(this.clock);
    let resolved = 0;
    for (;;) {
      const batch = this.repo.transaction(() => {
        const idle = this.repo.idleConversations(now, chatbotId, 200);
        for (const { conversation, account_id } of idle) this.resolve(conversation, account_id, 'idle');
        return idle.length;
      });
      resolved += batch;
      if (batch < 200) return resolved;
    }
  }

  /**
   * The visitor's thumbs on an answer: 1 up, -1 down, 0 clears. Only an assistant message of this
   * session's conversation with this agent (404 otherwise). The conversation's `rating` becomes
   * the share of thumbs up among its rated answers on a 1-5 scale (null when none is rated).
   */
  feedback(
    chatbotId: string,
    input: { session_id: string; message_id: string; value: -1 | 0 | 1 },
  ): { message_id: string; feedback: number | null; rating: number | null } {
    const agent = this.agents.reachable(chatbotId);
    return this.repo.transaction(() => {
      const conversation = this.repo.findConversationBySession(agent.id, input.session_id);
      const message = conversation ? this.repo.findMessage(input.message_id) : undefined;
      if (!conversation || !message || message.conversation_id !== conversation.id || message.role !== 'assistant')
        throw notFound('Message');
      const value = input.value === 0 ? null : input.value;
      this.repo.setFeedback(message.id, value);
      const { up, down } = this.repo.feedbackCounts(conversation.id);
      const rating = up + down === 0 ? null : Math.round(1 + (4 * up) / (up + down));
      this.repo.updateConversation(conversation.id, { rating });
      this.events.emit('message.rated', {
        account_id: agent.user_id,
        chatbot_id: agent.id,
        conversation_id: conversation.id,
        message_id: message.id,
        value: input.value,
      });
      return { message_id: message.id, feedback: value, rating };
    });
  }

  /**
   * The visitor asks for a person: the session's conversation becomes escalated (404 when it has
   * none). `handoff` says whether a person can come now; when not (outside the agent's office
   * hours, or everyone of the team away) the visitor is offered the contact form at once, with
   * when the office hours open next, instead of waiting for the escalation's timeout.
   */
  escalate(
    chatbotId: string,
    input: { session_id: string },
  ): {
    conversation_id: string;
    status: 'escalated';
    escalated_at: string;
    handoff: { available: boolean; next_opening: string | null };
  } {
    const agent = this.agents.reachable(chatbotId);
    const handoff = this.agents.handoffAvailability(agent);
    return this.repo.transaction(() => {
      const conversation = this.repo.findConversationBySession(agent.id, input.session_id);
      if (!conversation) throw notFound('Conversation');
      const row =
        conversation.status === 'escalated' ? conversation : this.escalateRow(conversation, agent.user_id, 'visitor');
      return { conversation_id: row.id, status: 'escalated' as const, escalated_at: row.escalated_at!, handoff };
    });
  }

  /** inside a transaction */
  private resolve(conversation: ConversationRow, accountId: string, by: 'owner' | 'idle'): ConversationRow {
    const at = isoNow(this.clock);
    const row = this.repo.updateConversation(conversation.id, { status: 'resolved', resolved_at: at });
    this.events.emit('conversation.resolved', {
      account_id: accountId,
      chatbot_id: row.chatbot_id,
      conversation_id: row.id,
      session_id: row.session_id,
      at,
      by,
    });
    return row;
  }
  /** inside a transaction */
  protected escalateRow(conversation: ConversationRow, accountId: string, reason: 'visitor' | 'rule'): ConversationRow {
    const at = isoNow(this.clock);
    const row = this.repo.updateConversation(conversation.id, {
      status: 'escalated',
      escalated_at: at,
      resolved_at: null,
    });
    this.events.emit('conversation.escalated', {
      account_id: accountId,
      chatbot_id: row.chatbot_id,
      conversation_id: row.id,
      session_id: row.session_id,
      at,
      reason,
    });
    return row;
  }

  protected emitMessage(agent: ChatbotRow, message: MessageRow): void {
    this.events.emit('message.created', {
      account_id: agent.user_id,
      chatbot_id: agent.id,
      conversation_id: message.conversation_id,
      message: { id: message.id, role: message.role, content: message.content, timestamp: message.timestamp },
    });
  }

  /**
   * Erasure of one visitor (GDPR art. 17; docs/API-NOTES.md "Erasure"): the conversation with all its
   * messages and, unless `keepLeads`, the agent's widget leads of the same session with their
   * alert e-mails, in one transaction. The agent's counts (and, by the database's triggers, the
   * analytics rollup) go down by what was erased. 404 for a missing conversation, one of another
   * agent and another account's, alike; nothing is deleted then.
   */
  eraseConversation(
    user: AuthUser,
    chatbotId: string,
    conversationId: string,
    opts: { keepLeads: boolean },
  ): { messages: number } {
    const conversation = this.repo.findConversation(conversationId);
    const agent = this.agents.holding(user, conversation, chatbotId);
    if (!conversation || !agent) throw notFound('Conversation');
    return this.repo.erasing(() =>
      this.repo.transaction(() => {
        const erased = this.repo.eraseConversation(conversation);
        if (!erased) throw notFound('Conversation');
        this.agents.recordActivity(agent.id, -erased.messages, -1);
        // the leads module erases the session's leads and their alerts, webhooks the deliveries
        // that carried any of it: all in this transaction
        this.events.emit('conversation.erased', {
          account_id: agent.user_id,
          chatbot_id: agent.id,
          conversation_id: conversation.id,
          session_id: conversation.session_id,
          keep_leads: opts.keepLeads,
        });
        return erased;
      }),
    );
  }
}

/** A message the owner has not seen: one came after the transcript was last opened. */
function isUnread(c: ConversationRow): boolean {
  return c.message_count > 0 && (c.owner_read_at === null || c.updated_at > c.owner_read_at);
}

/** Whether `text` holds one of `keywords` as a whole word (or phrase), case-insensitively. */
export function matchesKeyword(text: string, keywords: readonly string[]): boolean {
  return keywords.some((keyword) => {
    const k = keyword.trim();
    if (!k) return false;
    const escaped = k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
  });
}
