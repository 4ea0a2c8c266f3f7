import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { ApiError } from '../../platform/http/errors.js';
import type { JobContext, JobQueue } from '../../platform/jobs/queue.js';
import { ChannelError, channelDefinition, type MailThread, type UpdateBatch } from '../../providers/channels/index.js';
import type { AgentsService } from '../agents/index.js';
import type { ChannelMailReply } from '../leads/index.js';
import type { ChannelTurns } from '../chat/index.js';
import type { ChannelConnections } from './connections.js';
import type { ChannelsRepo } from './repo.js';
import type { ChannelChatRow, ChannelConnectionRow, ChannelInboundRow, ChannelOutboxRow } from './tables.js';

export const RECEIVE_JOB = 'channel.receive';
export const SEND_JOB = 'channel.send';

/** seconds before each retry of a send the network could not take (about a day in all) */
const SEND_BACKOFF_S = [5, 30, 120, 600, 3600, 3 * 3600, 6 * 3600, 12 * 3600];

/** what a person is told when the agent cannot answer after its retries */
const CANNOT_ANSWER = 'Sorry, I cannot answer right now. Please try again in a little while.';
const TOO_FAST = 'You are sending messages faster than I can answer. Please wait a moment.';
/** the channel's lead form: the network's share-your-phone button (Telegram's contact keyboard) */
const ASK_CONTACT = 'Would you like us to get back to you? Tap the button below to share your phone number.';
const THANKS_FOR_CONTACT = 'Thank you! We will get back to you soon.';

export interface MessagingDeps {
  repo: ChannelsRepo;
  connections: ChannelConnections;
  agents: AgentsService;
  chat: ChannelTurns;
  receiveJobs: JobQueue;
  sendJobs: JobQueue;
  /** a shared phone number becomes a lead, as the widget's form makes one (the leads module) */
  captureLead: (chatbotId: string, lead: { name: string; phone: string; session_id: string }) => void;
  /** the per-visitor rate limit under the agent owner's plan, keyed on the channel's user id */
  allowVisitor: (key: string, accountId: string) => boolean;
  /** an e-mail channel's answer goes out through the mail outbox (the leads module), in the caller's transaction */
  queueMailReply: (accountId: string, reply: ChannelMailReply) => void;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Messages in and out of every channel. In: each stored message is a job that runs the same chat
 * turn as the widget's (retrieval, quotas, handoff, gaps, analytics), once: the visitor message's
 * id is recorded in the transaction that stores it, so a retry after a crash answers it instead of
 * storing it again. Out: any assistant message stored in a channel's conversation (the agent's
 * answer, a teammate's reply) is queued in the same transaction and sent by a job that retries
 * with backoff; a message is queued once (unique message id).
 */
export class ChannelMessaging {
  constructor(private readonly deps: MessagingDeps) {
    deps.receiveJobs.register(RECEIVE_JOB, (job, ctx) => this.answer(job.subject_id, ctx));
    deps.sendJobs.register(SEND_JOB, (job, ctx) => this.send(job.subject_id, ctx));
  }

  /** Stores a batch (and its offset) in one transaction and queues a job for each new message. */
  store(row: ChannelConnectionRow, batch: UpdateBatch): void {
    const { repo, receiveJobs } = this.deps;
    repo.transaction(() => {
      const stored = repo.storeInbound(row.id, batch.messages, batch.nextOffset, isoNow(this.deps.clock));
      for (const m of stored) receiveJobs.enqueue(RECEIVE_JOB, m.id, { owner: chatKey(row.id, m.chat_id) });
    });
  }

  /** A stored assistant message of a channel's conversation goes out (called inside its transaction). */
  queueStored(conversationId: string, message: { id: string; content: string }): void {
    const chat = this.deps.repo.chatOfConversation(conversationId);
    if (!chat) return;
    this.queue(chat.connection_id, chat.chat_id, message.content, message.id);
  }

  /** Queues every message still waiting on the connection again (after a new credential). */
  resumeSending(connectionId: string): void {
    for (const row of this.deps.repo.queuedOutgoing(connectionId))
      this.deps.sendJobs.enqueue(SEND_JOB, row.id, { owner: chatKey(connectionId, row.chat_id) });
  }

  private queue(
    connectionId: string,
    chatId: string,
    text: string,
    messageId: string | null = null,
    askContact = false,
  ): void {
    if (!text.trim()) return;
    const row = this.deps.repo.queueOutgoing({
      connection_id: connectionId,
      chat_id: chatId,
      message_id: messageId,
      text,
      ask_contact: askContact,
      created_at: isoNow(this.deps.clock),
    });
    if (row) this.deps.sendJobs.enqueue(SEND_JOB, row.id, { owner: chatKey(connectionId, chatId) });
  }

