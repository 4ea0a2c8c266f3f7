import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { chatbots } from '../agents/tables.js';
import { ownerId } from '../../platform/db/columns.js';

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
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('sources_chatbot_created').on(t.chatbot_id, t.created_at)],
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
export type ChunkRow = typeof chunks.$inferSelect;
