/**
 * Blocks of a web page or document (html-text.ts reads them out of the HTML) joined into one text
 * with marks where headings start, and the filter that drops a crawl's repeated template text.
 * Kept apart from html-text.ts so the main thread can use them without loading cheerio: pages
 * are read into blocks in a worker (platform/workers), joined here.
 */

export interface HtmlBlock {
  text: string;
  /** headings above this block, outermost first */
  headings: string[];
  /** true for a heading block itself */
  heading?: boolean;
  /** blockKey(text), when the worker that read the page computed it (the main thread then need not) */
  key?: string;
}

export interface StructuredText {
  text: string;
  /** one per heading block: where the heading's text starts (UTF-16 offset in `text`) and its path */
  marks: Array<{ at: number; headings: string[] }>;
}

/** white space runs as one space, trimmed */
export const collapse = (text: string) => text.replace(/\s{2,}|[^\S ]/g, ' ').trim();

/** The blocks as one text (blank lines between blocks) with a mark where each heading starts. */
export function joinBlocks(blocks: HtmlBlock[]): StructuredText {
  const parts: string[] = [];
  const marks: StructuredText['marks'] = [];
  let at = 0;
  for (const block of blocks) {
    if (!block.text) continue;
    if (parts.length) at += 2;
    if (block.heading) marks.push({ at, headings: block.headings });
    parts.push(block.text);
    at += block.text.length;
  }
  return { text: parts.join('\n\n'), marks };
}

/**
 * Template text of a crawled site: the menu, footer and cookie notice that boilerplate removal
 * missed come back on every page, so a block is dropped once its text was seen on `minPages`
 * earlier pages. The first pages keep theirs, so the text is still found once. Short blocks count
 * too: menus are short. Headings are never dropped: they give the passages below their path.
 */
export class RepeatedBlocks {
  /** pages each block text was seen on */
  private readonly pages = new Map<string, number>();
  /** no new keys once the memory bound is reached and pruning no longer frees room */
  private full = false;

  constructor(
    private readonly minPages = 2,
    private readonly maxKeys = 20_000,
  ) {}

  filter(blocks: HtmlBlock[]): HtmlBlock[] {
    const seen = new Set<string>();
    const kept: HtmlBlock[] = [];
    for (const block of blocks) {
      if (block.heading) {
        kept.push(block);
        continue;
      }
      const key = block.key ?? blockKey(block.text);
      if ((this.pages.get(key) ?? 0) < this.minPages) kept.push(block);
      seen.add(key);
    }
    for (const key of seen) this.count(key);
    return kept;
  }

  private count(key: string): void {
    const n = this.pages.get(key);
    if (n !== undefined) {
      this.pages.set(key, n + 1);
      return;
    }
    if (this.pages.size >= this.maxKeys) {
      if (this.full) return;
      // texts seen on one page only are most likely page content: forget those first
      for (const [k, count] of this.pages) if (count === 1) this.pages.delete(k);
      if (this.pages.size >= this.maxKeys * 0.9) {
        this.full = true;
        return;
      }
    }
    this.pages.set(key, 1);
  }
}

/**
 * What RepeatedBlocks compares: lower-case, white space collapsed; a long text is kept as its
 * length, start and hash (memory). A pass over every character: for a crawled page it runs in the
 * worker that read the page (workers/html-task.ts extractHtml), not on the event loop.
 */
export function blockKey(text: string): string {
  const key = collapse(text.toLowerCase());
  return key.length <= 200 ? key : `${key.length}:${key.slice(0, 100)}:${hash(key)}`;
}

/** two 32-bit FNV-1a hashes with different offsets: 64 bits, enough to tell long blocks apart */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36);
}
