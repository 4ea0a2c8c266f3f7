ALTER TABLE `chatbots` ADD `synonyms` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- The keyword index holds each passage's words stemmed in its agent's language (a question in the
-- visitor's words finds "cornetto" from "cornetti", "Lieferung" from "Lieferungen"), where
-- `porter` stemmed English only. SQLite has no stemmer for the other languages and better-sqlite3
-- cannot add a tokenizer, so the stems are computed by `stem_text(language, text)`, a function the
-- app registers on its connection before the migrations run (platform/text/stemming.ts), and
-- the index is contentless: a row is deleted by its rowid alone, with no need to stem the old
-- text again (an agent's language may have changed since, or the agent be gone by then).
-- This migration stems every existing passage once, here, in the same transaction as the new
-- table: a search never sees a half-built index.
DROP TRIGGER `chunks_fts_insert`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_delete`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_update`;--> statement-breakpoint
DROP TABLE `chunks_fts`;--> statement-breakpoint
DROP VIEW `chunks_fts_source`;--> statement-breakpoint
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(content, agent, context, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `chunks_fts_insert` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO chunks_fts(rowid, content, agent, context)
    SELECT new.id, stem_text(b.language, new.content), 'a' || hex(new.chatbot_id), stem_text(b.language, trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')))
      FROM (SELECT (SELECT language FROM chatbots WHERE id = new.chatbot_id) AS language) b;
END;--> statement-breakpoint
CREATE TRIGGER `chunks_fts_delete` AFTER DELETE ON `chunks` BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
END;--> statement-breakpoint
CREATE TRIGGER `chunks_fts_update` AFTER UPDATE OF content, chatbot_id, title, heading ON `chunks` BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
  INSERT INTO chunks_fts(rowid, content, agent, context)
    SELECT new.id, stem_text(b.language, new.content), 'a' || hex(new.chatbot_id), stem_text(b.language, trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')))
      FROM (SELECT (SELECT language FROM chatbots WHERE id = new.chatbot_id) AS language) b;
END;--> statement-breakpoint
-- an agent's new language: its passages are stemmed again
CREATE TRIGGER `chunks_fts_language` AFTER UPDATE OF language ON `chatbots` WHEN old.language IS NOT new.language BEGIN
  DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE chatbot_id = new.id);
  INSERT INTO chunks_fts(rowid, content, agent, context)
    SELECT id, stem_text(new.language, content), 'a' || hex(chatbot_id), stem_text(new.language, trim(coalesce(title, '') || ' ' || coalesce(heading, '')))
      FROM chunks WHERE chatbot_id = new.id;
END;--> statement-breakpoint
INSERT INTO chunks_fts(rowid, content, agent, context)
  SELECT c.id, stem_text(b.language, c.content), 'a' || hex(c.chatbot_id), stem_text(b.language, trim(coalesce(c.title, '') || ' ' || coalesce(c.heading, '')))
    FROM chunks c LEFT JOIN chatbots b ON b.id = c.chatbot_id;--> statement-breakpoint
-- as for the index before (0008): the app merges a bounded step after each insert instead
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);--> statement-breakpoint
-- the index's terms, for the typo look-up of a question's words (knowledge/repo.ts)
CREATE VIRTUAL TABLE `chunks_fts_terms` USING fts5vocab('chunks_fts', 'row');
