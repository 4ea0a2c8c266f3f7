import type { Clock } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { ApiError, badRequest, notFound } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail/index.js';
import { type ChannelName, channelDefinition, emailChannelMailer } from '../../providers/channels/index.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { type ChannelConnections, sha256 } from './connections.js';
import type { ChannelMessaging } from './messaging.js';
import type { PollingReceivers } from './receiver.js';
import type { ChannelsRepo } from './repo.js';

export interface ChannelsServiceDeps {
  repo: ChannelsRepo;
  agents: AgentsService;
  connections: ChannelConnections;
  messaging: ChannelMessaging;
  receivers: PollingReceivers;
  events: AppEvents;
  clock: Clock;
  /** conversations and messages per channel of an agent since a time (the chat module's tables) */
  activityOf: (chatbotId: string, sinceIso: string) => { channel: string; conversations: number; messages: number }[];
}

/** finished rows (their text already cleared) are kept this long, then deleted */
const KEEP_FINISHED_MS = 7 * 86_400_000;

/**
 * The channel layer (docs/CHANNELS.md): connections, receiving (long polling or webhook), the
 * answers through the chat module's turn, and the outbox. The chat module does not know which
 * channel a conversation is on beyond its `channel` column.
 */
export class ChannelsService {
  readonly connections: ChannelConnections;

  constructor(private readonly deps: ChannelsServiceDeps) {
    this.connections = deps.connections;
    const { events, messaging, receivers, repo } = deps;
    deps.connections.onChange = (row, connected) => {
      if (!connected) return void receivers.stop(row.id);
      receivers.start(row);
      messaging.resumeSending(row.id);
    };
    // the agent's answer and a teammate's reply alike go out on the visitor's channel, queued in
    // the transaction that stores them
    events.on('message.created', (e) => {
      if (e.message.role === 'assistant') messaging.queueStored(e.conversation_id, e.message);
    });
    events.on('conversation.erased', (e) => repo.eraseChat(e.session_id));
  }

  /** Starts receiving on every connected account (at start-up). */
  start(): void {
    this.deps.repo.prune(new Date(this.deps.clock.now().getTime() - KEEP_FINISHED_MS).toISOString());
    for (const row of this.deps.repo.connected()) {
      this.deps.receivers.start(row);
      this.deps.messaging.resumeSending(row.id);
    }
  }

  async stop(): Promise<void> {
    await this.deps.receivers.stopAll();
    await this.connections.closeAll();
  }

  /**
   * A webhook call: stored before it is answered (a failure answers 5xx and the network sends it
   * again). An unknown connection and a wrong secret answer alike, 404.
   */
  receiveWebhook(channel: ChannelName, connectionId: string, secret: string | undefined, body: unknown): void {
    const row = this.deps.repo.connection(connectionId);
    if (!row || row.channel !== channel || !this.connections.webhookSecretMatches(row, secret))
      throw notFound('Channel');
    this.deps.messaging.store(row, channelDefinition(channel).parseWebhook(body));
  }

  /**
   * Meta's check of a webhook URL (`hub.mode=subscribe`): true when the verify token is the
   * owner's (compared in constant time), and the route echoes the challenge; false is a 403.
   */
  verifySubscription(channel: ChannelName, chatbotId: string, mode: unknown, token: unknown): boolean {
    const row = this.deps.repo.connectionOf(chatbotId, channel);
    if (!row || mode !== 'subscribe' || typeof token !== 'string') return false;
    return this.connections.client(row).verifyTokenMatches?.(token) === true;
  }

  /**
   * A signed webhook call (WhatsApp): the signature of the raw bytes is checked before anything
   * is read; a wrong or missing one, or no such connection, is 401 and nothing is stored. The
   * messages are stored before the 200 (a failure answers 5xx and the network posts again).
   */
  receiveSigned(channel: ChannelName, chatbotId: string, raw: Buffer, signature: string | undefined): void {
    const row = this.deps.repo.connectionOf(chatbotId, channel);
    if (!row || this.connections.client(row).signatureMatches?.(raw, signature) !== true)
      throw new ApiError(401, 'X-Hub-Signature-256: missing, or not the HMAC-SHA256 of this body with the app secret');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest('body: not JSON');
    }
    const batch = channelDefinition(channel).parseWebhook(body);
    // another number of the same Meta app: not this agent's to answer
    const ours = batch.messages.filter((m) => m.accountKey === undefined || sha256(m.accountKey) === row.account_hash);
    this.deps.messaging.store(row, { ...batch, messages: ours });
  }

  /**
   * Why a person's reply in this conversation cannot reach the visitor now: the network's reply
   * window has closed (WhatsApp: 24 hours after the person's last message); null when it can.
   */
  replyRefusal(conversationId: string): string | null {
    const chat = this.deps.repo.chatOfConversation(conversationId);
    const connection = chat && this.deps.repo.connection(chat.connection_id);
    if (!chat || !connection) return null;
    return this.deps.messaging.outsideWindow(connection, chat);
  }

  /** The own SMTP server of an e-mail channel, for the mail outbox; undefined once it is disconnected. */
  mailerFor(connectionId: string): Mailer | undefined {
    const row = this.deps.repo.connection(connectionId);
    if (row?.channel !== 'email') return undefined;
    return emailChannelMailer(this.connections.credential(row), this.connections.clientOptions('email')) ?? undefined;
  }

  activity(user: AuthUser, chatbotId: string, days: number) {
    const agent = this.deps.agents.get(user, chatbotId);
    const now = this.deps.clock.now();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = new Date(today - (days - 1) * 86_400_000).toISOString();
    const to = new Date(today + 86_400_000).toISOString();
    return {
      from,
      to,
      channels: this.deps.activityOf(agent.id, from) as {
        channel: 'web' | ChannelName;
        conversations: number;
        messages: number;
      }[],
    };
  }
}
