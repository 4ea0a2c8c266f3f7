/**
 * CSV (RFC 4180) with spreadsheet formula injection neutralised: a cell starting with = + - @ (or
 * a tab/CR that some spreadsheets skip before them) gets a leading apostrophe, so a visitor who
 * types `=HYPERLINK(...)` as their name cannot make the owner's spreadsheet run it.
 */
export function toCsv(header: string[], rows: Array<Array<string | null | undefined>>): string {
  const lines = [header, ...rows].map((row) => row.map((cell) => csvCell(cell ?? '')).join(','));
  return '\uFEFF' + lines.join('\r\n') + '\r\n'; // BOM: Excel then reads it as UTF-8
}

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}
