import { type CrawlProgress, noSkippedPages } from './crawler.js';
import type { SourceRow } from './tables.js';

// The crawl columns of a website source (pages done, found and skipped), as ingestion writes them.

/** The skipped-pages columns of a website source; page_cap_hit stays null until the crawl ends. */
export function crawlReport(
  progress: CrawlProgress,
): Pick<SourceRow, 'pages_skipped' | 'pages_skipped_by' | 'page_cap_hit'> {
  const skipped = Object.values(progress.skipped).reduce((a, b) => a + b, 0);
  return { pages_skipped: skipped, pages_skipped_by: JSON.stringify(progress.skipped), page_cap_hit: null };
}

/** How far a crawl is: the pages done of those it will read (found, up to max_pages). */
export const crawlFraction = (progress: CrawlProgress, maxPages: number) =>
  progress.done / Math.max(Math.min(progress.found, maxPages), 1);

/** The report of a crawl that has not fetched anything yet (a new source, or a restarted crawl). */
export const crawlNotStarted = () => crawlReport({ done: 0, found: 1, skipped: noSkippedPages() });

/** A website source's columns as a crawl (the first, or a re-crawl) is queued. */
export const crawlQueued = () =>
  ({
    status: 'processing',
    error_message: null,
    progress: 0,
    pages_done: 0,
    pages_found: 1,
    ...crawlNotStarted(),
  }) satisfies Partial<SourceRow>;
