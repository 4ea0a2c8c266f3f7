import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ownerId } from '../../platform/db/columns.js';
import { CHANNELS } from '../../providers/channels/catalog.js';
import { chatbots } from '../agents/tables.js';
import { conversations } from '../chat/tables.js';

const CHANNEL_NAMES = CHANNELS.map((c) => c.name) as [(typeof CHANNELS)[number]['name']];

/** An agent's account on a messaging network (docs/CHANNELS.md): one per agent and network. */
export const channelConnections = sqliteTable(
  'channel_connections',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    channel: text('channel', { enum: CHANNEL_NAMES }).notNull(),
    /**
     * the credential's fields as one JSON object (Telegram's bot token; WhatsApp's phone number id,
     * access token, app secret and verify token), encrypted with the settings key (the connection's
     * id as associated data); never returned
     */
    credential: text('credential').notNull(),
    /**
     * SHA-256 of what identifies the account (Telegram: the bot token; WhatsApp: the phone number
     * id): one account answers for one agent only (two receivers of one bot fight over its updates)
     */
    account_hash: text('account_hash').notNull(),
    /** e.g. `@acme_help_bot`, as the network gave it when the token was checked */
    account_name: text('account_name').notNull(),
    display_name: text('display_name').notNull(),
    /** how messages arrive: long polling, or a webhook (Telegram with an https PUBLIC_URL; WhatsApp always) */
    mode: text('mode', { enum: ['polling', 'webhook'] }).notNull(),
    /** webhook mode: SHA-256 of the secret the network sends in each call's header */
    webhook_secret_hash: text('webhook_secret_hash'),
    state: text('state', { enum: ['connected', 'error'] }).notNull(),
    /** why the channel stopped (state `error`), credential-free */
    error: text('error'),
    /** polling: the offset that confirms the updates stored so far; null before the first */
    update_offset: integer('update_offset'),
    last_message_at: text('last_message_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('channel_connections_chatbot_channel').on(t.chatbot_id, t.channel),
    uniqueIndex('channel_connections_account').on(t.account_hash),
  ],
);

/** A person's chat with a connected account: the conversation it continues, under a session id of its own. */
export const channelChats = sqliteTable(
  'channel_chats',
  {
    id: text('id').primaryKey(),
    connection_id: ownerId('connection_id', () => channelConnections.id),
    /** the network's chat id */
    chat_id: text('chat_id').notNull(),
    /** random, like a widget's: the conversation's session id, which nobody outside can guess */
    session_id: text('session_id').notNull(),
    /** the conversation now; null once the owner erased it (the next message opens a new one) */
    conversation_id: text('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    /** the agent's answers in this chat so far (when to ask for the phone number, as the widget's lead form) */
    answers: integer('answers').notNull().default(0),
    /** the share-your-phone button was offered, or a number shared: not asked again */
    contact_asked: integer('contact_asked', { mode: 'boolean' }).notNull().default(false),
    /** when the person's last message came (WhatsApp answers only within 24 hours of it) */
    last_inbound_at: text('last_inbound_at'),
    /** e-mail: the last message's Message-ID, References and subject (JSON): replies thread under it */
    reply_thread: text('reply_thread'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('channel_chats_connection_chat').on(t.connection_id, t.chat_id),
    index('channel_chats_conversation').on(t.conversation_id).where(sql`${t.conversation_id} IS NOT NULL`),
  ],
);

/**
 * A message that came in, stored before the network is told it arrived (the poll's offset, the
 * webhook's 200); the same update twice is one row. Its text is cleared once answered: the
 * conversation keeps it.
 */
export const channelInbound = sqliteTable(
  'channel_inbound',
  {
    id: text('id').primaryKey(),
    connection_id: ownerId('connection_id', () => channelConnections.id),
    /** the network's id of the message (Telegram's update id, a WhatsApp or e-mail message id) */
    external_id: text('external_id').notNull(),
    chat_id: text('chat_id').notNull(),
    user_id: text('user_id').notNull(),
    user_name: text('user_name').notNull(),
    text: text('text'),
    /** a phone number the person shared (a lead) */
    contact_phone: text('contact_phone'),
    state: text('state', { enum: ['queued', 'done', 'failed'] }).notNull(),
    /** the stored visitor message: a retry after a restart answers it instead of storing it again */
    user_message_id: text('user_message_id'),
    error: text('error'),
    received_at: text('received_at').notNull(),
  },
  (t) => [uniqueIndex('channel_inbound_external').on(t.connection_id, t.external_id)],
);

/** What goes out to a chat: an answer, a person's reply, a notice. Sent by a job, retried with backoff. */
export const channelOutbox = sqliteTable(
  'channel_outbox',
  {
    id: text('id').primaryKey(),
    connection_id: ownerId('connection_id', () => channelConnections.id),
    chat_id: text('chat_id').notNull(),
    /** the stored message it carries (one send per message); null for notices */
    message_id: text('message_id'),
    text: text('text').notNull(),
    /** offer the network's share-your-phone button with it */
    ask_contact: integer('ask_contact', { mode: 'boolean' }).notNull().default(false),
    state: text('state', { enum: ['queued', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    created_at: text('created_at').notNull(),
    sent_at: text('sent_at'),
  },
  (t) => [
    uniqueIndex('channel_outbox_message').on(t.message_id).where(sql`${t.message_id} IS NOT NULL`),
    index('channel_outbox_queued').on(t.connection_id, t.state),
  ],
);

export type ChannelConnectionRow = typeof channelConnections.$inferSelect;
export type ChannelChatRow = typeof channelChats.$inferSelect;
export type ChannelInboundRow = typeof channelInbound.$inferSelect;
export type ChannelOutboxRow = typeof channelOutbox.$inferSelect;