  private async answer(inboundId: string, ctx: JobContext): Promise<void> {
    const { repo, agents, chat } = this.deps;
    const row = repo.inbound(inboundId);
    const connection = row && repo.connection(row.connection_id);
    if (row?.state !== 'queued' || !connection) return;
    try {
      const agent = agents.answering(connection.chatbot_id);
      const chatRow = repo.chat(connection.id, row.chat_id, isoNow(this.deps.clock));
      if (row.contact_phone) {
        this.deps.captureLead(agent.id, {
          name: row.user_name,
          phone: row.contact_phone,
          session_id: chatRow.session_id,
        });
        repo.markContactAsked(chatRow.id);
        this.queue(connection.id, row.chat_id, THANKS_FOR_CONTACT);
        return repo.finishInbound(row.id, 'done');
      }
      if (!row.user_message_id) {
        if (row.text === null) return repo.finishInbound(row.id, 'done'); // nothing to answer
        if (row.text.trim() === '/start') {
          this.queue(connection.id, row.chat_id, agent.welcome_message || `Hi, ${row.user_name}! How can I help?`);
          return repo.finishInbound(row.id, 'done');
        }
        // e-mail: anyone can forge a From, so a sender's answers are capped and refusals go unanswered
        const mail = channelDefinition(connection.channel).mail;
        const since = new Date(this.deps.clock.now().getTime() - 86_400_000).toISOString();
        if (mail && repo.placeOfSender(row, since) > mail.answersPerSenderDaily)
          return repo.finishInbound(row.id, 'failed', 'over the daily answers for one sender');
        if (!this.deps.allowVisitor(`${connection.channel}:${connection.id}:${row.user_id}`, agent.user_id)) {
          if (!mail) this.queue(connection.id, row.chat_id, TOO_FAST);
          return repo.finishInbound(row.id, 'failed', 'rate limited');
        }
      }
      const turn = row.user_message_id
        ? await chat.resumeChannel(agent.id, row.user_message_id)
        : await chat.prepareChannel(
            agent.id,
            {
              message: row.text ?? '',
              session_id: chatRow.session_id,
              user_name: row.user_name,
              channel: connection.channel,
            },
            (message) => {
              repo.markInboundStored(row.id, message.id);
              repo.linkConversation(chatRow.id, message.conversation_id);
            },
          );
      const result = turn ? await chat.reply(turn, { signal: ctx.signal }) : null;
      // shutting down mid-answer: nothing was stored; the job goes back to the queue and resumes
      if (ctx.signal.aborted) throw new Error('stopped');
      // the widget's lead form, the channel's way: the share button once, after as many answers
      if (result?.message_id && result.handled_by === 'agent') {
        const askAfter =
          !agent.lead_capture_enabled || !channelDefinition(connection.channel).contactButton
            ? null
            : agent.lead_form_timing === 'before_chat'
              ? 1
              : agent.lead_form_after_messages;
        if (repo.countAnswer(chatRow.id, askAfter))
          this.queue(connection.id, row.chat_id, leadQuestion(agent.lead_consent_text), null, true);
      }
      repo.finishInbound(row.id, 'done');
    } catch (err) {
      this.notAnswered(row, connection, err, ctx);
    }
  }

  /** A turn that failed: the visitor is told what they can do; a provider failure is retried first. */
  private notAnswered(row: ChannelInboundRow, connection: ChannelConnectionRow, err: unknown, ctx: JobContext): void {
    if (ctx.signal.aborted) throw err;
    if (err instanceof ApiError && err.statusCode < 500) {
      // the quota's and the daily cap's texts are written for visitors; the rest would not help them
      const visitorText = [402, 403, 429, 413].includes(err.statusCode) ? err.message : CANNOT_ANSWER;
      this.queue(connection.id, row.chat_id, visitorText);
      this.deps.repo.finishInbound(row.id, 'failed', err.message);
      return;
    }
    if (ctx.attempt < ctx.maxAttempts) throw err;
    this.deps.log.warn({ connectionId: connection.id, err: (err as Error)?.message }, 'channel message not answered');
    this.queue(connection.id, row.chat_id, CANNOT_ANSWER);
    this.deps.repo.finishInbound(row.id, 'failed', err instanceof Error ? err.message : String(err));
  }

