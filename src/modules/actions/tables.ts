import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { chatbots } from '../agents/tables.js';
import { conversations } from '../chat/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/** One string the model (or the visitor's form, without a model) fills in an action's URL template. */
export interface ActionParameter {
  name: string;
  description: string;
  /** default true */
  required?: boolean;
}

/**
 * An agent's action (docs/ACTIONS.md): `lookup` GETs the owner's endpoint, `do` POSTs to it after
 * the visitor confirms, `booking` offers free slots from the owner's calendar feed.
 */
export const actions = sqliteTable(
  'actions',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    type: text('type', { enum: ['lookup', 'do', 'booking'] }).notNull(),
    /** the tool's name as the model sees it ([a-z0-9_], unique per agent) */
    name: text('name').notNull(),
    /** what it does, for the model and the visitor's button */
    description: text('description').notNull(),
    /** lookup/do: the endpoint, with {parameter} and {{user.id}} placeholders; booking: null */
    url: text('url'),
    parameters: text('parameters', { mode: 'json' }).$type<ActionParameter[]>().notNull().default([]),
    /** the response's fields (dotted paths) the model may read; empty: none */
    response_fields: text('response_fields', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** runs only for a verified visitor */
    requires_verified: integer('requires_verified', { mode: 'boolean' }).notNull().default(false),
    /** the HMAC-SHA256 secret requests are signed with (the webhooks' scheme), encrypted with the settings key */
    signing_secret: text('signing_secret').notNull(),
    /** booking: the owner's iCalendar feed (busy times) */
    calendar_url: text('calendar_url'),
    /** booking: length of a slot in minutes */
    slot_minutes: integer('slot_minutes').notNull().default(30),
    /** booking: how many days ahead slots are offered */
    days_ahead: integer('days_ahead').notNull().default(14),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('actions_chatbot_name').on(t.chatbot_id, t.name)],
);

/**
 * One run of an action in a conversation: what was asked, whether the visitor confirmed, how it
 * ended. The transcript, analytics and the monthly cap read these.
 */
export const actionRuns = sqliteTable(
  'action_runs',
  {
    id: text('id').primaryKey(),
    /** null once the action is deleted (the run stays in the transcript under `action_name`) */
    action_id: text('action_id').references(() => actions.id, { onDelete: 'set null' }),
    action_name: text('action_name').notNull(),
    action_type: text('action_type', { enum: ['lookup', 'do', 'booking'] }).notNull(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    conversation_id: ownerId('conversation_id', () => conversations.id),
    /** the account whose monthly cap it counts against */
    user_id: text('user_id').notNull(),
    /** the filled parameters */
    inputs: text('inputs', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    status: text('status', {
      enum: ['awaiting_confirmation', 'running', 'succeeded', 'failed', 'cancelled', 'expired'],
    }).notNull(),
    // running: confirmed, the call under way (a second Confirm finds it no longer waiting)
    /** a short, human account of how it ended (shown in the transcript) */
    outcome: text('outcome'),
    /** the endpoint's HTTP status, when it answered */
    http_status: integer('http_status'),
    /** the fields the model was given (JSON), on success */
    result: text('result'),
    /** the visitor confirmed (do, booking) */
    confirmed_at: text('confirmed_at'),
    created_at: text('created_at').notNull(),
    finished_at: text('finished_at'),
    duration_ms: integer('duration_ms'),
  },
  (t) => [
    index('action_runs_conversation').on(t.conversation_id, t.created_at),
    index('action_runs_chatbot_created').on(t.chatbot_id, t.created_at),
    index('action_runs_user_created').on(t.user_id, t.created_at),
    // runs waiting for the visitor (expiry sweep); partial
    index('action_runs_awaiting').on(t.created_at).where(sql`${t.status} = 'awaiting_confirmation'`),
  ],
);

export type ActionRow = typeof actions.$inferSelect;
export type ActionRunRow = typeof actionRuns.$inferSelect;
