ALTER TABLE `chatbots` ADD `no_answer_message` text;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `show_sources` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `chunks` ADD `title` text;--> statement-breakpoint
ALTER TABLE `chunks` ADD `page_url` text;--> statement-breakpoint
ALTER TABLE `chunks` ADD `page` integer;--> statement-breakpoint
ALTER TABLE `chunks` ADD `heading` text;--> statement-breakpoint
-- The keyword index gets a third column, the passage's context (page title and headings), so a
-- question naming the page ("pricing", "installation") finds passages that do not repeat it.
-- bm25 weighs it below the passage's own words (knowledge/repo.ts). The rest is as in 0010.
DROP TRIGGER `chunks_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `chunks_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `chunks_fts_update`;
--> statement-breakpoint
DROP TABLE `chunks_fts`;
--> statement-breakpoint
DROP VIEW `chunks_fts_source`;
--> statement-breakpoint
CREATE VIEW `chunks_fts_source` AS SELECT id, content, 'a' || hex(chatbot_id) AS agent, trim(coalesce(title, '') || ' ' || coalesce(heading, '')) AS context FROM chunks;
--> statement-breakpoint
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(content, agent, context, content='chunks_fts_source', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_insert` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO chunks_fts(rowid, content, agent, context) VALUES (new.id, new.content, 'a' || hex(new.chatbot_id), trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')));
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_delete` AFTER DELETE ON `chunks` BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, agent, context) VALUES ('delete', old.id, old.content, 'a' || hex(old.chatbot_id), trim(coalesce(old.title, '') || ' ' || coalesce(old.heading, '')));
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_update` AFTER UPDATE OF content, chatbot_id, title, heading ON `chunks` BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, agent, context) VALUES ('delete', old.id, old.content, 'a' || hex(old.chatbot_id), trim(coalesce(old.title, '') || ' ' || coalesce(old.heading, '')));
  INSERT INTO chunks_fts(rowid, content, agent, context) VALUES (new.id, new.content, 'a' || hex(new.chatbot_id), trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, '')));
END;
--> statement-breakpoint
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);