  private handToMailOutbox(row: ChannelOutboxRow, connection: ChannelConnectionRow): void {
    const { repo } = this.deps;
    const agent = this.deps.agents.findById(connection.chatbot_id);
    if (!agent) return;
    const ownSmtp = Boolean(this.deps.connections.credential(connection).smtp_url);
    const reply = mailReply(row, connection, repo.chatOf(connection.id, row.chat_id), agent.name, ownSmtp);
    repo.transaction(() => {
      this.deps.queueMailReply(agent.user_id, reply);
      repo.finishOutgoing(row.id, 'sent', isoNow(this.deps.clock));
    });
  }

  /** The network's reply window closed for this chat (WhatsApp's 24 hours): why, or null. */
  outsideWindow(connection: ChannelConnectionRow, chat: ChannelChatRow | undefined): string | null {
    const window = channelDefinition(connection.channel).replyWindow;
    if (!window) return null;
    const last = chat?.last_inbound_at ? Date.parse(chat.last_inbound_at) : Number.NaN;
    return Number.isFinite(last) && this.deps.clock.now().getTime() - last <= window.ms ? null : window.refusal;
  }

  private async send(outboxId: string, ctx: JobContext): Promise<void> {
    const { repo, connections } = this.deps;
    const row = repo.outgoing(outboxId);
    const connection = row && repo.connection(row.connection_id);
    // a connection in `error` keeps its queue until a new credential (resumeSending)
    if (row?.state !== 'queued' || connection?.state !== 'connected') return;
    // past the network's reply window the message is not sent: failed, with the reason
    const closed = this.outsideWindow(connection, repo.chatOf(connection.id, row.chat_id));
    if (closed) return repo.finishOutgoing(row.id, 'failed', isoNow(this.deps.clock), closed);
    if (channelDefinition(connection.channel).mail) return this.handToMailOutbox(row, connection);
    try {
      const parts = splitText(row.text, channelDefinition(connection.channel).maxTextLength);
      const client = connections.client(connection);
      for (const [i, part] of parts.entries())
        await client.send(row.chat_id, part, {
          askContact: row.ask_contact && i === parts.length - 1,
          signal: ctx.signal,
        });
      repo.finishOutgoing(row.id, 'sent', isoNow(this.deps.clock));
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = err instanceof ChannelError ? err : new ChannelError('unavailable', 'sending failed');
      if (e.kind === 'unauthorized') return connections.fail(connection, e.message);
      if (e.kind === 'undeliverable') return repo.finishOutgoing(row.id, 'failed', isoNow(this.deps.clock), e.message);
      const attempts = repo.countAttempt(row.id, e.message);
      if (attempts > SEND_BACKOFF_S.length)
        return repo.finishOutgoing(row.id, 'failed', isoNow(this.deps.clock), e.message);
      const delayS = e.retryAfterS ?? SEND_BACKOFF_S[attempts - 1]!;
      const runAfter = new Date(this.deps.clock.now().getTime() + delayS * 1000);
      this.deps.sendJobs.enqueue(SEND_JOB, row.id, { runAfter, owner: chatKey(connection.id, row.chat_id) });
    }
  }
}

/**
 * An e-mail channel's message goes to the mail outbox (which retries it across restarts), threaded
 * under the person's last message; the channel's row is done in the same transaction.
 */
function mailReply(
  row: ChannelOutboxRow,
  connection: ChannelConnectionRow,
  chat: ChannelChatRow | undefined,
  agentName: string,
  ownSmtp: boolean,
): ChannelMailReply {
  const thread = chat?.reply_thread ? (JSON.parse(chat.reply_thread) as MailThread) : null;
  return {
    to: row.chat_id,
    from: `"${agentName.replace(/["\\\r\n]/g, '')}" <${connection.account_name}>`,
    subject: `Re: ${thread?.subject ?? agentName}`,
    text: row.text,
    inReplyTo: thread?.messageId ?? null,
    references: thread?.references ?? [],
    transport: ownSmtp ? connection.id : null,
  };
}

function leadQuestion(consent: string | null): string {
  return consent ? `${ASK_CONTACT}\n\n${consent}` : ASK_CONTACT;
}

/** one chat's jobs run one at a time, in order (the queues allow one per owner) */
const chatKey = (connectionId: string, chatId: string) => `${connectionId}:${chatId}`;

/** `text` in parts of at most `max` characters, cut at a paragraph, line or word where one is near */
export function splitText(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const cut = Math.max(window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const at = cut > max / 2 ? cut : max;
    parts.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) parts.push(rest);
  return parts;
}
