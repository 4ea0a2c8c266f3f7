import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/**
 * Request-rate counters (fixed windows). The limiter keeps them in memory and writes the changed
 * ones here every couple of seconds and at shutdown, so a restart resumes the current window
 * instead of handing an abuser a fresh one.
 */
export const rateLimitCounters = sqliteTable(
  'rate_limit_counters',
  {
    /** `account:<user id>` or `address:<client address>[:owner:<user id>]` */
    key: text('key').notNull(),
    window_s: integer('window_s').notNull(),
    /** epoch seconds, a multiple of window_s */
    window_start: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.window_s] })],
);

/**
 * Visitor and owner chat messages per account per calendar month (UTC), counted in the same
 * transaction that stores the message. Kept apart from the messages table so that deleting an
 * agent (or its conversations) does not give the quota back.
 */
export const accountUsage = sqliteTable(
  'account_usage',
  {
    user_id: ownerId('user_id', () => users.id),
    /** `YYYY-MM` */
    month: text('month').notNull(),
    user_messages: integer('user_messages').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.month] })],
);
