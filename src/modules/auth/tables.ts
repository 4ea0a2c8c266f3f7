import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ownerId } from '../../platform/db/columns.js';

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** stored lower-case; unique without regard to case */
    email: text('email').notNull(),
    password_hash: text('password_hash').notNull(),
    role: text('role', { enum: ['user', 'admin'] })
      .notNull()
      .default('user'),
    status: text('status', { enum: ['active', 'suspended', 'banned'] })
      .notNull()
      .default('active'),
    plan_id: text('plan_id').notNull(),
    plan_expires_at: text('plan_expires_at'),
    created_at: text('created_at').notNull(),
    last_login: text('last_login'),
    /** null for an account's owner; a teammate's: the owner's user id (docs/API-NOTES.md "Team") */
    account_id: text('account_id'),
    /** the role inside the account, apart from the server `role` above */
    team_role: text('team_role', { enum: ['owner', 'manager', 'operator'] })
      .notNull()
      .default('owner'),
    /** the person's own online/away toggle: visitors get a live person only while someone is online */
    availability: text('availability', { enum: ['online', 'away'] })
      .notNull()
      .default('online'),
    /** the name visitors see on this person's replies (live handoff); null: `name` (docs/API-NOTES.md "Inbox") */
    display_name: text('display_name'),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email), index('users_account').on(t.account_id)],
);

/** One row per issued token: logout deletes it, so a stolen token dies with the session. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
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

/**
 * Password-reset links sent by e-mail. Only the SHA-256 of the token is kept, so the database
 * alone cannot reset anyone's password. A token works once, for 30 minutes; a newer request of
 * the same account voids the older ones (`used_at` set). Rows stay a day after they expire, so
 * the per-account cap on reset e-mails counts them across restarts.
 */
export const passwordResets = sqliteTable(
  'password_resets',
  {
    id: text('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
    /** hex SHA-256 of the token in the link */
    token_hash: text('token_hash').notNull(),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
    /** when it was used, or voided by a newer request or a password change; null while usable */
    used_at: text('used_at'),
  },
  (t) => [
    uniqueIndex('password_resets_token').on(t.token_hash),
    index('password_resets_user').on(t.user_id, t.created_at),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type PasswordResetRow = typeof passwordResets.$inferSelect;
