/**
 * CSV (RFC 4180: every field holding a comma, a double quote, CR or LF is quoted, its quotes
 * doubled; lines end with CRLF) with spreadsheet formula injection neutralised (OWASP "CSV
 * Injection"): a cell a spreadsheet would read as a formula, one starting with `=`, `+`, `-`, `@`,
 * a tab or a CR, gets a leading apostrophe, so a visitor who types `=HYPERLINK(...)` as their name
 * cannot make the owner's spreadsheet run it.
 *
 * Except a phone number: `+31 20 123 4567` or `+1-555-0100` is exported as it is. A cell that is
 * `+` followed only by digits, spaces and `-` `(` `)` `.` `/`, with at least 3 digits, can at most
 * be read as arithmetic on numbers (no letters: no function, no cell reference, no link), so it
 * cannot inject anything; the apostrophe would only spoil the number for the owner.
 */
export function toCsv(header: string[], rows: Array<Array<string | null | undefined>>): string {
  const lines = [header, ...rows].map((row) => row.map((cell) => csvCell(cell ?? '')).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`; // BOM: Excel then reads it as UTF-8
}

const FORMULA_START = /^[=+\-@\t\r]/;
/** `+`, then only digits and the separators phone numbers are written with; at least 3 digits */
const PHONE = /^\+[\d ()./-]*$/;

/** Whether a spreadsheet could read the value as a formula (and it is not a phone number). */
export function readsAsFormula(value: string): boolean {
  if (!FORMULA_START.test(value)) return false;
  return !(PHONE.test(value) && (value.match(/\d/g)?.length ?? 0) >= 3);
}

export function csvCell(value: string): string {
  const safe = readsAsFormula(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}
