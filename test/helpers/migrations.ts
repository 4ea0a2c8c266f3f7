import type Database from 'better-sqlite3';

/** The keyword index as migrations 0027 and 0039 leave it: its vocabulary, triggers and table. */
const DROP_KEYWORD_INDEX = [
  'DROP TABLE chunks_fts_terms',
  ...['language', 'insert', 'delete', 'update'].map((t) => `DROP TRIGGER chunks_fts_${t}`),
  'DROP TABLE chunks_fts;',
].join('; ');

/**
 * Undoes migration 0027 (the stemmed keyword index and the agents' synonyms) on a migrated
 * database and forgets it was applied, for a test that takes a database back to an earlier
 * migration: the migrator only runs those newer than the newest it has applied. The index is as
 * 0012 made it, rebuilt from the passages.
 */
export function undoMigration0027(sqlite: Database.Database): void {
  sqlite.exec(`
    ${DROP_KEYWORD_INDEX}
    CREATE VIEW chunks_fts_source AS SELECT id, content, 'a' || hex(chatbot_id) AS agent, trim(coalesce(title, '') || ' ' || coalesce(heading, '')) AS context FROM chunks;
    CREATE VIRTUAL TABLE chunks_fts USING fts5(content, agent, context, content='chunks_fts_source', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
    CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, content, agent, context) VALUES (new.id, new.content, 'a' || hex(new.chatbot_id), trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')));
    END;
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, content, agent, context) VALUES ('delete', old.id, old.content, 'a' || hex(old.chatbot_id), trim(coalesce(old.title, '') || ' ' || coalesce(old.heading, '')));
    END;
    CREATE TRIGGER chunks_fts_update AFTER UPDATE OF content, chatbot_id, title, heading ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, content, agent, context) VALUES ('delete', old.id, old.content, 'a' || hex(old.chatbot_id), trim(coalesce(old.title, '') || ' ' || coalesce(old.heading, '')));
      INSERT INTO chunks_fts(rowid, content, agent, context) VALUES (new.id, new.content, 'a' || hex(new.chatbot_id), trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')));
    END;
    INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
    INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);
    ALTER TABLE chatbots DROP COLUMN synonyms;
  `);
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}

/**
 * Undoes migration 0028 (teammates: users' account and team role, invitations, the audit log) and
 * forgets it was applied; a test taking a database back further undoes this one first.
 */
export function undoMigration0028(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP TABLE audit_log;
    DROP TABLE team_invitations;
    DROP INDEX users_account;
    ALTER TABLE users DROP COLUMN account_id;
    ALTER TABLE users DROP COLUMN team_role;
  `);
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}

/**
 * Undoes the office-hours migration (agents' office_hours, users' availability) and forgets it was
 * applied; a test taking a database back further undoes this one first.
 */
export function undoMigrationOfficeHours(sqlite: Database.Database): void {
  sqlite.exec(`
    ALTER TABLE chatbots DROP COLUMN office_hours;
    ALTER TABLE users DROP COLUMN availability;
  `);
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}

/**
 * Undoes the inbox migration (issue 34 part 2: notes, saved replies, assignment, display names and
 * the senders of a person's messages) and forgets it was applied; a test taking a database back
 * further undoes this one first.
 */
export function undoMigrationInbox(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP TABLE conversation_notes;
    DROP TABLE saved_replies;
    DROP INDEX conversations_assigned;
    ALTER TABLE conversations DROP COLUMN assigned_to;
    ALTER TABLE users DROP COLUMN display_name;
    ALTER TABLE messages DROP COLUMN sender_user_id;
    ALTER TABLE messages DROP COLUMN sender_name;
  `);
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}

/**
 * Undoes the notifications migration (issue 34 part 3: push subscriptions, preferences, the VAPID
 * keys, conversations' taken_by) and forgets it was applied; a test taking a database back further
 * undoes this one first.
 */
export function undoMigrationNotifications(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP TABLE push_subscriptions;
    DROP TABLE notification_preferences;
    DROP TABLE vapid_keys;
    ALTER TABLE conversations DROP COLUMN taken_by;
  `);
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}

/** Undoes the identity migration (issue 35: agents' identity secrets, conversations' verified visitor) and forgets it was applied. */
export function undoMigrationIdentity(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP TABLE chatbot_identity;
    DROP INDEX conversations_chatbot_visitor;
    ALTER TABLE conversations DROP COLUMN visitor_user_id;
    ALTER TABLE conversations DROP COLUMN verified;
  `);
  forgetNewestMigration(sqlite);
}

/** Undoes the actions migration (issue 35: actions and their runs) and forgets it was applied. */
export function undoMigrationActions(sqlite: Database.Database): void {
  sqlite.exec('DROP TABLE action_runs; DROP TABLE actions;');
  forgetNewestMigration(sqlite);
}

