import { expect } from 'vitest';

/**
 * RFC 4180 reader for checking the CSV exports: quoted cells may hold commas, CRLF and doubled
 * quotes; every row, the last too, must end with CRLF, and no quoted cell may be left open.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(quoted, 'unterminated quoted cell').toBe(false);
  expect(cell === '' && row.length === 0, 'last row ends with CRLF').toBe(true);
  return rows;
}
