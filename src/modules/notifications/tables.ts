import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/**
 * The browsers a person allowed Web Push in (docs/API-NOTES.md "Notifications"): the push service's
 * endpoint the browser handed us and the keys the message is encrypted to. One row per person and
 * endpoint; a 404 or 410 from the push service removes it.
 */
export const pushSubscriptions = sqliteTable(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    /** the person (the owner or a teammate), not the account */
    user_id: ownerId('user_id', () => users.id),
    endpoint: text('endpoint').notNull(),
    /** the browser's P-256 public key, base64url */
    p256dh: text('p256dh').notNull(),
    /** the 16-byte authentication secret, base64url */
    auth: text('auth').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('push_subscriptions_user_endpoint').on(t.user_id, t.endpoint)],
);

/** What a person wants to be told by; no row: the defaults (NotificationsService.preferences). */
export const notificationPreferences = sqliteTable('notification_preferences', {
  user_id: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  browser: integer('browser', { mode: 'boolean' }).notNull(),
  push: integer('push', { mode: 'boolean' }).notNull(),
  email: integer('email', { mode: 'boolean' }).notNull(),
  updated_at: text('updated_at').notNull(),
});

/**
 * The server's VAPID key pair (Web Push), made on the first start: one row. The private key is
 * encrypted with the settings key (DATA_DIR/settings-key), like webhook secrets.
 */
export const vapidKeys = sqliteTable('vapid_keys', {
  id: integer('id').primaryKey(),
  /** base64url of the uncompressed P-256 public key (what browsers get as applicationServerKey) */
  public_key: text('public_key').notNull(),
  private_key_encrypted: text('private_key_encrypted').notNull(),
  created_at: text('created_at').notNull(),
});

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
export type NotificationPreferencesRow = typeof notificationPreferences.$inferSelect;
export type VapidKeysRow = typeof vapidKeys.$inferSelect;
