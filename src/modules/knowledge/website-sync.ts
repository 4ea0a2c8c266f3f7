import { createHash } from 'node:crypto';
import { type Clock, isoNow } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { CrawledPage, CrawlResult, KnownPage } from './crawler.js';
import type { SyncRepo } from './sync-repo.js';
import type { LastSync, SourcePageRow, SourceSyncRow } from './tables.js';

/** pages listed by name in a sync's record (its counts are whole) */
const LISTED = 50;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The known pages of a source as the crawler takes them. */
function knownPages(rows: SourcePageRow[]): Map<string, KnownPage> {
  return new Map(
    rows.map((r) => [
      r.page_key,
      {
        key: r.page_key,
        etag: r.etag,
        lastModified: r.last_modified,
        bodyHash: r.body_hash,
        links: r.links,
        fetchedAt: r.fetched_at,
      },
    ]),
  );
}

/**
 * One crawl's account of a website source's pages (docs/API-NOTES.md "Website sync"). The first
 * crawl stores every page; a sync (a re-crawl, by hand or on schedule) stores only pages that are
 * new or whose text changed, and ends by taking out the passages those replace and those of pages
 * gone from the site, in one transaction, so the previous passages answer until the new ones are
 * in. A sync whose pages mostly failed changes nothing.
 */
export class WebsiteLedger {
  private readonly rows: Map<string, SourcePageRow>;
  readonly known: Map<string, KnownPage>;
  private readonly read = new Map<string, SourcePageRow>();
  private readonly unchanged = new Set<string>();
  private readonly added: string[] = [];
  private readonly changed: { url: string; summary: string; oldUrl: string }[] = [];

  constructor(
    private readonly repo: SyncRepo,
    private readonly sourceId: string,
    /** the passages of the crawl before: ids up to this one (null for a first crawl) */
    private readonly boundary: number | null,
    private readonly clock: Clock,
  ) {
    this.rows = new Map(boundary === null ? [] : repo.pagesOf(sourceId).map((r) => [r.page_key, r]));
    this.known = knownPages([...this.rows.values()]);
  }

  /** A page the crawl read: true when its passages must be stored (new, or its text changed). */
  pageRead(page: CrawledPage): boolean {
    const textHash = sha256(page.text);
    const before = this.rows.get(page.key);
    this.read.set(page.key, {
      source_id: this.sourceId,
      page_key: page.key,
      page_url: page.url,
      etag: page.etag ?? null,
      last_modified: page.lastModified ?? null,
      body_hash: page.bodyHash,
      text_hash: textHash,
      links: page.links,
      fetched_at: isoNow(this.clock),
    });
    if (before && before.text_hash === textHash && before.page_url === page.url) {
      this.unchanged.add(page.key);
      return false;
    }
    if (!before) this.added.push(page.url);
    else if (this.boundary !== null)
      this.changed.push({
        url: page.url,
        oldUrl: before.page_url,
        summary: changeSummary(this.repo.pageText(this.sourceId, before.page_url, this.boundary), page.text),
      });
    return true;
  }

  pageUnchanged(page: KnownPage): void {
    this.unchanged.add(page.key);
  }

  /** Why this sync must change nothing (most of its pages failed), or null. */
  refusal(result: CrawlResult): string | null {
    const tried = result.done + result.failedPages;
    if (result.failedPages > 0 && result.failedPages * 2 >= tried)
      return `${result.failedPages} of the ${tried} pages tried could not be read; nothing was changed`;
    return null;
  }

  /** The URLs whose passages this sync takes out: the changed pages' and the removed pages' (before its commit). */
  replacedPageUrls(result: CrawlResult): Map<string, string> {
    const urls = new Map<string, string>();
    for (const c of this.changed) urls.set(c.oldUrl, `changed (${c.summary})`);
    for (const r of this.removedPages(result)) urls.set(r.page_url, 'is gone from the site');
    return urls;
  }

  /** The pages the source held that are gone (404 or 410, or no longer linked nor in the sitemap). */
  removedPages(result: CrawlResult): SourcePageRow[] {
    const gone = new Set(result.gone);
    return [...this.rows.values()].filter(
      (r) =>
        !this.read.has(r.page_key) &&
        !this.unchanged.has(r.page_key) &&
        (gone.has(r.page_key) || !result.seen.has(r.page_key)),
    );
  }

  /**
   * Inside the transaction that completes the crawl: the passages changed and removed pages held
   * before go, the pages are recorded, and a sync is recorded with what it found.
   */
  commit(
    result: CrawlResult,
    deleteOldPassages: (pageUrls: string[] | 'all') => void,
    trigger: SourceSyncRow['trigger'] | null,
    startedAt: string,
  ) {
    const removed = this.removedPages(result);
    // a source crawled before pages were recorded: every passage of the crawl before is replaced
    deleteOldPassages(
      this.rows.size === 0 ? 'all' : [...this.changed.map((c) => c.oldUrl), ...removed.map((r) => r.page_url)],
    );
    this.repo.deletePages(
      this.sourceId,
      removed.map((r) => r.page_key),
    );
    if (this.boundary === null) this.repo.clearPages(this.sourceId);
    for (const row of this.read.values()) this.repo.savePage(row);
    const now = isoNow(this.clock);
    for (const key of this.unchanged) if (!this.read.has(key)) this.repo.touchPage(this.sourceId, key, now);
    const counts = {
      added: this.added.length,
      changed: this.changed.length,
      removed: removed.length,
      unchanged: this.unchanged.size,
    };
    if (trigger)
      this.repo.recordSync({
        id: newId(),
        source_id: this.sourceId,
        trigger,
        status: 'completed',
        error: null,
        ...counts,
        details: {
          added: this.added.slice(0, LISTED),
          changed: this.changed.slice(0, LISTED).map(({ url, summary }) => ({ url, summary })),
          removed: removed.slice(0, LISTED).map((r) => r.page_url),
        },
        started_at: startedAt,
        finished_at: now,
      });
    return counts;
  }
}

/** Records a sync that changed nothing, and why. */
export function recordFailedSync(
  repo: SyncRepo,
  sourceId: string,
  trigger: SourceSyncRow['trigger'],
  error: string,
  startedAt: string,
  now: string,
): LastSync {
  repo.recordSync({
    id: newId(),
    source_id: sourceId,
    trigger,
    status: 'failed',
    error,
    added: 0,
    changed: 0,
    removed: 0,
    unchanged: 0,
    details: { added: [], changed: [], removed: [] },
    started_at: startedAt,
    finished_at: now,
  });
  return { status: 'failed', error, added: 0, changed: 0, removed: 0, unchanged: 0, finished_at: now };
}

/**
 * What changed in a page's text, in a line: how many lines came and went, and the first of each
 * (e.g. `+1 -1 lines: "Open 9 to 6" (was "Open 9 to 5")`).
 */
export function changeSummary(before: string, after: string): string {
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  const old = new Set(lines(before));
  const now = new Set(lines(after));
  const came = [...now].filter((l) => !old.has(l));
  const went = [...old].filter((l) => !now.has(l));
  const quote = (l: string) => `"${l.length > 80 ? `${l.slice(0, 79)}…` : l}"`;
  const parts = [`+${came.length} -${went.length} lines`];
  if (came[0]) parts.push(`: ${quote(came[0])}${went[0] ? ` (was ${quote(went[0])})` : ''}`);
  else if (went[0]) parts.push(`: ${quote(went[0])} taken out`);
  return parts.join('');
}
