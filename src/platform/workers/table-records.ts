import type { TextMark } from './types.js';
import { assertTextWithin, type ParseLimits } from './parse-common.js';

// Tables (XLSX sheets, CSV files) written out as text: a record per row, named by the header.

/**
 * A table's rows as records that carry their column names ("Product: Travel adapter | Price:
 * 4.99"), one paragraph each, so that any passage cut from a large sheet still says what each
 * value is. The first row is the header when its cells are all words (no numbers, no dates) and
 * it is not alone; without one, cells are joined by tabs as they were. A sheet starts a section
 * headed by its name, so its passages name it too.
 */
export function writeRecords(out: TextBuilder, rows: string[][], sheetName?: string): void {
  const filled = rows.filter((r) => r.some((c) => c !== ''));
  if (filled.length === 0) return;
  if (sheetName !== undefined) out.section(`Sheet: ${sheetName}`, [sheetName]);
  const header = looksLikeHeader(filled) ? filled[0]! : null;
  for (const row of header ? filled.slice(1) : filled) {
    if (header) {
      const fields = row.flatMap((value, i) =>
        value === '' ? [] : [`${header[i] || `Column ${columnName(i)}`}: ${value}`],
      );
      out.paragraph(fields.join(' | '));
    } else {
      const cells = [...row];
      while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
      out.paragraph(cells.join('\t'));
    }
  }
}

function looksLikeHeader(rows: string[][]): boolean {
  if (rows.length < 2) return false;
  const names = rows[0]!.filter((c) => c !== '');
  if (names.length < 2 || new Set(names).size !== names.length) return false;
  return names.every((c) => /\p{L}/u.test(c) && !/^[-+]?[\d.,\s%$€£]+$/u.test(c) && c.length <= 80);
}

/** A, B, … Z, AA, AB… */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

export function oneLine(s: string): string {
  return s
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/\t/g, ' ')
    .trim();
}

/** Joins paragraphs (and section headings, marked) and refuses as soon as the text passes the limit. */
export class TextBuilder {
  private readonly parts: string[] = [];
  private length = 0;
  readonly marks: TextMark[] = [];
  constructor(private readonly limits: ParseLimits) {}

  paragraph(s: string): void {
    if (this.parts.length > 0) this.add('\n\n');
    this.add(s);
  }

  /** a heading line that starts a section under `headings` */
  section(line: string, headings: string[]): void {
    if (this.parts.length > 0) this.add('\n\n');
    this.marks.push({ at: this.length, headings });
    this.add(line);
  }

  private add(s: string): void {
    this.length += s.length;
    assertTextWithin(this.length, this.limits);
    this.parts.push(s);
  }

  toString(): string {
    return this.parts.join('');
  }
}
