import { load } from 'cheerio';
import { collapse, type HtmlBlock } from './blocks.js';

export { joinBlocks, RepeatedBlocks, type HtmlBlock, type StructuredText } from './blocks.js';

/**
 * The readable structure of an HTML page (a website page, or the HTML mammoth makes of a DOCX):
 * blocks of text (paragraphs, whole lists, whole tables as Markdown, headings) with the heading
 * path above each, the page's links and its title. Pure (no I/O), so it can run in a worker.
 *
 * Parsing goes through cheerio's htmlparser2 mode rather than its default parse5: parse5 is
 * quadratic in the nesting depth (50,000 nested divs take 8.6 s, htmlparser2 0.2 s), and it is
 * slower on flat pages too (up to 10x). htmlparser2 does not add the implied html/head/body/tbody, which
 * the walk below does not need. The DOM is then read with two linear walks over the domhandler
 * nodes, never with cheerio selections: the first collects links, the title and per-element
 * statistics (text length, link text, what an element holds); the second builds the blocks,
 * deciding what to drop from those statistics in O(1) per element.
 */

export interface HtmlDocument {
  title: string;
  blocks: HtmlBlock[];
  /** absolute http(s) links of the whole page (menus included), fragments removed; empty without a url */
  links: string[];
}

export interface HtmlOptions {
  /** the page's address: links are resolved against it (or the page's `<base href>`) */
  url?: string;
  /** drop navigation, headers, footers, sidebars, cookie banners and link lists (default true; DOCX passes false) */
  boilerplate?: boolean;
}

/** The domhandler node shape, as far as it is read here (cheerio does not re-export its types). */
interface DomNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  data?: string;
  children?: DomNode[];
  parent: DomNode | null;
  next: DomNode | null;
  /** set on every element by the first walk (the parsed tree is private to one htmlBlocks call) */
  stats?: Stats;
}

/** Never text: removed with everything inside, boilerplate or not. */
const ALWAYS_REMOVED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'form',
  'button',
  'select',
  'input',
  // not named in the rules but never readable text either: fallback text of media, form fields,
  // and head content (htmlparser2 adds no body, so the walk may start at the document)
  'textarea',
  'audio',
  'video',
  'map',
  'head',
  'title',
  'meta',
  'link',
  'base',
]);

/** Elements that end a block (their text never runs into the text around them). */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'search',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);

const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/** Their header/footer is the section's own (e.g. an article's title), not the site's banner (as in ARIA). */
const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);

/** The content roots: never dropped as boilerplate, whatever their class says. */
const NEVER_DROPPED = new Set(['html', 'body', 'main', 'article']);

const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);

const BOILERPLATE_WORDS = new Set([
  'nav',
  'navbar',
  'menu',
  'menubar',
  'sidebar',
  'footer',
  'header',
  'breadcrumb',
  'breadcrumbs',
  'cookie',
  'cookies',
  'banner',
  'social',
  'share',
  'skip',
  'topbar',
  'toolbar',
  'pagination',
  'pager',
]);
/** class words naming a title area: such an element is kept when it holds a heading ("section-header", "entry-header") */
const TITLE_AREA_WORDS = new Set(['header', 'banner']);

/** Containers judged by their link density. */
const LINK_LIST_TAGS = new Set(['ul', 'ol', 'div', 'table', 'p']);
const LINK_LIST_MIN_LINKS = 3;
const LINK_LIST_MIN_SHARE = 0.7;
/** a container with this much text outside its links is content however many links it has (a page wrapper next to a big menu) */
const LINK_LIST_MAX_OTHER_CHARS = 200;

/** a table cell with more block content than this is page layout, not data */
const LAYOUT_CELL_CHARS = 1500;
/** bounds on spans, so a hostile colspan cannot blow the output up */
const MAX_COLSPAN = 50;
const MAX_ROWSPAN = 1000;

// flags of what an element holds (per-element statistics of the first walk)
const HOLDS_H1 = 1;
const HOLDS_HEADING = 2;
const HOLDS_TABLE = 4;
const HOLDS_BLOCK = 8;

