import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/**
 * Invitations to join an account. Only the SHA-256 of the link's token is kept; a link works once,
 * for 7 days; a newer invitation of the same address to the same account voids the older one.
 */
export const teamInvitations = sqliteTable(
  'team_invitations',
  {
    id: text('id').primaryKey(),
    account_id: ownerId('account_id', () => users.id),
    /** stored lower-case */
    email: text('email').notNull(),
    role: text('role', { enum: ['manager', 'operator'] }).notNull(),
    /** hex SHA-256 of the token in the link */
    token_hash: text('token_hash').notNull(),
    invited_by: text('invited_by').notNull(),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
    /** when it was used or voided; null while usable */
    used_at: text('used_at'),
  },
  (t) => [uniqueIndex('team_invitations_token').on(t.token_hash), index('team_invitations_account').on(t.account_id)],
);

/** Who changed what: one row per authenticated POST/PUT/PATCH/DELETE that answered 2xx. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    account_id: text('account_id').notNull(),
    actor_user_id: text('actor_user_id').notNull(),
    method: text('method').notNull(),
    /** the route's pattern, e.g. /api/chatbots/:chatbot_id */
    route: text('route').notNull(),
    /** the URL parameters as JSON */
    params: text('params').notNull(),
    status: integer('status').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('audit_log_account_at').on(t.account_id, t.at)],
);

/** Saved replies of an account: `/shortcut` in the reply box inserts `content` (docs/API-NOTES.md "Inbox"). */
export const savedReplies = sqliteTable(
  'saved_replies',
  {
    id: text('id').primaryKey(),
    account_id: ownerId('account_id', () => users.id),
    /** a short slug, unique per account */
    shortcut: text('shortcut').notNull(),
    content: text('content').notNull(),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('saved_replies_account_shortcut').on(t.account_id, t.shortcut)],
);

export type TeamInvitationRow = typeof teamInvitations.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type SavedReplyRow = typeof savedReplies.$inferSelect;
