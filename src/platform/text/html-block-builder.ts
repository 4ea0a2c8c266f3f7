import { collapse, type HtmlBlock } from './blocks.js';
import {
  BLOCK,
  BOILERPLATE_ROLES,
  BOILERPLATE_WORDS,
  type DomNode,
  HEADING_LEVEL,
  HOLDS_H1,
  HOLDS_HEADING,
  isElement,
  LINK_LIST_MAX_OTHER_CHARS,
  LINK_LIST_MIN_LINKS,
  LINK_LIST_MIN_SHARE,
  LINK_LIST_TAGS,
  NEVER_DROPPED,
  SECTIONING,
  TITLE_AREA_WORDS,
} from './html-dom.js';
import { isDataTable, TableBuilder } from './html-table.js';

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

/**
 * The second walk. Text is gathered in `pieces` (the line being built) and white space collapsed
 * once per line, so a sentence wrapped in the page source stays one line. A block element ends
 * the block (or, inside a list, the line; inside a table cell or heading, it is a space). A list,
 * a data table and a heading each gather into one block of their own.
 */
export class BlockBuilder {
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
  private table: TableBuilder | undefined;
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
        if (name === 'table' && isDataTable(el)) {
          this.endBlock();
          this.mode = 'table';
          this.table = new TableBuilder();
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
          this.table!.startRow();
          return Frame.Row;
        }
        if (name === 'td' || name === 'th') {
          this.table!.startCell(el);
          return Frame.Cell;
        }
        if (name === 'caption') {
          this.table!.startCaption();
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
        this.table!.endRow();
        return;
      case Frame.Cell:
        this.table!.endCell();
        return;
      case Frame.Caption:
        this.table!.endCaption();
        return;
    }
  }

  private text(text: string): void {
    if (this.preDepth) this.pre.push(text);
    // text outside the cells goes with the caption (html-table.ts)
    else if (this.mode === 'table') this.table!.text(text);
    else this.pieces.push(text);
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
    // a permalink pilcrow left by a generator whose anchor class is not known (html-dom.ts)
    const text = collapse(this.pieces.join('')).replace(/\s*¶$/, '');
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

  private endTable(): void {
    const table = this.table!;
    this.table = undefined;
    for (const text of table.finish()) this.push(text);
  }
}

function newList(el: DomNode, indent: string) {
  const start = Number.parseInt(el.attribs?.start ?? '', 10);
  return { ordered: el.name === 'ol', n: Number.isFinite(start) ? start : 1, indent };
}