interface Stats {
  /** non-white-space characters of the text inside (removed elements not counted) */
  chars: number;
  /** of which inside links */
  linkChars: number;
  links: number;
  holds: number;
  removed: boolean;
}

export function htmlBlocks(html: string, options: HtmlOptions = {}): HtmlDocument {
  const boilerplate = options.boilerplate ?? true;
  const $ = load(html, { xml: { xmlMode: false, decodeEntities: true } });
  const document = $.root()[0] as unknown as DomNode;
  const survey = surveyPage(document);
  const links = options.url ? resolveLinks(survey.hrefs, survey.baseHref, options.url) : [];
  const root = survey.main ?? survey.roleMain ?? survey.article ?? survey.body ?? document;
  const builder = new BlockBuilder(boilerplate);
  walk(root, builder.enter, builder.exit);
  builder.endBlock();
  return { title: collapse(survey.title ?? survey.h1 ?? ''), blocks: builder.blocks, links };
}

/**
 * Depth-first over the subtree of `root` without recursion (pages nest 50,000 deep) and without a
 * stack: children, then the next sibling, else back up through the parents. `enter` says whether
 * to go into a node; `exit` is called for every node gone into, after its children.
 */
function walk(root: DomNode, enter: (node: DomNode) => boolean, exit: (node: DomNode) => void): void {
  let node = root;
  for (;;) {
    const into = enter(node);
    const first = into ? node.children?.[0] : undefined;
    if (first) {
      node = first;
      continue;
    }
    if (into) exit(node);
    for (;;) {
      if (node === root) return;
      if (node.next) {
        node = node.next;
        break;
      }
      node = node.parent!;
      exit(node);
    }
  }
}

const isElement = (node: DomNode) => node.type === 'tag' || node.type === 'script' || node.type === 'style';

function alwaysRemoved(el: DomNode): boolean {
  const a = el.attribs ?? {};
  return ALWAYS_REMOVED.has(el.name!) || a['aria-hidden']?.toLowerCase() === 'true' || a.hidden !== undefined;
}

interface Survey {
  hrefs: string[];
  baseHref?: string;
  title?: string;
  h1?: string;
  main?: DomNode;
  roleMain?: DomNode;
  article?: DomNode;
  body?: DomNode;
}

/** The first walk: links, base, title, content root candidates, and per-element statistics. */
function surveyPage(document: DomNode): Survey {
  const survey: Survey = { hrefs: [] };
  const open: Stats[] = [];
  let removedDepth = 0; // inside (or at) an always-removed element
  let foreignDepth = 0; // inside an svg or math element, whose <title> is not the page's
  let linkDepth = 0;
  let title: { el: DomNode; parts: string[] } | undefined;
  let h1: { el: DomNode; parts: string[] } | undefined;

  walk(
    document,
    (node) => {
      if (node.type === 'text') {
        const text = node.data ?? '';
        const chars = nonSpaceLength(text);
        const top = open[open.length - 1];
        if (top) {
          top.chars += chars;
          if (linkDepth) top.linkChars += chars;
        }
        title?.parts.push(text);
        if (removedDepth === 0) h1?.parts.push(text);
        return false;
      }
      if (node.type === 'root') return true;
      if (!isElement(node)) return false; // comments, doctype, CDATA
      const name = node.name!;
      const a = node.attribs ?? {};
      const stats: Stats = { chars: 0, linkChars: 0, links: 0, holds: 0, removed: alwaysRemoved(node) };
      node.stats = stats;
      open.push(stats);
      if (stats.removed) removedDepth++;
      if (name === 'svg' || name === 'math') foreignDepth++;
      // links come from the whole page, menus and hidden parts included: they lead the crawler on
      if (name === 'a') {
        linkDepth++;
        if (a.href !== undefined) {
          stats.links = 1;
          if (!(a.rel ?? '').toLowerCase().split(/\s+/).includes('nofollow')) survey.hrefs.push(a.href);
        }
      } else if (name === 'base' && a.href !== undefined) survey.baseHref ??= a.href;
      else if (name === 'title' && foreignDepth === 0 && survey.title === undefined) title ??= { el: node, parts: [] };
      if (removedDepth === 0) {
        if (name === 'h1' && survey.h1 === undefined) h1 ??= { el: node, parts: [] };
        else if (name === 'main') survey.main ??= node;
        else if (name === 'article') survey.article ??= node;
        else if (name === 'body') survey.body ??= node;
        if (a.role?.toLowerCase() === 'main') survey.roleMain ??= node;
      }
      return true;
    },
    (node) => {
      if (node.type === 'root') return;
      const name = node.name!;
      const stats = open.pop()!;
      if (stats.removed) removedDepth--;
      if (name === 'svg' || name === 'math') foreignDepth--;
      if (name === 'a') linkDepth--;
      if (title?.el === node) {
        survey.title = title.parts.join('');
        title = undefined;
      }
      if (h1?.el === node) {
        survey.h1 = h1.parts.join('');
        h1 = undefined;
      }
      const parent = open[open.length - 1];
      if (!parent || stats.removed) return;
      parent.chars += stats.chars;
      parent.linkChars += stats.linkChars;
      parent.links += stats.links;
      parent.holds |= stats.holds | holdsFlag(name);
    },
  );
  return survey;
}