/** Undoes the booking migration (issue 35: leads' e-mail, the outbox's invitation) and forgets it was applied. */
export function undoMigrationBooking(sqlite: Database.Database): void {
  sqlite.exec('ALTER TABLE mail_outbox DROP COLUMN ics; ALTER TABLE widget_leads DROP COLUMN email;');
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0035 (channels): the channel tables and conversations.channel. */
export function undoMigrationChannels(sqlite: Database.Database): void {
  sqlite.exec(
    'DROP TABLE channel_outbox; DROP TABLE channel_inbound; DROP TABLE channel_chats; DROP TABLE channel_connections;' +
      'ALTER TABLE conversations DROP COLUMN channel;',
  );
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0036 (the e-mail channel): a chat's reply thread, the mail outbox's reply headers. */
function undoMigrationEmailChannel(sqlite: Database.Database): void {
  sqlite.exec(
    'ALTER TABLE channel_chats DROP COLUMN reply_thread; ALTER TABLE mail_outbox DROP COLUMN from_address;' +
      'ALTER TABLE mail_outbox DROP COLUMN in_reply_to; ALTER TABLE mail_outbox DROP COLUMN "references";' +
      'ALTER TABLE mail_outbox DROP COLUMN transport;',
  );
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0038 (website sync): the sources' sync columns, their pages and syncs. */
function undoMigrationWebsiteSync(sqlite: Database.Database): void {
  sqlite.exec(
    'DROP TABLE source_syncs; DROP TABLE source_pages;' +
      ['sync_interval', 'last_synced_at', 'next_sync_at', 'last_sync', 'check_reason']
        .map((c) => `ALTER TABLE sources DROP COLUMN ${c};`)
        .join(''),
  );
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0037 (test questions). */
function undoMigrationAgentTests(sqlite: Database.Database): void {
  sqlite.exec('DROP TABLE agent_test_runs; DROP TABLE agent_test_settings; DROP TABLE agent_tests;');
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0039 (the keyword index partitioned by agent): the index as 0027 made it, rebuilt from the passages. */
function undoMigrationKeywordPartitions(sqlite: Database.Database): void {
  const stemmed = (c: string) =>
    `stem_text(b.language, ${c}content), 'a' || hex(${c}chatbot_id), stem_text(b.language, trim(coalesce(${c}title, '') || ' ' || coalesce(${c}heading, '')))`;
  const languageOf = (c: string) =>
    `FROM (SELECT (SELECT language FROM chatbots WHERE id = ${c}chatbot_id) AS language) b`;
  sqlite.exec(`
    ${DROP_KEYWORD_INDEX}
    CREATE VIRTUAL TABLE chunks_fts USING fts5(content, agent, context, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
    CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, content, agent, context) SELECT new.id, ${stemmed('new.')} ${languageOf('new.')};
    END;
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
      DELETE FROM chunks_fts WHERE rowid = old.id;
    END;
    CREATE TRIGGER chunks_fts_update AFTER UPDATE OF content, chatbot_id, title, heading ON chunks BEGIN
      DELETE FROM chunks_fts WHERE rowid = old.id;
      INSERT INTO chunks_fts(rowid, content, agent, context) SELECT new.id, ${stemmed('new.')} ${languageOf('new.')};
    END;
    CREATE TRIGGER chunks_fts_language AFTER UPDATE OF language ON chatbots WHEN old.language IS NOT new.language BEGIN
      DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE chatbot_id = new.id);
      INSERT INTO chunks_fts(rowid, content, agent, context)
        SELECT id, stem_text(new.language, content), 'a' || hex(chatbot_id), stem_text(new.language, trim(coalesce(title, '') || ' ' || coalesce(heading, '')))
          FROM chunks WHERE chatbot_id = new.id;
    END;
    INSERT INTO chunks_fts(rowid, content, agent, context)
      SELECT c.id, ${stemmed('c.')} FROM chunks c LEFT JOIN chatbots b ON b.id = c.chatbot_id;
    INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);
    CREATE VIRTUAL TABLE chunks_fts_terms USING fts5vocab('chunks_fts', 'row');
  `);
  forgetNewestMigration(sqlite);
}

/** Undoes migration 0040 (the count of the keyword index's changes, for its score cache). */
function undoMigrationKeywordIndexWrites(sqlite: Database.Database): void {
  sqlite.exec(
    ['insert', 'delete', 'update', 'language'].map((t) => `DROP TRIGGER keyword_index_writes_${t};`).join('') +
      'DROP TABLE keyword_index_writes;',
  );
  forgetNewestMigration(sqlite);
}

/** Undoes every migration after the notifications one (0031), newest first. */
export function undoMigrationsAfterNotifications(sqlite: Database.Database): void {
  undoMigrationKeywordIndexWrites(sqlite);
  undoMigrationKeywordPartitions(sqlite);
  undoMigrationWebsiteSync(sqlite);
  undoMigrationAgentTests(sqlite);
  undoMigrationEmailChannel(sqlite);
  undoMigrationChannels(sqlite);
  undoMigrationBooking(sqlite);
  undoMigrationActions(sqlite);
  undoMigrationIdentity(sqlite);
}

function forgetNewestMigration(sqlite: Database.Database): void {
  sqlite
    .prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)')
    .run();
}
