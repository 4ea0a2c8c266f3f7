import { collapse } from './blocks.js';
import {
  type DomNode,
  HOLDS_BLOCK,
  HOLDS_HEADING,
  HOLDS_TABLE,
  LAYOUT_CELL_CHARS,
  MAX_COLSPAN,
  MAX_ROWSPAN,
} from './html-dom.js';

/**
 * A table is data (a Markdown table) unless it is page layout: a single column or cell, or a cell
 * holding a table, a heading or a page's worth of block content. A cell of one paragraph is
 * data: mammoth wraps every DOCX cell's text in <p>.
 */
export function isDataTable(table: DomNode): boolean {
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

/**
 * A data table as the block walk (html-block-builder.ts) goes through it: its cells gathered row by
 * row, rowspans and colspans kept in their columns, then written as one Markdown table.
 */
export class TableBuilder {
  private readonly rows: string[][] = [];
  private row: string[] | undefined;
  /** next column of the open row */
  private col = 0;
  /** rows still covered by a rowspan, per column */
  private readonly carry: number[] = [];
  private carrying = 0;
  private cell: string[] | undefined;
  private colspan = 1;
  private rowspan = 1;
  private caption: string[] | undefined;

  text(text: string): void {
    // text outside the cells (white space between rows, or stray text a browser shows above the table) goes with the caption
    (this.cell ?? (this.caption ??= [])).push(text);
  }

  startCaption(): void {
    this.caption ??= [];
  }

  endCaption(): void {
    this.caption!.push(' ');
  }

  startRow(): void {
    if (this.row) this.endRow();
    this.row = [];
    this.col = 0;
  }

  startCell(el: DomNode): void {
    if (this.cell) this.endCell();
    if (!this.row) this.startRow(); // a cell outside any <tr>
    // columns still covered by a rowspan from above get an empty cell, so later cells keep their column
    while (this.carrying && (this.carry[this.col] ?? 0) > 0) this.carryCell();
    this.cell = [];
    this.colspan = span(el.attribs?.colspan, MAX_COLSPAN);
    this.rowspan = span(el.attribs?.rowspan, MAX_ROWSPAN);
  }

  private carryCell(): void {
    this.row!.push('');
    if (--this.carry[this.col]! === 0) this.carrying--;
    this.col++;
  }

  endCell(): void {
    if (!this.cell) return;
    const text = collapse(this.cell.join('')).replace(/\|/g, '\\|');
    this.cell = undefined;
    this.row!.push(text);
    for (let i = 1; i < this.colspan; i++) this.row!.push('');
    if (this.rowspan > 1) {
      for (let c = this.col; c < this.col + this.colspan; c++) {
        if (!this.carry[c]) this.carrying++;
        this.carry[c] = this.rowspan - 1;
      }
    }
    this.col += this.colspan;
  }

  endRow(): void {
    this.endCell();
    if (!this.row) return;
    // rowspans from above reaching past this row's last cell
    if (this.carrying) {
      const last = this.carry.findLastIndex((n) => n > 0);
      while (this.col <= last) {
        if ((this.carry[this.col] ?? 0) > 0) this.carryCell();
        else {
          this.row.push('');
          this.col++;
        }
      }
    }
    if (this.row.length) this.rows.push(this.row);
    this.row = undefined;
  }

  /** Ends the table: the blocks it makes, its caption and its Markdown (none when it holds no text). */
  finish(): string[] {
    this.endRow();
    const blocks: string[] = [];
    const caption = collapse((this.caption ?? []).join(''));
    if (caption) blocks.push(caption);
    const rows = this.rows;
    if (!rows.some((row) => row.some(Boolean))) return blocks;
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
    blocks.push([line(header), separator, ...rows.slice(1).map(line)].join('\n'));
    return blocks;
  }
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