function holdsFlag(name: string): number {
  if (name === 'h1') return HOLDS_H1 | HOLDS_HEADING;
  if (HEADING_LEVEL[name]) return HOLDS_HEADING;
  if (name === 'table') return HOLDS_TABLE | HOLDS_BLOCK;
  return BLOCK.has(name) ? HOLDS_BLOCK : 0;
}

function nonSpaceLength(text: string): number {
  return text.replace(/\s+/g, '').length;
}

function resolveLinks(hrefs: string[], baseHref: string | undefined, url: string): string[] {
  const pageUrl = absoluteUrl(url, undefined);
  if (!pageUrl) return [];
  const base = (baseHref !== undefined && absoluteUrl(baseHref, pageUrl)) || pageUrl;
  const links = new Set<string>();
  for (const href of new Set(hrefs)) {
    const link = absoluteUrl(href, base);
    if (link) links.add(link);
  }
  return [...links];
}

/** `href` resolved against `base`, without its fragment; undefined unless it is http(s) */
function absoluteUrl(href: string, base: string | undefined): string | undefined {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    return u.toString();
  } catch {
    return undefined;
  }
}

/**
 * White space runs to one space. Written to match only what must change (runs of two or more, or a
 * single line break, tab or no-break space): V8's global replace turns slow past a few MB when
 * every single space between words is a match.
 */

function classWords(value: string | undefined): string[] {
  return value
    ? value
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => BOILERPLATE_WORDS.has(w))
    : [];
}

// what an entered element does when it is left (one per element, a stack parallel to the walk)
enum Frame {
  Inline,
  Boundary,
  Heading,
  ListRoot,
  NestedList,
  Item,
  Pre,
  Table,
  Row,
  Cell,
  Caption,
}

type Mode = 'block' | 'list' | 'heading' | 'table';

interface TableState {
  rows: string[][];
  row: string[] | undefined;
  /** next column of the open row */
  col: number;
  /** rows still covered by a rowspan, per column */
  carry: number[];
  carrying: number;
  cell: string[] | undefined;
  colspan: number;
  rowspan: number;
  caption: string[] | undefined;
}

/**
 * The second walk. Text is gathered in `pieces` (the line being built) and white space collapsed
 * once per line, so a sentence wrapped in the page source stays one line. A block element ends
 * the block (or, inside a list, the line; inside a table cell or heading, it is a space). A list,
 * a data table and a heading each gather into one block of their own.
 */
class BlockBuilder {
  readonly blocks: HtmlBlock[] = [];
  private mode: Mode = 'block';
  private readonly frames: Frame[] = [];
  private lines: string[] = [];
  private pieces: string[] = [];
  /** put before the next line: a list marker or a list item's continuation indent */
  private prefix = '';
  private readonly lists: Array<{ ordered: boolean; n: number; indent: string }> = [];
  /** continuation indents of the open list items */
  private readonly items: string[] = [];
  private readonly levels: Array<string | undefined> = [];
  private path: string[] = [];
  private headingLevel = 0;
  private preDepth = 0;
  private pre: string[] = [];
  private table: TableState | undefined;
  /** open article/aside/main/nav/section elements */
  private sections = 0;

