import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { chatbots } from '../agents/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/** What a website source's last sync found (the source answer's `last_sync`). */
export interface LastSync {
  status: 'completed' | 'failed';
  /** why a failed sync changed nothing */
  error: string | null;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  finished_at: string;
}

/** A training source of an agent: an uploaded file, a website or a text. */
export const sources = sqliteTable(
  'sources',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    type: text('type', { enum: ['file', 'website', 'text', 'qa'] }).notNull(),
    /** qa sources: the question it answers and the owner's answer (its passage is made from both) */
    qa_question: text('qa_question'),
    qa_answer: text('qa_answer'),
    name: text('name').notNull(),
    /**
     * files: the document's own title (PDF or DOCX metadata), set once it is read; visitors see
     * it, or the file name without its extension when null, never the file name (sourceLabel)
     */
    title: text('title'),
    url: text('url'),
    file_type: text('file_type'),
    file_size: integer('file_size'),
    status: text('status', { enum: ['processing', 'completed', 'failed'] }).notNull(),
    error_message: text('error_message'),
    /** 0..1 while processing (ingestion issue); 1 when completed */
    progress: real('progress').notNull().default(0),
    /** websites: pages fetched so far and pages known (links and sitemap entries within the crawl limits) */
    pages_done: integer('pages_done'),
    pages_found: integer('pages_found'),
    /**
     * websites, the crawl report: same-site pages found but not fetched (robots.txt, include/exclude
     * paths, not HTML, too large, errors), the same by reason as JSON (crawler.ts SkippedPages),
     * and whether max_pages stopped the crawl with pages left (null until the crawl has ended)
     */
    pages_skipped: integer('pages_skipped'),
    pages_skipped_by: text('pages_skipped_by'),
    page_cap_hit: integer('page_cap_hit', { mode: 'boolean' }),
    /**
     * bytes of passage text stored for this source (UTF-8), kept in step by the repository: with
     * uploads waiting on disk, what the plan's storage limit counts
     */
    passage_bytes: integer('passage_bytes').notNull().default(0),
    /** files: where the upload waits in DATA_DIR/uploads until it is ingested (then it is deleted) */
    stored_path: text('stored_path'),
    /** websites: crawl options as JSON */
    options: text('options'),
    /** websites: re-synced by itself `daily` or `weekly` (docs/API-NOTES.md "Website sync"), or `off` */
    sync_interval: text('sync_interval', { enum: ['off', 'daily', 'weekly'] })
      .notNull()
      .default('off'),
    /** websites: when the last sync (scheduled or a re-crawl) ended, and when the next scheduled one is due */
    last_synced_at: text('last_synced_at'),
    next_sync_at: text('next_sync_at'),
    /** websites: what the last sync found (its counts), or why it changed nothing; null before one */
    last_sync: text('last_sync', { mode: 'json' }).$type<LastSync>(),
    /**
     * qa sources: "check this", why the answer may be out of date (a sync changed or removed the
     * page retrieval cites for its question); cleared when the owner edits the answer
     */
    check_reason: text('check_reason'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('sources_chatbot_created').on(t.chatbot_id, t.created_at)],
);

/**
 * The pages a website source holds, as its last crawl or sync read them: what the next sync asks
 * the site with (ETag, Last-Modified), the hashes that tell an unchanged page without parsing or
 * embedding it again, and the page's same-site links (a page answered 304 still leads the crawl on).
 */
export const sourcePages = sqliteTable(
  'source_pages',
  {
    source_id: ownerId('source_id', () => sources.id),
    /** the page's key (crawler.ts pageKey) */
    page_key: text('page_key').notNull(),
    /** the URL its passages carry (chunks.page_url) */
    page_url: text('page_url').notNull(),
    etag: text('etag'),
    last_modified: text('last_modified'),
    /** SHA-256 of the bytes answered, and of the text read from them */
    body_hash: text('body_hash').notNull(),
    text_hash: text('text_hash').notNull(),
    /** same-site links of the page (JSON array) */
    links: text('links', { mode: 'json' }).$type<string[]>().notNull().default([]),
    fetched_at: text('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.source_id, t.page_key] })],
);

/**
 * What each sync of a website source found: pages added, changed (with a short summary of the
 * text's change) and removed, or why it changed nothing (the site down, most pages failing). The
 * last few are kept per source.
 */
export const sourceSyncs = sqliteTable(
  'source_syncs',
  {
    id: text('id').primaryKey(),
    source_id: ownerId('source_id', () => sources.id),
    /** `scheduled` (sync_interval) or `manual` (POST /recrawl) */
    trigger: text('trigger', { enum: ['scheduled', 'manual'] }).notNull(),
    status: text('status', { enum: ['completed', 'failed'] }).notNull(),
    /** why a failed sync changed nothing */
    error: text('error'),
    added: integer('added').notNull().default(0),
    changed: integer('changed').notNull().default(0),
    removed: integer('removed').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    /** {added: [url], changed: [{url, summary}], removed: [url]}, each list cut at a few dozen */
    details: text('details', { mode: 'json' })
      .$type<{ added: string[]; changed: { url: string; summary: string }[]; removed: string[] }>()
      .notNull(),
    started_at: text('started_at').notNull(),
    finished_at: text('finished_at').notNull(),
  },
  (t) => [index('source_syncs_source').on(t.source_id, t.finished_at)],
);

/**
 * Passages of a source. The integer id is the rowid shared with the FTS5 index (chunks_fts,
 * kept in step by triggers) and with the vector tables (chunk_vectors, chunk_embeddings: see vector-index.ts).
 */
export const chunks = sqliteTable(
  'chunks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    source_id: ownerId('source_id', () => sources.id),
    ordinal: integer('ordinal').notNull(),
    content: text('content').notNull(),
    token_count: integer('token_count').notNull(),
    /**
     * Where the passage comes from inside its source, for the model and the citations: the page
     * title (websites; documents: their title when they have one), the page's own URL (websites),
     * the PDF page it starts on, and the headings above it ("Setup > Resetting the router").
     */
    title: text('title'),
    page_url: text('page_url'),
    page: integer('page'),
    heading: text('heading'),
    /** the embedder whose vector is stored for this chunk; null = not embedded yet */
    embedded_with: text('embedded_with'),
  },
  (t) => [index('chunks_source').on(t.source_id), index('chunks_chatbot_unembedded').on(t.chatbot_id, t.embedded_with)],
);

/**
 * Questions an agent could not answer well, grouped by their normalised text: no passage found,
 * the model said it does not know, a thumbs-down, or the visitor asked for a person. The owner
 * answers a group once (a `qa` source) and it is closed.
 */
export const answerGaps = sqliteTable(
  'answer_gaps',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    /** the grouping key: the question's content words, normalised */
    question_key: text('question_key').notNull(),
    /** the latest wording a visitor used */
    question: text('question').notNull(),
    /** why it counts as a gap, each reason seen (JSON array) */
    reasons: text('reasons', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** how many distinct conversations asked it (the rows of answer_gap_conversations) */
    count: integer('count').notNull().default(1),
    status: text('status', { enum: ['open', 'answered', 'dismissed'] })
      .notNull()
      .default('open'),
    /** the qa source that answered it */
    source_id: text('source_id'),
    /** the latest conversation it came from */
    conversation_id: text('conversation_id'),
    first_seen_at: text('first_seen_at').notNull(),
    last_seen_at: text('last_seen_at').notNull(),
  },
  (t) => [
    index('answer_gaps_chatbot_key').on(t.chatbot_id, t.question_key),
    index('answer_gaps_chatbot_status').on(t.chatbot_id, t.status, t.last_seen_at),
  ],
);

/**
 * The conversations a gap came from, one row each: a gap's `count` is how many there are, so a
 * visitor who thumbs down, clears and thumbs down again, or asks again, counts once.
 */
export const answerGapConversations = sqliteTable(
  'answer_gap_conversations',
  {
    gap_id: ownerId('gap_id', () => answerGaps.id),
    conversation_id: text('conversation_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.gap_id, t.conversation_id] }),
    index('answer_gap_conversations_conversation').on(t.conversation_id),
  ],
);

export type SourceRow = typeof sources.$inferSelect;
export type SourcePageRow = typeof sourcePages.$inferSelect;
export type SourceSyncRow = typeof sourceSyncs.$inferSelect;
export type ChunkRow = typeof chunks.$inferSelect;
