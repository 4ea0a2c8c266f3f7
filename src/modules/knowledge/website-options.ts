import type { SourceRow } from './tables.js';

/**
 * A website source's `options` column: the crawl's settings, and while a re-crawl runs, the last
 * passage id of the crawl it replaces (those passages keep answering until it completes) and
 * when it started (the watchdog's clock for it).
 */
export interface WebsiteOptions {
  maxPages?: number;
  includePaths?: string[];
  excludePaths?: string[];
  replaces?: number;
  /** bytes of the passages it replaces: the re-crawl's own may take their place in the storage limit */
  replacedBytes?: number;
  startedAt?: string;
  /** a re-crawl is a sync: by hand (POST /recrawl) or on the source's schedule (sync_interval) */
  syncTrigger?: 'manual' | 'scheduled';
  /** the report of the crawl being replaced, shown again if the re-crawl fails (its passages stay) */
  previousReport?: Pick<
    SourceRow,
    'pages_done' | 'pages_found' | 'pages_skipped' | 'pages_skipped_by' | 'page_cap_hit'
  >;
}

/** A source's website options as stored ({} when there are none, or they cannot be read). */
export function websiteOptions(source: SourceRow): WebsiteOptions {
  try {
    return JSON.parse(source.options ?? '{}') as WebsiteOptions;
  } catch {
    return {};
  }
}

/** the settings of a website source without the bookkeeping of a re-crawl */
export function crawlSettings(options: WebsiteOptions): WebsiteOptions {
  const {
    replaces: _replaces,
    replacedBytes: _bytes,
    startedAt: _started,
    previousReport: _report,
    syncTrigger: _trigger,
    ...settings
  } = options;
  return settings;
}