  constructor(private readonly boilerplate: boolean) {}

  readonly enter = (node: DomNode): boolean => {
    if (node.type === 'text') {
      this.text(node.data ?? '');
      return false;
    }
    if (node.type === 'root') {
      this.frames.push(Frame.Inline);
      return true;
    }
    if (!isElement(node) || this.dropped(node)) return false;
    const name = node.name!;
    if (SECTIONING.has(name)) this.sections++;
    this.frames.push(this.open(node, name));
    return true;
  };

  readonly exit = (node: DomNode): void => {
    const frame = this.frames.pop()!;
    if (node.type === 'root') return;
    if (SECTIONING.has(node.name!)) this.sections--;
    this.close(frame);
  };

  private dropped(el: DomNode): boolean {
    const stats = el.stats!;
    if (stats.removed) return true;
    const name = el.name!;
    if (!this.boilerplate || NEVER_DROPPED.has(name)) return false;
    if (name === 'nav' || name === 'aside') return true;
    if ((name === 'header' || name === 'footer') && this.sections === 0) return true;
    const a = el.attribs ?? {};
    if (
      a.role
        ?.toLowerCase()
        .split(/\s+/)
        .some((r) => BOILERPLATE_ROLES.has(r))
    )
      return true;
    // an element holding an h1 is content (or its title area), however it is named
    if (stats.holds & HOLDS_H1) return false;
    if (a.class || a.id) {
      const words = [...classWords(a.class), ...classWords(a.id)];
      if (words.length && !(stats.holds & HOLDS_HEADING && words.every((w) => TITLE_AREA_WORDS.has(w)))) return true;
    }
    return (
      LINK_LIST_TAGS.has(name) &&
      stats.links >= LINK_LIST_MIN_LINKS &&
      stats.linkChars >= LINK_LIST_MIN_SHARE * stats.chars &&
      stats.chars - stats.linkChars < LINK_LIST_MAX_OTHER_CHARS
    );
  }

  private open(el: DomNode, name: string): Frame {
    if (name === 'br') {
      this.lineBreak();
      return Frame.Inline;
    }
    if (name === 'pre') {
      if (this.preDepth === 0) {
        this.boundary();
        this.pre = [];
      }
      this.preDepth++;
      return Frame.Pre;
    }
    if (this.preDepth === 0) {
      if (this.mode === 'block') {
        const level = HEADING_LEVEL[name];
        if (level) {
          this.endBlock();
          this.mode = 'heading';
          this.headingLevel = level;
          return Frame.Heading;
        }
        if (name === 'ul' || name === 'ol') {
          this.endBlock();
          this.mode = 'list';
          this.lists.push(newList(el, ''));
          return Frame.ListRoot;
        }
        if (name === 'table' && this.isDataTable(el)) {
          this.endBlock();
          this.mode = 'table';
          this.table = {
            rows: [],
            row: undefined,
            col: 0,
            carry: [],
            carrying: 0,
            cell: undefined,
            colspan: 1,
            rowspan: 1,
            caption: undefined,
          };
          return Frame.Table;
        }
      } else if (this.mode === 'list') {
        if (name === 'ul' || name === 'ol') {
          this.endLine();
          this.lists.push(newList(el, '  '.repeat(this.lists.length)));
          return Frame.NestedList;
        }
        if (name === 'li') {
          this.endLine();
          const list = this.lists[this.lists.length - 1]!;
          this.prefix = list.indent + (list.ordered ? `${list.n++}. ` : '- ');
          this.items.push(`${list.indent}  `);
          return Frame.Item;
        }
      } else if (this.mode === 'table') {
        if (name === 'tr') {
          this.startRow();
          return Frame.Row;
        }
        if (name === 'td' || name === 'th') {
          this.startCell(el);
          return Frame.Cell;
        }
        if (name === 'caption') {
          this.table!.caption ??= [];
          return Frame.Caption;
        }
      }
    }
    if (BLOCK.has(name)) {
      this.boundary();
      return Frame.Boundary;
    }
    return Frame.Inline;
  }

