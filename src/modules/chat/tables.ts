import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { CONVERSATION_CHANNELS } from '../../providers/channels/catalog.js';
import { chatbots } from '../agents/tables.js';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/** One thread per (agent, session_id). */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    session_id: text('session_id').notNull(),
    user_name: text('user_name'),
    user_email: text('user_email'),
    status: text('status', { enum: ['active', 'resolved', 'escalated'] })
      .notNull()
      .default('active'),
    rating: integer('rating'),
    message_count: integer('message_count').notNull().default(0),
    /** when the visitor (or the agent's rule) asked for a person; null when never */
    escalated_at: text('escalated_at'),
    /** when it was marked resolved (by the owner, or after the agent's idle time); null while open */
    resolved_at: text('resolved_at'),
    /** when the owner last opened the transcript: messages after it are unread */
    owner_read_at: text('owner_read_at'),
    /** who answers: the agent, or a person who took the conversation over (live handoff) */
    handled_by: text('handled_by', { enum: ['agent', 'person'] })
      .notNull()
      .default('agent'),
    /** when a person took it over; null while the agent answers */
    taken_at: text('taken_at'),
    /** the person (user id: the owner or a teammate) who took it over; null while the agent answers */
    taken_by: text('taken_by'),
    /** when the owner was e-mailed that the visitor asked for a person (once per conversation); null when never */
    owner_notified_at: text('owner_notified_at'),
    /**
     * the person (a teammate or the owner; user id) the conversation is assigned to in the inbox;
     * null: unassigned. Removing a teammate unassigns theirs (team module).
     */
    assigned_to: text('assigned_to'),
    /** the site vouched for the visitor (user id with a valid hash, agents/identity.ts) at the conversation's start or since */
    verified: integer('verified', { mode: 'boolean' }).notNull().default(false),
    /** the verified visitor's id on the owner's site; null when not verified */
    visitor_user_id: text('visitor_user_id'),
    /** where the visitor writes from: `web` (widget, share page, API) or a messaging channel (modules/channels) */
    channel: text('channel', { enum: CONVERSATION_CHANNELS }).notNull().default('web'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('conversations_chatbot_session').on(t.chatbot_id, t.session_id),
    index('conversations_chatbot_updated').on(t.chatbot_id, t.updated_at),
    // per-agent time ranges; status included so analytics' resolution count reads the index alone
    index('conversations_chatbot_created_status').on(t.chatbot_id, t.created_at, t.status),
    // analytics' escalations per window; partial: only escalated conversations are in it
    index('conversations_chatbot_escalated').on(t.chatbot_id, t.escalated_at).where(sql`${t.escalated_at} IS NOT NULL`),
    // the escalation e-mails of the last hour per agent (their hourly cap); partial like the one above
    index('conversations_chatbot_notified')
      .on(t.chatbot_id, t.owner_notified_at)
      .where(sql`${t.owner_notified_at} IS NOT NULL`),
    // the inbox's "assigned to" filter, and unassigning a removed member (partial: assigned ones only)
    index('conversations_assigned').on(t.assigned_to).where(sql`${t.assigned_to} IS NOT NULL`),
    // a verified visitor's earlier conversations (partial: verified ones only)
    index('conversations_chatbot_visitor')
      .on(t.chatbot_id, t.visitor_user_id)
      .where(sql`${t.visitor_user_id} IS NOT NULL`),
  ],
);

export const messages = sqliteTable(
  'messages',
  {
    id: text('id').primaryKey(),
    conversation_id: ownerId('conversation_id', () => conversations.id),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull(),
    timestamp: text('timestamp').notNull(),
    /** the visitor's thumbs on an answer: 1 up, -1 down, null none */
    feedback: integer('feedback'),
    /** an assistant-side message written by a person (live handoff), not by the agent */
    from_person: integer('from_person', { mode: 'boolean' }).notNull().default(false),
    /** assistant messages: ms from the user's message to this reply (analytics) */
    response_time_ms: integer('response_time_ms'),
    /** assistant messages: JSON array of {source_id, name, url} the answer drew on */
    sources_json: text('sources_json'),
    /**
     * assistant messages: the answer was cut off (the provider failed mid-stream, or the visitor
     * left): `content` is the partial text the visitor saw
     */
    interrupted: integer('interrupted', { mode: 'boolean' }).notNull().default(false),
    /** a person's message: who wrote it (their user id; kept after they leave the team) */
    sender_user_id: text('sender_user_id'),
    /** a person's message: the display name they had when sending it (what the visitor sees) */
    sender_name: text('sender_name'),
  },
  (t) => [
    index('messages_conversation_time').on(t.conversation_id, t.timestamp), // per-agent time ranges (role and response time included so such reads need not touch the rows)
    index('messages_chatbot_time_stats').on(t.chatbot_id, t.timestamp, t.role, t.response_time_ms),
    // analytics' thumbs per window, read from the index alone; partial: only rated answers are in it
    index('messages_chatbot_rated')
      .on(t.chatbot_id, t.timestamp, t.feedback, t.from_person)
      .where(sql`${t.feedback} IS NOT NULL`),
  ],
);

/** Internal notes on a conversation: the team's only, never in the visitor's transcript, stream or the prompt. */
export const conversationNotes = sqliteTable(
  'conversation_notes',
  {
    id: text('id').primaryKey(),
    conversation_id: ownerId('conversation_id', () => conversations.id),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    /** null once the author left the team (`author_name` stays) */
    author_user_id: text('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    author_name: text('author_name').notNull(),
    content: text('content').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('conversation_notes_conversation').on(t.conversation_id, t.created_at),
    index('conversation_notes_author').on(t.author_user_id).where(sql`${t.author_user_id} IS NOT NULL`),
  ],
);

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type ConversationNoteRow = typeof conversationNotes.$inferSelect;
