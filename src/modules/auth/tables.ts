import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** stored lower-case; unique without regard to case */
    email: text('email').notNull(),
    password_hash: text('password_hash').notNull(),
    role: text('role', { enum: ['user', 'admin'] }).notNull().default('user'),
    status: text('status', { enum: ['active', 'suspended', 'banned'] }).notNull().default('active'),
    plan_id: text('plan_id').notNull(),
    plan_expires_at: text('plan_expires_at'),
    created_at: text('created_at').notNull(),
    last_login: text('last_login'),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
);

/** One row per issued token: logout deletes it, so a stolen token dies with the session. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    created_at: text('created_at').notNull(),
    /** absolute end of the session (created_at + SESSION_MAX_AGE_S) */
    expires_at: text('expires_at').notNull(),
    /** renewed by authenticated calls; idle timeout counts from here */
    last_used_at: text('last_used_at').notNull(),
    created_ip: text('created_ip'),
    user_agent: text('user_agent'),
  },
  (t) => [index('sessions_user_id').on(t.user_id)],
);

export type UserRow = typeof users.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