  private close(frame: Frame): void {
    switch (frame) {
      case Frame.Inline:
        return;
      case Frame.Boundary:
        this.boundary();
        return;
      case Frame.Heading:
        this.endHeading();
        return;
      case Frame.ListRoot:
        this.endLine();
        this.endBlock();
        this.lists.length = 0;
        this.items.length = 0;
        this.prefix = '';
        this.mode = 'block';
        return;
      case Frame.NestedList:
        this.endLine();
        this.lists.pop();
        this.prefix = this.items[this.items.length - 1] ?? '';
        return;
      case Frame.Item:
        this.endLine();
        this.items.pop();
        this.prefix = this.items[this.items.length - 1] ?? '';
        return;
      case Frame.Pre:
        if (--this.preDepth === 0) this.endPre();
        return;
      case Frame.Table:
        this.endTable();
        this.mode = 'block';
        return;
      case Frame.Row:
        this.endRow();
        return;
      case Frame.Cell:
        this.endCell();
        return;
      case Frame.Caption:
        this.table!.caption!.push(' ');
        return;
    }
  }

  private text(text: string): void {
    if (this.preDepth) this.pre.push(text);
    else if (this.mode === 'table') {
      const t = this.table!;
      // text outside the cells (white space between rows, or stray text a browser shows above the table) goes with the caption
      (t.cell ?? (t.caption ??= [])).push(text);
    } else this.pieces.push(text);
  }

  /** where a block element starts or ends */
  private boundary(): void {
    if (this.preDepth) {
      const last = this.pre[this.pre.length - 1];
      if (last !== undefined && !last.endsWith('\n')) this.pre.push('\n');
    } else if (this.mode === 'block') this.endBlock();
    else if (this.mode === 'list') this.endLine();
    else this.text(' ');
  }

  private lineBreak(): void {
    if (this.preDepth) this.pre.push('\n');
    else if (this.mode === 'block') {
      // <br><br> is how paragraphs are made on pages without <p>
      if (!this.endLine()) this.endBlock();
    } else if (this.mode === 'list') this.endLine();
    else this.text(' ');
  }

  /** ends the line being built; false when it had no text */
  private endLine(): boolean {
    if (!this.pieces.length) return false;
    const line = collapse(this.pieces.join(''));
    this.pieces = [];
    if (!line) return false;
    this.lines.push(this.prefix + line);
    this.prefix = this.items[this.items.length - 1] ?? '';
    return true;
  }

  endBlock(): void {
    this.endLine();
    if (!this.lines.length) return;
    this.push(this.lines.join('\n'));
    this.lines = [];
  }

  private push(text: string, heading?: boolean): void {
    this.blocks.push(heading ? { text, headings: [...this.path], heading } : { text, headings: [...this.path] });
  }

  private endHeading(): void {
    this.mode = 'block';
    const text = collapse(this.pieces.join(''));
    this.pieces = [];
    if (!text) return;
    // a heading of level n replaces the path from level n down; skipped levels simply stay empty
    const level = this.headingLevel;
    this.levels.length = level - 1;
    this.levels[level - 1] = text;
    this.path = this.levels.filter((h): h is string => h !== undefined);
    this.push(text, true);
  }

  private endPre(): void {
    const raw = this.pre.join('');
    this.pre = [];
    if (this.mode === 'block') {
      // verbatim; only blank lines before it and white space after it go
      const text = raw.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
      if (text) this.push(text);
    } else if (this.mode === 'list') {
      const text = raw.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
      if (!text) return;
      for (const line of text.split('\n')) {
        this.lines.push(line.trim() ? this.prefix + line.trimEnd() : '');
        this.prefix = this.items[this.items.length - 1] ?? '';
      }
    } else this.text(` ${raw} `);
  }

