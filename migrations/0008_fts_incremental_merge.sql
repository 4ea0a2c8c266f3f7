-- FTS5's automatic merge runs inside whichever commit fills a level, rewriting large segments
-- while the main thread waits (tens of ms during a big ingestion). It is turned off here; every
-- insert into chunks is followed by a small, bounded incremental merge instead
-- (KnowledgeRepo.insertChunks), which keeps the index as compact as automerge did.
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0);
