import type { ParsableType } from './types.js';

// What the document parsers (parse-*.ts, run by worker-tasks.ts) share: their limits, the
// refusals shown to the user, and what makes a document's title one a person wrote.

export interface ParseLimits {
  /** files larger than this are refused before being read */
  maxInputBytes: number;
  /** DOCX/XLSX: the most bytes the ZIP may expand to (declared and actual) */
  maxExpandedBytes: number;
  /** DOCX/XLSX: an entry of at least ratioMinBytes compressed more than maxRatio:1 is refused */
  maxRatio: number;
  ratioMinBytes: number;
  maxZipEntries: number;
  /** the most characters (UTF-16 code units) of text a document may produce */
  maxTextChars: number;
  /** XLSX: the most non-empty cells over all sheets */
  maxCells: number;
}

export const MB = 1024 * 1024;

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = {
  maxInputBytes: 256 * MB,
  maxExpandedBytes: 200 * MB,
  maxRatio: 100,
  ratioMinBytes: 10 * MB,
  maxZipEntries: 10_000,
  // above the 100 MB upload limit, so a plain-text upload the API accepts always fits
  maxTextChars: 110 * MB,
  maxCells: 2_000_000,
};

export const EMPTY_MESSAGE = 'The document contains no text';

/** A refusal whose message is shown to the user. */
export class Refusal extends Error {}

export const UNREADABLE: Record<ParsableType, string> = {
  pdf: 'The PDF could not be read',
  docx: 'The DOCX file could not be read',
  xlsx: 'The XLSX file could not be read',
  csv: 'The CSV file could not be read',
  txt: 'The text file could not be read',
};

export function assertTextWithin(chars: number, limits: ParseLimits): void {
  if (chars > limits.maxTextChars) {
    throw new Refusal(`The document's text is longer than ${Math.round(limits.maxTextChars / MB)} MB`);
  }
}

/** A document title (PDF Title, DOCX dc:title), when it is one a person wrote (not a file name). */
export function writtenTitle(title: unknown): string | undefined {
  if (typeof title !== 'string') return undefined;
  const clean = title.replace(/\s+/g, ' ').trim();
  if (
    clean.length < 3 ||
    clean.length > 200 ||
    /\.(docx?|pdf|odt|pages|indd|tex)$/i.test(clean) ||
    /^(untitled|microsoft word)/i.test(clean)
  )
    return undefined;
  return clean;
}
