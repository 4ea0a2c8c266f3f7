/**
 * CSV (RFC 4180: every field holding a comma, a double quote, CR or LF is quoted, its quotes
 * doubled; lines end with CRLF) with spreadsheet formula injection neutralised (OWASP "CSV
 * Injection"): every cell starting with `=`, `+`, `-`, `@`, a tab or a CR gets a leading
 * apostrophe, so a visitor who types `=HYPERLINK(...)` as their name cannot make the owner's
 * spreadsheet run it.
 *
 * Phone numbers too (issue 31): `+1-555-0100` unescaped is arithmetic to a spreadsheet (Excel
 * shows -654, and `+31 20 123 4567` becomes #NULL!), so it was a formula cell all the same. With
 * the apostrophe Excel shows the number as typed (the apostrophe only marks the cell as text).
 */
export function toCsv(header: string[], rows: Array<Array<string | null | undefined>>): string {
  const lines = [header, ...rows].map((row) => row.map((cell) => csvCell(cell ?? '')).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`; // BOM: Excel then reads it as UTF-8
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Whether a spreadsheet could read the value as a formula. */
export function readsAsFormula(value: string): boolean {
  return FORMULA_START.test(value);
}

export function csvCell(value: string): string {
  const safe = readsAsFormula(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}
