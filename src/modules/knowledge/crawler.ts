import { safeFetch } from '../../platform/net/safe-fetch.js';
import { FetchFailedError, UnsafeUrlError } from '../../platform/net/types.js';
import type { TextMark } from '../../platform/workers/types.js';
import { createHash } from 'node:crypto';
import { type HtmlExtractor, pageReader, sitemapEntries } from './html.js';
import { RobotsRules } from './robots.js';

export const CRAWLER_USER_AGENT = 'ChatAgentBot/1.0';

export interface CrawlOptions {
  maxPages: number;
  /** path prefixes a page must start with (besides the start page); empty = all */
  includePaths: string[];
  /** path prefixes never fetched */
  excludePaths: string[];
  allowPrivate: boolean;
  signal: AbortSignal;
  /** reads a page's HTML into blocks, off the main thread (ParserPool.extractHtml) */
  extractHtml: HtmlExtractor;
  /** a sync: the source's pages from its last crawl, by key, asked for conditionally and not read again when unchanged */
  known?: Map<string, KnownPage>;
  /** a known page found unchanged (304, the same bytes, or not modified since by the sitemap's lastmod) */
  onUnchanged?: (page: KnownPage) => void;
}

/** A page a source already holds, as its last crawl read it (the source_pages table). */
export interface KnownPage {
  key: string;
  etag: string | null;
  lastModified: string | null;
  bodyHash: string;
  /** its same-site links: a page not read again still leads the crawl on */
  links: string[];
  fetchedAt: string;
}

export interface CrawledPage {
  url: string;
  title: string;
  text: string;
  /** where the page's sections start in `text` */
  marks: TextMark[];
  /** pageKey of the URL asked for */
  key: string;
  etag?: string;
  lastModified?: string;
  /** SHA-256 of the bytes answered */
  bodyHash: string;
  /** its same-site links (at most MAX_LINKS_KEPT) */
  links: string[];
}

