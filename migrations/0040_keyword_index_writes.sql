-- A count of the keyword index's changes, for the cache of bm25 scores (knowledge/keyword-scores.ts):
-- a search reads it (one row) and drops every cached score when it moved. Global, not per agent:
-- bm25 weighs a term by the whole table's row count and average length, so any agent's passages
-- change every agent's scores a little. Bumped by every write that changes what the index holds:
-- passages added, removed or edited, and an agent's language (its passages are stemmed again).
CREATE TABLE `keyword_index_writes` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1), `count` integer NOT NULL);--> statement-breakpoint
INSERT INTO `keyword_index_writes` (`id`, `count`) VALUES (1, 0);--> statement-breakpoint
CREATE TRIGGER `keyword_index_writes_insert` AFTER INSERT ON `chunks` BEGIN
  UPDATE keyword_index_writes SET count = count + 1 WHERE id = 1;
END;--> statement-breakpoint
CREATE TRIGGER `keyword_index_writes_delete` AFTER DELETE ON `chunks` BEGIN
  UPDATE keyword_index_writes SET count = count + 1 WHERE id = 1;
END;--> statement-breakpoint
CREATE TRIGGER `keyword_index_writes_update` AFTER UPDATE OF content, chatbot_id, title, heading ON `chunks` BEGIN
  UPDATE keyword_index_writes SET count = count + 1 WHERE id = 1;
END;--> statement-breakpoint
CREATE TRIGGER `keyword_index_writes_language` AFTER UPDATE OF language ON `chatbots` WHEN old.language IS NOT new.language BEGIN
  UPDATE keyword_index_writes SET count = count + 1 WHERE id = 1;
END;
