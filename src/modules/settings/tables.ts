import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Server settings an admin sets in the admin UI (provider keys, SMTP): one row per key, the value
 * a JSON document encrypted with the key in DATA_DIR/settings-key (AES-256-GCM), so a copy of the
 * database alone (a backup sent somewhere) does not give the keys away.
 */
export const appSettings = sqliteTable('app_settings', {
  key: text('key').primaryKey(),
  /** base64 of iv (12 bytes) + auth tag (16 bytes) + ciphertext */
  value_encrypted: text('value_encrypted').notNull(),
  updated_at: text('updated_at').notNull(),
  /** the admin who set it */
  updated_by: text('updated_by'),
});
