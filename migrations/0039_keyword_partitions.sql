-- The keyword index partitioned by agent: every term carries its agent's prefix
-- (partition_terms, platform/text/stemming.ts), so a search names the agent's own terms and needs
-- no agent column. With that column, bm25 counted the agent token's rows at every search (a
-- scan of the agent's whole doclist: ~3 ms for an agent of 100k passages, whatever the
-- question), and every row matched was checked against it. Each term's document count is now the
-- agent's own (bm25's weights, the typo look-up and "does the agent hold this word" per agent).
-- The rest is as in 0027: contentless, stemmed in the agent's language, the app merges.
DROP TABLE `chunks_fts_terms`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_language`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_insert`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_delete`;--> statement-breakpoint
DROP TRIGGER `chunks_fts_update`;--> statement-breakpoint
DROP TABLE `chunks_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(content, context, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `chunks_fts_insert` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO chunks_fts(rowid, content, context)
    SELECT new.id, partition_terms(new.chatbot_id, stem_text(b.language, new.content)), partition_terms(new.chatbot_id, stem_text(b.language, trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, ''))))
      FROM (SELECT (SELECT language FROM chatbots WHERE id = new.chatbot_id) AS language) b;
END;--> statement-breakpoint
CREATE TRIGGER `chunks_fts_delete` AFTER DELETE ON `chunks` BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
END;--> statement-breakpoint
CREATE TRIGGER `chunks_fts_update` AFTER UPDATE OF content, chatbot_id, title, heading ON `chunks` BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
  INSERT INTO chunks_fts(rowid, content, context)
    SELECT new.id, partition_terms(new.chatbot_id, stem_text(b.language, new.content)), partition_terms(new.chatbot_id, stem_text(b.language, trim(coalesce(new.title, '') || ' ' || coalesce(new.heading, ''))))
      FROM (SELECT (SELECT language FROM chatbots WHERE id = new.chatbot_id) AS language) b;
END;--> statement-breakpoint
CREATE TRIGGER `chunks_fts_language` AFTER UPDATE OF language ON `chatbots` WHEN old.language IS NOT new.language BEGIN
  DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE chatbot_id = new.id);
  INSERT INTO chunks_fts(rowid, content, context)
    SELECT id, partition_terms(chatbot_id, stem_text(new.language, content)), partition_terms(chatbot_id, stem_text(new.language, trim(coalesce(title, '') || ' ' || coalesce(heading, ''))))
      FROM chunks WHERE chatbot_id = new.id;
END;--> statement-breakpoint
INSERT INTO chunks_fts(rowid, content, context)
  SELECT c.id, partition_terms(c.chatbot_id, stem_text(b.language, c.content)), partition_terms(c.chatbot_id, stem_text(b.language, trim(coalesce(c.title, '') || ' ' || coalesce(c.heading, ''))))
    FROM chunks c LEFT JOIN chatbots b ON b.id = c.chatbot_id;--> statement-breakpoint
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);--> statement-breakpoint
-- the index's terms, for the typo look-up and the terms' document counts (knowledge/repo.ts)
CREATE VIRTUAL TABLE `chunks_fts_terms` USING fts5vocab('chunks_fts', 'row');