/** Why a same-site page that was found was not stored. */
export const SKIP_REASONS = ['robots', 'excluded', 'not_html', 'too_large', 'failed'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export type SkippedPages = Record<SkipReason, number>;

export const noSkippedPages = (): SkippedPages => ({ robots: 0, excluded: 0, not_html: 0, too_large: 0, failed: 0 });

export interface CrawlProgress {
  done: number;
  /**
   * distinct same-site pages found that may be fetched: the ones done, the ones left (past the cap
   * too) and none of the skipped ones; the search stops at five times max_pages
   */
  found: number;
  /** distinct same-site pages found and not fetched (or fetched and not usable), by reason */
  skipped: SkippedPages;
}

export interface CrawlResult extends CrawlProgress {
  failedPages: number;
  /** known pages not read again: unchanged */
  unchanged: number;
  /** known pages that answered 404 or 410: gone from the site */
  gone: string[];
  /** every page key the crawl came across (links, sitemap): a known page not among them is gone from the site too */
  seen: Set<string>;
  /** more pages were found than max_pages allowed: the crawl stopped at the cap with pages left */
  capHit: boolean;
}

const PAGE_MAX_BYTES = 5 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 20_000;
const HTML_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain'];
const XML_TYPES = ['application/xml', 'text/xml', 'text/plain', 'application/x-xml'];
const NOT_A_PAGE =
  /\.(?:png|jpe?g|gif|webp|svg|ico|css|js|mjs|zip|gz|tar|mp3|mp4|mov|avi|woff2?|ttf|eot|exe|dmg|pdf|docx?|xlsx?|pptx?)$/i;
/** a page's same-site links kept for the next sync */
const MAX_LINKS_KEPT = 500;
/** distinct skipped URLs remembered (so a page linked from every page counts once); past this only known ones are recognised */
const MAX_SKIPPED_REMEMBERED = 20_000;

/** A directory's index file (`/index.html`, `/docs/index.htm`, ...): the same page as the directory. */
const INDEX_FILE = /\/index\.(?:html?|php|aspx?|jsp)$/i;

/**
 * The key a page is known by: no fragment, and an index file is its directory, so `/` and
 * `/index.html` are one page (issue 31). The URL fetched stays the one found first: a server that
 * serves only `/index.html` is still read.
 */
export function pageKey(u: URL): string {
  const k = new URL(u);
  k.hash = '';
  k.pathname = k.pathname.replace(INDEX_FILE, '/');
  return k.toString();
}

/** Why the crawl stopped short; the message is user-facing. */
export class CrawlError extends Error {
  override name = 'CrawlError';
}

/**
 * Fetches the start page and, up to `maxPages`, same-site pages reached by links and the sitemap,
 * honouring robots.txt. Every request goes through safeFetch (address checks on every hop).
 * Pages are handed to `onPage` one by one, so their text is stored as the crawl goes. Same-site
 * pages that are not stored are counted once each by reason; other sites' links are not counted.
 */
export async function crawl(
  startUrl: string,
  options: CrawlOptions,
  onPage: (page: CrawledPage, progress: CrawlProgress) => Promise<void> | void,
): Promise<CrawlResult> {
  const start = new URL(startUrl);
  const fetchOpts = (maxBytes: number, types: string[]) => ({
    allowPrivate: options.allowPrivate,
    maxBytes,
    timeoutMs: PAGE_TIMEOUT_MS,
    allowedContentTypes: types,
    signal: options.signal,
  });

  const robots = await loadRobots(start, fetchOpts(512 * 1024, ['text/plain']));
  if (!robots.allows(start.pathname + start.search))
    throw new CrawlError('robots.txt of the site does not allow fetching this page');

  const queue: string[] = [start.toString()];
  /** page keys (pageKey) of the pages queued or done */
  const seen = new Set<string>([pageKey(start)]);
  const skipped = noSkippedPages();
  const skippedUrls = new Set<string>();
  const skip = (key: string, reason: SkipReason) => {
    if (skippedUrls.has(key) || skippedUrls.size >= MAX_SKIPPED_REMEMBERED) return;
    skippedUrls.add(key);
    skipped[reason]++;
  };
  let capHit = false;
  /** why a same-site page is not fetched, or null when it may be */
  const skipReason = (u: URL): SkipReason | null => {
    const path = u.pathname;
    if (options.excludePaths.some((p) => path.startsWith(p))) return 'excluded';
    if (options.includePaths.length > 0 && !options.includePaths.some((p) => path.startsWith(p))) return 'excluded';
    if (NOT_A_PAGE.test(path)) return 'not_html';
    return robots.allows(path + u.search) ? null : 'robots';
  };
  const enqueue = (raw: string) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return;
    }
    if (u.host !== start.host || (u.protocol !== 'http:' && u.protocol !== 'https:')) return;
    u.hash = '';
    const key = pageKey(u);
    if (seen.has(key) || skippedUrls.has(key)) return;
    const reason = skipReason(u);
    if (reason) return skip(key, reason);
    // the queue holds at most five times the cap: more pages than that cannot all be fetched
    if (seen.size >= options.maxPages * 5) {
      capHit = true;
      return;
    }
    seen.add(key);
    queue.push(u.toString());
  };

  /** the sitemap's lastmod of each page that has one */
  const lastmods = new Map<string, number>();
  if (options.maxPages > 1) {
    for (const entry of await loadSitemap(start, robots.sitemaps, fetchOpts(10 * 1024 * 1024, XML_TYPES))) {
      enqueue(entry.loc);
      const when = entry.lastmod ? Date.parse(entry.lastmod) : Number.NaN;
      if (Number.isFinite(when) && URL.canParse(entry.loc, start.href))
        lastmods.set(pageKey(new URL(entry.loc, start)), when);
    }
  }

  const readPage = pageReader(options.extractHtml);
  let done = 0;
  let failedPages = 0;
  let unchanged = 0;
  const gone: string[] = [];
  const keepUnchanged = (known: KnownPage) => {
    for (const link of known.links) enqueue(link);
    unchanged++;
    done++;
    options.onUnchanged?.(known);
  };
  const sameSite = (links: string[]) =>
    links.filter((l) => URL.canParse(l) && new URL(l).host === start.host).slice(0, MAX_LINKS_KEPT);
  const progress = (): CrawlProgress => ({
    done,
    found: done + queue.length,
    skipped: { ...skipped },
  });
  while (queue.length > 0 && done < options.maxPages) {
    if (options.signal.aborted) break;
    const url = queue.shift()!;
    const key = pageKey(new URL(url));
    const known = options.known?.get(key);
    // the sitemap says the page has not changed since it was read
    if (known && (lastmods.get(key) ?? Number.POSITIVE_INFINITY) <= Date.parse(known.fetchedAt)) {
      keepUnchanged(known);
      continue;
    }
    let page: CrawledPage;
    try {
      const res = await safeFetch(url, { ...fetchOpts(PAGE_MAX_BYTES, HTML_TYPES), ...conditional(known) });
      if (known && res.status === 304) {
        keepUnchanged(known);
        continue;
      }
      if (known && (res.status === 404 || res.status === 410) && url !== start.toString()) {
        gone.push(key);
        continue;
      }
      if (res.status < 200 || res.status > 299) throw new FetchFailedError(`the page answered HTTP ${res.status}`);
      const bodyHash = createHash('sha256').update(res.body).digest('hex');
      // the same bytes as last time: not parsed, not embedded again
      if (known && bodyHash === known.bodyHash) {
        keepUnchanged(known);
        continue;
      }
      const body = res.body.toString('utf8');
      const validators = { key, etag: res.etag, lastModified: res.lastModified, bodyHash };
      if (res.contentType === 'text/plain') {
        page = { url: res.url, title: new URL(res.url).pathname, text: body, marks: [], ...validators, links: [] };
      } else {
        const extracted = await readPage(body, res.url, options.signal);
        for (const link of extracted.links) enqueue(link);
        const { title, text, marks } = extracted;
        page = { url: res.url, title, text, marks, ...validators, links: sameSite(extracted.links) };
      }
    } catch (err) {
      if (options.signal.aborted) break;
      if (done === 0 && failedPages === 0 && url === start.toString()) {
        // the page the user asked for could not be read: the whole source fails with that reason
        if (err instanceof UnsafeUrlError || err instanceof FetchFailedError) throw new CrawlError(err.message);
        throw new CrawlError('The page could not be fetched');
      }
      failedPages++;
      skip(pageKey(new URL(url)), fetchSkipReason(err));
      continue;
    }
    done++;
    await onPage(page, progress());
  }
  if (done >= options.maxPages && queue.length > 0) capHit = true;
  return { ...progress(), failedPages, unchanged, gone, seen, capHit };
}

