import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEventMap, AppEvents } from '../../platform/events.js';
import { ApiError, badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { ChatRepo } from './repo.js';
import { MAX_MESSAGE_CHARS } from './service.js';
import { type HandoffState, handoffState, type LiveMessage, liveMessage } from './handoff-state.js';
import type { People, TeamHandoffState } from './people.js';
import type { ConversationRow } from './tables.js';
import { LiveHub } from './live-hub.js';

export type { LiveEvent } from './live-hub.js';

/**
 * Live handoff (docs/API-NOTES.md "Live handoff"): the owner takes a conversation over, writes to the visitor
 * and hands it back. What happens is published to the open streams of the visitor (per
 * conversation) and of the owner (per agent) only after the storing transaction committed: the
 * `message.created` / `conversation.escalated` listeners run inside it, so they only note the
 * event, and `setImmediate` (after the synchronous transaction has committed or rolled back)
 * publishes it when the stored row is there, never for a rolled-back one.
 */

/** How many of a person's messages the visitor's stream repeats on connect. */
export const PERSON_MESSAGES_ON_CONNECT = 50;

/**
 * "A visitor asked for a person" e-mails: one per conversation, and at most this many per agent
 * within an hour (docs/API-NOTES.md "Live handoff"); the one that reaches it says so. Escalations past it are
 * not e-mailed: they show in the admin's conversations (escalated, a toast on the live stream).
 */
export const ESCALATION_MAILS_PER_AGENT_PER_HOUR = 10;
const HOUR_MS = 60 * 60_000;

/**
 * What a person is told (docs/API-NOTES.md "Notifications"), after the change is committed: a
 * visitor asked for a person (everyone in the account), or wrote into a conversation a person took
 * (that person).
 */
export interface PersonNotice {
  kind: 'escalated' | 'visitor_message';
  account_id: string;
  chatbot_id: string;
  agent_name: string;
  conversation_id: string;
  /** the admin UI's link to the conversation */
  url: string;
  /** visitor_message: the person who took the conversation; escalated: null (the whole account) */
  person_id: string | null;
  /** visitor_message: what the visitor wrote */
  text?: string;
}

/** Who is told when a visitor asks for a person (wired in app.ts; the notifications module). */
export interface HandoffNotices {
  /** the base of the link to the conversation */
  publicUrl: string;
  /** the addresses of the account's people who want the escalation e-mail */
  escalationMailTo: (accountId: string) => string[];
  /** queues an e-mail in the caller's transaction */
  queueMail: (accountId: string, to: string, subject: string, body: string) => void;
  /** after the commit: the open admin tabs and Web Push */
  notify: (notice: PersonNotice) => void;
}

export interface HandoffDeps {
  repo: ChatRepo;
  agents: AgentsService;
  clock: Clock;
  events: AppEvents;
  log: FastifyBaseLogger;
  /** e-mails, browser and push notifications when a visitor asks for a person (none when left out) */
  notices?: HandoffNotices;
  /** the account's people: assignment (docs/API-NOTES.md "Inbox") */
  people: People;
}

export class HandoffService {
  readonly hub = new LiveHub();

  private readonly repo: ChatRepo;
  private readonly agents: AgentsService;
  private readonly clock: Clock;
  private readonly events: AppEvents;
  private readonly log: FastifyBaseLogger;
  private readonly notices: HandoffNotices | undefined;
  private readonly people: People;
  /**
   * Why a person's reply cannot reach the visitor now (a messaging network's reply window), or
   * null; set at app wiring by the channels module, which the chat module does not import.
   */
  replyRefusal: (conversationId: string) => string | null = () => null;

  constructor({ repo, agents, clock, events, log, notices, people }: HandoffDeps) {
    this.people = people;
    this.repo = repo;
    this.agents = agents;
    this.clock = clock;
    this.events = events;
    this.log = log;
    this.notices = notices;
    // a visitor asked for a person: the e-mails, queued in the escalation's transaction
    if (notices) events.on('conversation.escalated', (e) => this.mailPeople(e, notices));
    events.on('message.created', (e) => {
      setImmediate(() => this.publishStored(e.chatbot_id, e.conversation_id, e.message.id, e.message.role));
    });
    events.on('conversation.escalated', (e) => {
      setImmediate(() => {
        const row = this.repo.findConversation(e.conversation_id);
        // committed (not rolled back) and still this escalation
        if (row?.status !== 'escalated' || row.escalated_at !== e.at) return;
        this.hub.publish(e.chatbot_id, { type: 'status', conversation_id: row.id, status: 'escalated', at: e.at });
        this.tell('escalated', e.account_id, e.chatbot_id, row.id, null);
      });
    });
  }

  /** The admin UI's link to a conversation. */
  private link(chatbotId: string, conversationId: string): string {
    const base = (this.notices?.publicUrl ?? '').replace(/\/$/, '');
    return `${base}/#/agents/${encodeURIComponent(chatbotId)}/conversations/${encodeURIComponent(conversationId)}`;
  }

  /** After the commit: the browser and push notifications (never throws). */
  private tell(
    kind: PersonNotice['kind'],
    accountId: string,
    chatbotId: string,
    conversationId: string,
    personId: string | null,
    text?: string,
  ): void {
    if (!this.notices) return;
    try {
      this.notices.notify({
        kind,
        account_id: accountId,
        chatbot_id: chatbotId,
        agent_name: this.agents.findById(chatbotId)?.name ?? 'your agent',
        conversation_id: conversationId,
        url: this.link(chatbotId, conversationId),
        person_id: personId,
        ...(text === undefined ? {} : { text }),
      });
    } catch (err) {
      this.log.warn({ err }, 'notifications: telling the team failed');
    }
  }

  /**
   * Inside the escalation's transaction: e-mails everyone in the account who wants it, unless this
   * conversation already did, or the agent's e-mailed escalations of the last hour reached
   * ESCALATION_MAILS_PER_AGENT_PER_HOUR.
   */
  private mailPeople(e: AppEventMap['conversation.escalated'], notices: HandoffNotices): void {
    const now = this.clock.now();
    const hourAgo = new Date(now.getTime() - HOUR_MS).toISOString();
    const sent = this.repo.ownerNotifiedSince(e.chatbot_id, hourAgo);
    if (sent >= ESCALATION_MAILS_PER_AGENT_PER_HOUR) return;
    const recipients = notices.escalationMailTo(e.account_id);
    if (recipients.length === 0) return;
    if (!this.repo.markOwnerNotified(e.conversation_id, now.toISOString())) return;
    const agent = this.agents.findById(e.chatbot_id);
    const agentName = agent?.name ?? 'your agent';
    const link = this.link(e.chatbot_id, e.conversation_id);
    const lines = [
      `A visitor of ${agentName} asked to talk to a person (${e.reason === 'visitor' ? 'the "Talk to a person" button' : 'one of the escalation keywords'}).`,
      '',
      `Take the conversation over and reply: ${link}`,
    ];
    const handoff = agent && this.agents.handoffAvailability(agent);
    if (handoff && !handoff.available) {
      lines.push(
        '',
        `Nobody was available (outside the office hours, or everyone away), so the visitor was offered the contact form at once${handoff.next_opening ? `, saying you answer at ${handoff.next_opening.slice(0, 16).replace('T', ' ')} UTC` : ''}.`,
      );
    }
    if (sent + 1 === ESCALATION_MAILS_PER_AGENT_PER_HOUR) {
      const first = this.repo.firstOwnerNotifiedSince(e.chatbot_id, hourAgo) ?? now.toISOString();
      const until = new Date(Date.parse(first) + HOUR_MS).toISOString().slice(11, 16);
      lines.push(
        '',
        `This is the ${ESCALATION_MAILS_PER_AGENT_PER_HOUR}th e-mail within an hour about visitors of ${agentName} asking for a person: until ${until} UTC further requests are not e-mailed; they show in the admin's conversations (status escalated) as usual.`,
      );
    }
    for (const to of recipients)
      notices.queueMail(e.account_id, to, `A visitor asked for a person on ${agentName}`, `${lines.join('\n')}\n`);
  }

  private publishStored(chatbotId: string, conversationId: string, messageId: string, role: string): void {
    try {
      // most turns: no stream open on the agent or the conversation, and no person took it; then
      // there is nobody to tell, and the message is not read back
      const listening = this.hub.listening(chatbotId, conversationId);
      if (!listening && role !== 'user') return;
      // a visitor wrote into a conversation a person took: that person is told
      const c = role === 'user' ? this.repo.findConversation(conversationId) : undefined;
      const takenBy = c?.handled_by === 'person' ? c.taken_by : null;
      if (!listening && !takenBy) return;
      const m = this.repo.findMessage(messageId);
      if (!m) return; // rolled back (or erased meanwhile)
      if (listening)
        this.hub.publish(chatbotId, { type: 'message', conversation_id: conversationId, message: liveMessage(m) });
      const account = takenBy ? this.agents.findById(chatbotId)?.user_id : undefined;
      if (takenBy && account) this.tell('visitor_message', account, chatbotId, conversationId, takenBy, m.content);
    } catch (err) {
      this.log.warn({ err }, 'live handoff: publishing a message failed');
    }
  }

  /** The owner's conversation of one of their agents; 404 alike for missing, another agent's and another account's. */
  private owned(
    user: AuthUser,
    chatbotId: string,
    conversationId: string,
  ): { agent: ChatbotRow; conversation: ConversationRow } {
    const conversation = this.repo.findConversation(conversationId);
    const agent = this.agents.holding(user, conversation, chatbotId);
    if (!conversation || !agent) throw notFound('Conversation');
    return { agent, conversation };
  }

  /** The owner's agent (404 otherwise), for the owner's live stream. */
  ownedAgent(user: AuthUser, chatbotId: string): ChatbotRow {
    return this.agents.get(user, chatbotId);
  }

  /**
   * A person takes the conversation over: the agent stops answering it, and an unassigned
   * conversation becomes the taker's. Idempotent.
   */
  take(user: AuthUser, chatbotId: string, conversationId: string): TeamHandoffState {
    const { conversation } = this.owned(user, chatbotId, conversationId);
    const row = this.repo.transaction(() => {
      const current = this.repo.findConversation(conversation.id);
      if (!current) throw notFound('Conversation');
      const assign = current.assigned_to === null ? { assigned_to: user.actor.id } : {};
      if (current.handled_by === 'person') return this.repo.updateConversation(current.id, assign);
      const at = isoNow(this.clock);
      // a resolved conversation the owner picks up again is open again
      return this.repo.updateConversation(current.id, {
        ...assign,
        handled_by: 'person',
        taken_at: at,
        taken_by: user.actor.id,
        ...(current.status === 'resolved' ? { status: 'active' as const, resolved_at: null } : {}),
      });
    });
    if (row.taken_at && row.handled_by === 'person' && conversation.handled_by !== 'person') {
      this.hub.publish(chatbotId, { type: 'status', conversation_id: row.id, status: 'taken', at: row.taken_at });
    }
    return this.people.teamState(row);
  }

  /** The agent answers again. Idempotent. */
  handBack(user: AuthUser, chatbotId: string, conversationId: string): TeamHandoffState {
    const { conversation } = this.owned(user, chatbotId, conversationId);
    const row = this.repo.transaction(() => {
      const current = this.repo.findConversation(conversation.id);
      if (!current) throw notFound('Conversation');
      if (current.handled_by === 'agent') return current;
      // handing back ends the escalation the person dealt with (escalated_at stays as its record)
      return this.repo.updateConversation(current.id, {
        handled_by: 'agent',
        taken_at: null,
        taken_by: null,
        ...(current.status === 'escalated' ? { status: 'active' as const } : {}),
      });
    });
    if (conversation.handled_by === 'person') {
      this.hub.publish(chatbotId, {
        type: 'status',
        conversation_id: row.id,
        status: 'handed_back',
        at: isoNow(this.clock),
      });
    }
    return this.people.teamState(row);
  }

  /** The person's message to the visitor: 409 unless the conversation is taken over. */
  reply(user: AuthUser, chatbotId: string, conversationId: string, text: string): LiveMessage {
    const { agent, conversation } = this.owned(user, chatbotId, conversationId);
    const content = text.trim();
    if (!content) throw badRequest('message: must not be empty');
    if (content.length > MAX_MESSAGE_CHARS)
      throw new ApiError(413, `message: too long (at most ${MAX_MESSAGE_CHARS} characters)`);
    const message = this.repo.transaction(() => {
      const current = this.repo.findConversation(conversation.id);
      if (!current) throw notFound('Conversation');
      if (current.handled_by !== 'person')
        throw conflict('Take the conversation over first (POST .../take): the agent is handling it');
      const refusal = this.replyRefusal(current.id);
      if (refusal) throw conflict(refusal);
      const row = this.repo.insertFullMessage({
        id: newId(),
        conversation_id: current.id,
        chatbot_id: agent.id,
        role: 'assistant',
        content,
        timestamp: isoNow(this.clock),
        feedback: null,
        from_person: true,
        response_time_ms: null,
        sources_json: null,
        interrupted: false,
        // who wrote it, and the name the visitor sees (the display name at sending time)
        sender_user_id: user.actor.id,
        sender_name: user.actor.display_name,
      });
      this.agents.recordActivity(agent.id, 1, 0);
      this.events.emit('message.created', {
        account_id: agent.user_id,
        chatbot_id: agent.id,
        conversation_id: row.conversation_id,
        message: { id: row.id, role: row.role, content: row.content, timestamp: row.timestamp },
      });
      return row;
    });
    return liveMessage(message);
  }

  /** The visitor's stream: the session's conversation with a reachable agent, 404 otherwise. */
  visitorConversation(chatbotId: string, sessionId: string): { agent: ChatbotRow; conversation: ConversationRow } {
    const agent = this.agents.reachable(chatbotId);
    const conversation = this.repo.findConversationBySession(agent.id, sessionId);
    if (!conversation) throw notFound('Conversation');
    return { agent, conversation };
  }

  /**
   * What the visitor's stream sends first: the state, and a person's latest messages, so a widget
   * that was closed, reloaded or reconnecting shows what it missed (it skips the ids it has).
   */
  visitorReady(
    agent: ChatbotRow,
    conversationId: string,
  ): (HandoffState & { messages: LiveMessage[]; handoff_unavailable: boolean }) | undefined {
    const state = this.state(conversationId);
    return (
      state && {
        ...state,
        messages: this.repo.personMessages(conversationId, PERSON_MESSAGES_ON_CONNECT).map(liveMessage),
        // an escalation nobody can take now: a `handoff_unavailable` status follows at once
        handoff_unavailable: this.unavailable(agent, conversationId) !== null,
      }
    );
  }

  state(conversationId: string): HandoffState | undefined {
    const c = this.repo.findConversation(conversationId);
    return c ? handoffState(c) : undefined;
  }

  /**
   * An escalation that nobody can take now (outside the agent's office hours, or everyone of the
   * team away): when the office hours open next. Null when the conversation is not waiting for a
   * person, or a person can come: then the usual timeout applies (timeoutIn).
   */
  unavailable(agent: ChatbotRow, conversationId: string): { next_opening: string | null } | null {
    const c = this.repo.findConversation(conversationId);
    if (c?.status !== 'escalated' || c.handled_by !== 'agent') return null;
    const handoff = this.agents.handoffAvailability(this.agents.findById(agent.id) ?? agent);
    return handoff.available ? null : { next_opening: handoff.next_opening };
  }

  /**
   * When an unanswered escalation times out: the ms until then (0 = it has), or null when there
   * is nothing to wait for (not escalated, or taken). Read from the database at every check, so a
   * restart loses nothing (a stream connecting later learns it at once).
   */
  timeoutIn(agent: ChatbotRow, conversationId: string): number | null {
    const c = this.repo.findConversation(conversationId);
    if (c?.status !== 'escalated' || c.handled_by !== 'agent' || !c.escalated_at) return null;
    const due = Date.parse(c.escalated_at) + agent.handoff_wait_s * 1000;
    return Math.max(0, due - this.clock.now().getTime());
  }
}
