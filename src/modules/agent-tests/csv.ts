/**
 * Test questions imported from CSV (docs/API-NOTES.md "Test questions"): a header row naming the
 * columns `question`, `expected_phrases` (phrases separated by `|` or `;`) and `expected_source`
 * (a source's id or name), in any order; quotes as RFC 4180 has them ("" inside a quoted field).
 */

export interface CsvRow {
  /** the row's line in the file (the header is line 1) */
  line: number;
  fields: Record<string, string>;
}

export const CSV_COLUMNS = ['question', 'expected_phrases', 'expected_source'] as const;

/** Records of the text: each a list of fields and the line it starts on. */
function records(text: string): Array<{ line: number; fields: string[] }> {
  const out: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let touched = false;
  const end = () => {
    fields.push(field);
    if (touched || fields.length > 1 || field !== '') out.push({ line: start, fields });
    fields = [];
    field = '';
    touched = false;
  };
  const src = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
      touched = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      touched = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      end();
      line++;
      start = line;
    } else field += c;
  }
  if (field !== '' || fields.length > 0 || touched) end();
  return out;
}

/** The header's columns and the rows under it; throws a message for a header without `question`. */
export function parseTestsCsv(text: string): CsvRow[] {
  const [header, ...rest] = records(text);
  if (!header)
    throw new Error('the CSV is empty: its first line names the columns (question, expected_phrases, expected_source)');
  const names = header.fields.map((f) => f.trim().toLowerCase());
  if (!names.includes('question'))
    throw new Error(`the first line names no "question" column (columns: ${CSV_COLUMNS.join(', ')})`);
  return rest.map(({ line, fields }) => ({
    line,
    fields: Object.fromEntries(names.map((name, i) => [name, (fields[i] ?? '').trim()])),
  }));
}

/** A cell's phrases: split on `|` or `;`, trimmed, empty ones left out. */
export function splitPhrases(cell: string): string[] {
  return cell
    .split(/[|;]/)
    .map((p) => p.trim())
    .filter(Boolean);
}
