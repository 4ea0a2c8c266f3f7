import type Database from 'better-sqlite3';
import { partitionKey } from '../../src/platform/text/stemming.js';

/**
 * Rows written straight into a migrated database, for tests of the indexes below the app: an
 * account, an agent and a text source for `chatbotId`, then one chunk per text (ordinals from 0).
 * Returns the chunk ids. The e-mail is the id in hex, so any id makes a valid, unique address.
 */
export function seedAgent(sqlite: Database.Database, chatbotId: string, texts: string[]): number[] {
  const now = new Date().toISOString();
  const userId = `user-${chatbotId}`;
  sqlite
    .prepare(
      "INSERT INTO users (id, name, email, password_hash, role, status, plan_id, created_at) VALUES (?, 'u', ?, 'x', 'user', 'active', 'free', ?)",
    )
    .run(userId, `${Buffer.from(chatbotId).toString('hex')}@example.com`, now);
  sqlite
    .prepare(
      `INSERT INTO chatbots (id, user_id, name, model, provider, temperature, max_tokens, instructions, status, public_access, primary_color, secondary_color,
        accent_color, welcome_message, widget_position, widget_theme, widget_size, lead_capture_enabled, email_alerts_enabled, rate_limit_enabled, messages_per_hour,
        font_family, font_size, bubble_style, auto_expand, created_at, updated_at)
       VALUES (?, ?, 'bot', 'm', 'openai', 0.5, 100, 'i', 'active', 1, '#000', '#000', '#000', 'hi', 'bottom-right', 'auto', 'medium', 0, 0, 0, 60, 'sans', 14, 'rounded', 0, ?, ?)`,
    )
    .run(chatbotId, userId, now, now);
  sqlite
    .prepare(
      "INSERT INTO sources (id, chatbot_id, type, name, status, created_at, updated_at) VALUES (?, ?, 'text', 'notes', 'completed', ?, ?)",
    )
    .run(`source-${chatbotId}`, chatbotId, now, now);
  return insertChunks(sqlite, chatbotId, texts, 0);
}

/** More chunks for an agent seedAgent made, with ordinals from `firstOrdinal`; returns their ids. */
export function insertChunks(
  sqlite: Database.Database,
  chatbotId: string,
  texts: string[],
  firstOrdinal: number,
): number[] {
  const insert = sqlite.prepare(
    'INSERT INTO chunks (source_id, chatbot_id, ordinal, content, token_count) VALUES (?, ?, ?, ?, 2)',
  );
  return texts.map((text, i) =>
    Number(insert.run(`source-${chatbotId}`, chatbotId, firstOrdinal + i, text).lastInsertRowid),
  );
}

/**
 * How many of an agent's passages the keyword index finds by any of `terms` (stems, as the index
 * holds them; each term carries the agent's prefix there, migration 0039).
 */
export function keywordIndexRows(sqlite: Database.Database, chatbotId: string, ...terms: string[]): number {
  const key = partitionKey(chatbotId);
  return sqlite
    .prepare<[string], number>('SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?')
    .pluck()
    .get(terms.map((term) => `"${key}${term}"`).join(' OR '))!;
}
