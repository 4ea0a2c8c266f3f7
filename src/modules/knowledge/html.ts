import { lazy } from '../../platform/lazy.js';
import { joinBlocks, RepeatedBlocks } from '../../platform/text/blocks.js';
import type { HtmlDocument, TextMark } from '../../platform/workers/types.js';

/** loaded by the first sitemap, not at start: importing cheerio costs about 0.2 s (platform/lazy.ts) */
const cheerioModule = lazy(() => import('cheerio'));

export interface ExtractedPage {
  title: string;
  text: string;
  /** where the page's sections (headings) start in `text` */
  marks: TextMark[];
  /** absolute http(s) links found in the page, fragments removed */
  links: string[];
}

/** Reads a page into blocks off the main thread (ParserPool.extractHtml). */
export type HtmlExtractor = (html: string, url: string, signal: AbortSignal) => Promise<HtmlDocument>;

/**
 * Reads the pages of one crawl: each page's main content as paragraphs (platform/text/html-text.ts,
 * in a worker: navigation, menus and link lists dropped, line wraps of the page source joined,
 * tables as Markdown), and, across the crawl, blocks repeated on several pages (a menu or footer a
 * site marks up with no tell-tale tags) dropped from the pages after. Links are collected before
 * anything is dropped, so menus still lead the crawler on.
 */
export function pageReader(
  extract: HtmlExtractor,
): (html: string, pageUrl: string, signal: AbortSignal) => Promise<ExtractedPage> {
  const repeated = new RepeatedBlocks();
  return async (html, pageUrl, signal) => {
    const page = await extract(html, pageUrl, signal);
    const { text, marks } = joinBlocks(repeated.filter(page.blocks));
    return { title: page.title, text, marks, links: page.links };
  };
}

/** The entries of a sitemap (urlset or sitemapindex): each `<loc>` with its `<lastmod>` when given. */
export async function sitemapEntries(xml: string): Promise<{ loc: string; lastmod?: string }[]> {
  const cheerio = await cheerioModule();
  const $ = cheerio.load(xml, { xml: true });
  return $('loc')
    .map((_, el) => {
      const lastmod = $(el).siblings('lastmod').first().text().trim();
      return { loc: $(el).text().trim(), ...(lastmod ? { lastmod } : {}) };
    })
    .get()
    .filter((e) => e.loc);
}
