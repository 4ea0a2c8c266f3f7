import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/** An account's webhook: events posted, signed, to a URL of theirs. */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
    url: text('url').notNull(),
    /** the HMAC-SHA256 signing secret (how it is kept: modules/webhooks) */
    secret: text('secret').notNull(),
    /** event names it receives */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('webhooks_user').on(t.user_id)],
);

/** One event for one webhook: written in the event's transaction, delivered by the job queue. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhook_id: ownerId('webhook_id', () => webhooks.id),
    event: text('event').notNull(),
    /** the JSON body posted */
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** the receiver's last HTTP status; null when it could not be reached */
    last_status: integer('last_status'),
    last_error: text('last_error'),
    created_at: text('created_at').notNull(),
    delivered_at: text('delivered_at'),
  },
  (t) => [index('webhook_deliveries_webhook_created').on(t.webhook_id, t.created_at)],
);

/**
 * The account's webhook POSTs of the last hour (retries included), one row each, for the plan's
 * `webhook_deliveries_per_hour`; rows older than an hour are removed as new ones are added.
 */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
    attempted_at: text('attempted_at').notNull(),
  },
  (t) => [index('webhook_attempts_user_at').on(t.user_id, t.attempted_at)],
);
