-- A counter per agent of chunks deleted, kept by a trigger so that every way a chunk goes (a
-- source deleted, re-ingested, an agent deleted by cascade) counts. The in-memory vector
-- candidates (VectorIndex) compare it with the value they were loaded at and reload when it moved.
CREATE TABLE `chunk_deletions` (
	`chatbot_id` text PRIMARY KEY NOT NULL,
	`deleted` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `chunks_count_deletions` AFTER DELETE ON `chunks` BEGIN
  INSERT INTO chunk_deletions (chatbot_id, deleted) VALUES (old.chatbot_id, 1)
    ON CONFLICT (chatbot_id) DO UPDATE SET deleted = deleted + 1;
END;
