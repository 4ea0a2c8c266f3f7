import { lazy } from '../../platform/lazy.js';

/** loaded by the first crawl, not at start: importing cheerio costs about 0.2 s (platform/lazy.ts) */
const cheerioModule = lazy(() => import('cheerio'));

export interface ExtractedPage {
  title: string;
  text: string;
  /** absolute http(s) links found in the page, fragments removed */
  links: string[];
}

const NOISE = 'script, style, noscript, template, svg, canvas, iframe, object, embed, nav, header, footer, aside, form, button, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]';
const BLOCKS = 'p, div, section, article, main, li, ul, ol, table, tr, h1, h2, h3, h4, h5, h6, br, hr, pre, blockquote, dd, dt';

/**
 * The readable text of an HTML page: the main content (main/article/[role=main] when present,
 * else the body) without navigation, scripts, styles and forms; block elements become line
 * breaks so paragraphs survive for the chunker. Links are collected before the noise is removed,
 * so navigation menus still lead the crawler on.
 */
export async function extractPage(html: string, pageUrl: string): Promise<ExtractedPage> {
  const cheerio = await cheerioModule();
  const $ = cheerio.load(html);
  const base = $('base[href]').attr('href');
  const baseUrl = safeUrl(base ?? '', pageUrl) ?? pageUrl;

  const links = new Set<string>();
  $('a[href]').each((_, el) => {
    const rel = ($(el).attr('rel') ?? '').toLowerCase();
    if (rel.includes('nofollow')) return;
    const href = safeUrl($(el).attr('href') ?? '', baseUrl);
    if (href) links.add(href);
  });

  const title = ($('title').first().text() || $('h1').first().text()).replace(/\s+/g, ' ').trim();
  $(NOISE).remove();
  const root = $('main, article, [role=main]').first().length ? $('main, article, [role=main]').first() : $('body');
  root.find(BLOCKS).each((_, el) => {
    $(el).prepend('\n').append('\n');
  });
  const text = root
    .text()
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
  return { title, text, links: [...links] };
}

function safeUrl(href: string, base: string): string | null {
  try {
    const u = new URL(href, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u.toString();
  } catch {
    return null;
  }
}

/** `<loc>` entries of a sitemap (urlset or sitemapindex). */
export async function sitemapLocations(xml: string): Promise<string[]> {
  const cheerio = await cheerioModule();
  const $ = cheerio.load(xml, { xml: true });
  return $('loc')
    .map((_, el) => $(el).text().trim())
    .get()
    .filter(Boolean);
}