  /**
   * A table is data (a Markdown table) unless it is page layout: a single column or cell, or a cell
   * holding a table, a heading or a page's worth of block content. A cell of one paragraph is
   * data: mammoth wraps every DOCX cell's text in <p>.
   */
  private isDataTable(table: DomNode): boolean {
    let widest = 0;
    for (const row of tableRows(table)) {
      widest = Math.max(widest, row.length);
      for (const cell of row) {
        const s = cell.stats;
        if (s && (s.holds & (HOLDS_TABLE | HOLDS_HEADING) || (s.holds & HOLDS_BLOCK && s.chars > LAYOUT_CELL_CHARS)))
          return false;
      }
    }
    return widest >= 2;
  }

  private startRow(): void {
    const t = this.table!;
    if (t.row) this.endRow();
    t.row = [];
    t.col = 0;
  }

  private startCell(el: DomNode): void {
    const t = this.table!;
    if (t.cell) this.endCell();
    if (!t.row) this.startRow(); // a cell outside any <tr>
    // columns still covered by a rowspan from above get an empty cell, so later cells keep their column
    while (t.carrying && (t.carry[t.col] ?? 0) > 0) this.carryCell();
    t.cell = [];
    t.colspan = span(el.attribs?.colspan, MAX_COLSPAN);
    t.rowspan = span(el.attribs?.rowspan, MAX_ROWSPAN);
  }

  private carryCell(): void {
    const t = this.table!;
    t.row!.push('');
    if (--t.carry[t.col]! === 0) t.carrying--;
    t.col++;
  }

  private endCell(): void {
    const t = this.table!;
    if (!t.cell) return;
    const text = collapse(t.cell.join('')).replace(/\|/g, '\\|');
    t.cell = undefined;
    t.row!.push(text);
    for (let i = 1; i < t.colspan; i++) t.row!.push('');
    if (t.rowspan > 1) {
      for (let c = t.col; c < t.col + t.colspan; c++) {
        if (!t.carry[c]) t.carrying++;
        t.carry[c] = t.rowspan - 1;
      }
    }
    t.col += t.colspan;
  }

  private endRow(): void {
    const t = this.table!;
    this.endCell();
    if (!t.row) return;
    // rowspans from above reaching past this row's last cell
    if (t.carrying) {
      const last = t.carry.findLastIndex((n) => n > 0);
      while (t.col <= last) {
        if ((t.carry[t.col] ?? 0) > 0) this.carryCell();
        else {
          t.row.push('');
          t.col++;
        }
      }
    }
    if (t.row.length) t.rows.push(t.row);
    t.row = undefined;
  }

  private endTable(): void {
    const t = this.table!;
    this.endRow();
    this.table = undefined;
    const caption = collapse((t.caption ?? []).join(''));
    if (caption) this.push(caption);
    const rows = t.rows;
    if (!rows.some((row) => row.some(Boolean))) return;
    const width = Math.max(...rows.map((r) => r.length));
    const cells = rows.reduce((n, r) => n + r.length, 0);
    // rows are padded to the widest, unless one freak row would multiply the table's size
    const pad = width * rows.length <= 8 * cells + 1000;
    const line = (row: string[]) => {
      const padded = pad && row.length < width ? [...row, ...new Array<string>(width - row.length).fill('')] : row;
      return `| ${padded.join(' | ')} |`;
    };
    const header = rows[0]!;
    const separator = `| ${new Array<string>(pad ? width : header.length).fill('---').join(' | ')} |`;
    this.push([line(header), separator, ...rows.slice(1).map(line)].join('\n'));
  }
}

function newList(el: DomNode, indent: string) {
  const start = Number.parseInt(el.attribs?.start ?? '', 10);
  return { ordered: el.name === 'ol', n: Number.isFinite(start) ? start : 1, indent };
}

function span(value: string | undefined, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, max) : 1;
}

/** The cells of a table's own rows (tr directly in the table or in thead/tbody/tfoot); not nested tables'. */
function tableRows(table: DomNode): DomNode[][] {
  const rows: DomNode[][] = [];
  const cellsOf = (tr: DomNode) => (tr.children ?? []).filter((c) => c.name === 'td' || c.name === 'th');
  for (const child of table.children ?? []) {
    if (child.name === 'tr') rows.push(cellsOf(child));
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
      for (const tr of child.children ?? []) if (tr.name === 'tr') rows.push(cellsOf(tr));
    }
  }
  return rows;
}