/** the request headers that let a site answer 304 for a page that has not changed */
function conditional(known: KnownPage | undefined): { request?: { method: 'GET'; headers: Record<string, string> } } {
  const headers: Record<string, string> = {};
  if (known?.etag) headers['if-none-match'] = known.etag;
  if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
  return Object.keys(headers).length > 0 ? { request: { method: 'GET', headers } } : {};
}

/** safeFetch reports these as FetchFailedError with a user-facing message (platform/net/safe-fetch.ts) */
function fetchSkipReason(err: unknown): SkipReason {
  if (err instanceof FetchFailedError) {
    if (/unsupported content type/i.test(err.message)) return 'not_html';
    if (/too large/i.test(err.message)) return 'too_large';
  }
  return 'failed';
}

async function loadRobots(start: URL, opts: Parameters<typeof safeFetch>[1]): Promise<RobotsRules> {
  try {
    const res = await safeFetch(new URL('/robots.txt', start).toString(), opts);
    if (res.status >= 200 && res.status < 300) return RobotsRules.parse(res.body.toString('utf8'), CRAWLER_USER_AGENT);
  } catch {
    // no robots.txt (or unreadable): everything is allowed
  }
  return RobotsRules.allowAll();
}

async function loadSitemap(
  start: URL,
  declared: string[],
  opts: Parameters<typeof safeFetch>[1],
): Promise<{ loc: string; lastmod?: string }[]> {
  const pending = [...new Set([...declared, new URL('/sitemap.xml', start).toString()])];
  const locations: { loc: string; lastmod?: string }[] = [];
  for (let fetched = 0; pending.length > 0 && fetched < 5; fetched++) {
    const url = pending.shift()!;
    try {
      const res = await safeFetch(url, opts);
      if (res.status < 200 || res.status > 299) continue;
      for (const entry of await sitemapEntries(res.body.toString('utf8'))) {
        if (/\.xml(?:\.gz)?$/i.test(new URL(entry.loc, url).pathname)) pending.push(entry.loc);
        else locations.push(entry);
      }
    } catch {
      // a missing or broken sitemap only means fewer pages are known up front
    }
  }
  return locations;
}
