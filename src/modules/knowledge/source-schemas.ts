import { z } from 'zod';
import { noSkippedPages, type SkippedPages } from './crawler.js';
import type { SourceRow } from './tables.js';

// Sources as the API answers them (routes.ts, qa-routes.ts).

export const sourceSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  type: z.enum(['file', 'website', 'text', 'qa']).describe('qa: a question and its answer, written by the owner'),
  name: z.string(),
  url: z.string().nullable(),
  file_type: z.string().nullable(),
  file_size: z.number().int().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  error_message: z.string().nullable(),
  progress: z.number(),
  pages_done: z.number().int().nullable(),
  pages_found: z.number().int().nullable(),
  /** websites: the max_pages the crawl was asked for; null for other sources */
  max_pages: z.number().int().nullable(),
  /** websites: same-site pages found but not stored (robots.txt, include/exclude paths, not HTML, too large, errors) */
  pages_skipped: z.number().int().nullable(),
  pages_skipped_by: z
    .object({
      robots: z.number().int(),
      excluded: z.number().int(),
      not_html: z.number().int(),
      too_large: z.number().int(),
      failed: z.number().int(),
    })
    .nullable(),
  /** websites: the crawl stopped at max_pages with pages left; null while processing (and for other sources) */
  page_cap_hit: z.boolean().nullable(),
  /** websites: how often it syncs by itself (null for other sources) */
  sync_interval: z.enum(['off', 'daily', 'weekly']).nullable(),
  last_synced_at: z.string().nullable(),
  next_sync_at: z.string().nullable(),
  /** websites: what the last sync (a re-crawl, by hand or on schedule) found, or why it changed nothing */
  last_sync: z
    .object({
      status: z.enum(['completed', 'failed']),
      error: z.string().nullable(),
      added: z.number().int(),
      changed: z.number().int(),
      removed: z.number().int(),
      unchanged: z.number().int(),
      finished_at: z.string(),
    })
    .nullable(),
  /**
   * "check this": why the answer may be out of date (a sync changed or removed the page retrieval
   * cites for a qa source's question); null when there is nothing to check
   */
  check_reason: z.string().nullable(),
  /** qa sources only (absent on others): the question and the owner's answer */
  qa_question: z.string().optional(),
  qa_answer: z.string().optional(),
  created_at: z.string(),
});

type SourceResponse = z.infer<typeof sourceSchema>;

/** A page of a source's passages: where each comes from (passage-context.ts) and its text. */
export const passagePage = z.object({
  source: sourceSchema,
  total: z.number().int(),
  offset: z.number().int(),
  passages: z
    .object({
      id: z.number().int(),
      ordinal: z.number().int(),
      content: z.string(),
      token_count: z.number().int(),
      title: z.string().nullable(),
      page_url: z.string().nullable(),
      page: z.number().int().nullable(),
      heading: z.string().nullable(),
    })
    .array(),
});

/** A source row as the API shows it: the crawl options and report of a website read from their columns. */
export function sourceResponse(row: SourceRow): SourceResponse {
  const website = row.type === 'website';
  let maxPages: number | null = null;
  let skippedBy: SkippedPages | null = null;
  if (website) {
    try {
      maxPages = (JSON.parse(row.options ?? '{}') as { maxPages?: number }).maxPages ?? 1;
    } catch {
      maxPages = null;
    }
    if (row.pages_skipped !== null) {
      try {
        skippedBy = { ...noSkippedPages(), ...(JSON.parse(row.pages_skipped_by ?? '{}') as Partial<SkippedPages>) };
      } catch {
        skippedBy = null;
      }
    }
  }
  return {
    id: row.id,
    chatbot_id: row.chatbot_id,
    type: row.type,
    name: row.name,
    url: row.url,
    file_type: row.file_type,
    file_size: row.file_size,
    status: row.status,
    error_message: row.error_message,
    progress: row.progress,
    pages_done: row.pages_done,
    pages_found: row.pages_found,
    max_pages: maxPages,
    pages_skipped: website ? row.pages_skipped : null,
    pages_skipped_by: skippedBy,
    page_cap_hit: website ? row.page_cap_hit : null,
    sync_interval: website ? row.sync_interval : null,
    last_synced_at: website ? row.last_synced_at : null,
    next_sync_at: website ? row.next_sync_at : null,
    last_sync: website ? row.last_sync : null,
    check_reason: row.check_reason,
    ...(row.type === 'qa' ? { qa_question: row.qa_question ?? '', qa_answer: row.qa_answer ?? '' } : {}),
    created_at: row.created_at,
  };
}
