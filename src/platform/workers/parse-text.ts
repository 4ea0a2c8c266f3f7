import { open } from 'node:fs/promises';
import { assertTextWithin, EMPTY_MESSAGE, MB, type ParseLimits, Refusal } from './parse-common.js';
import { oneLine, TextBuilder, writeRecords } from './table-records.js';
import { NOT_TEXT_MESSAGE, NOT_UTF8_MESSAGE, type NormalisedText } from './text-file.js';
import type { ParseResult } from './types.js';

// ---- CSV and TXT ----
export function decodeText(buf: Buffer): string {
  if (buf.includes(0)) throw new Refusal(NOT_TEXT_MESSAGE);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    throw new Refusal(NOT_UTF8_MESSAGE);
  }
  return text.replace(/\r\n?/g, '\n');
}

export async function parseTxt(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  const text = decodeText(buf);
  assertTextWithin(text.length, limits);
  return { text, units: 1 };
}

export async function parseCsv(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  const text = decodeText(buf);
  const out = new TextBuilder(limits);
  const rows: string[][] = [];
  let chars = 0;
  for (const fields of csvRows(text, detectDelimiter(text))) {
    const cleaned = fields.map(oneLine);
    chars += cleaned.reduce((n, f) => n + f.length + 1, 0);
    assertTextWithin(chars, limits);
    rows.push(cleaned);
  }
  writeRecords(out, rows);
  return { text: out.toString(), units: 1 };
}

/** The delimiter (comma, semicolon or tab) used most on the first line, outside quotes. */
function detectDelimiter(text: string): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (let i = 0; i < text.length && i < 64 * 1024; i++) {
    const ch = text[i]!;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '\n') break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ',';
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d;
  return best;
}

/**
 * RFC 4180 rows, leniently: quoted fields may hold delimiters, newlines and doubled quotes; a
 * quote inside an unquoted field is kept as a character; an unterminated quote runs to the end.
 * Input newlines are already \n.
 */
function* csvRows(text: string, delimiter = ','): Generator<string[]> {
  let fields: string[] = [];
  let field = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (ch === '"' && field === '') {
      // quoted field
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          field += text.slice(i);
          i = n;
          break;
        }
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      // anything between the closing quote and the next delimiter is kept as text
      while (i < n && text[i] !== delimiter && text[i] !== '\n') field += text[i++];
      continue;
    }
    if (ch === delimiter) {
      fields.push(field);
      field = '';
    } else if (ch === '\n') {
      fields.push(field);
      yield fields;
      fields = [];
      field = '';
    } else {
      field += ch;
    }
    i++;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    yield fields;
  }
}

// ---- A .txt file read without parsing (parseText in worker-tasks.ts) ----

export function textRefusal(
  refusal: Exclude<NormalisedText, { utf8: Uint8Array }>['refusal'],
  limits: ParseLimits,
): string {
  switch (refusal) {
    case 'too_large':
      return `The file is larger than ${Math.round(limits.maxInputBytes / MB)} MB`;
    case 'not_text':
      return NOT_TEXT_MESSAGE;
    case 'not_utf8':
      return NOT_UTF8_MESSAGE;
    case 'too_long':
      return `The document's text is longer than ${Math.round(limits.maxTextChars / MB)} MB`;
    case 'empty':
      return EMPTY_MESSAGE;
  }
}

export const EMPTY = Symbol('empty');
const TEXT_BLOCK_BYTES = 64 * 1024;

/**
 * Whether a .txt file is its own text, read a block at a time: valid UTF-8, no NUL (binary), no
 * CR (to normalise), within the caps. EMPTY when it is only ASCII white space; undefined when the
 * full parse must decide (it gives the refusal, or e.g. tells whether leading non-ASCII characters
 * are Unicode spaces).
 */
export async function plainTextFile(
  path: string,
  limits: ParseLimits,
): Promise<{ from: number; bytes: number } | typeof EMPTY | undefined> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limits.maxInputBytes || size > limits.maxTextChars) return undefined;
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const block = Buffer.allocUnsafeSlow(TEXT_BLOCK_BYTES);
    let from = 0;
    let firstText: number | undefined; // the first byte that is not ASCII white space
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(block, 0, block.length, position);
      if (bytesRead === 0) break;
      const bytes = block.subarray(0, bytesRead);
      if (position === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) from = 3;
      if (bytes.includes(0) || bytes.includes(13)) return undefined;
      try {
        decoder.decode(bytes, { stream: true }); // only to validate; the text is read later
      } catch {
        return undefined;
      }
      for (let i = position === 0 ? from : 0; firstText === undefined && i < bytes.length; i++) {
        const b = bytes[i]!;
        if (b !== 0x20 && (b < 0x09 || b > 0x0d)) firstText = b;
      }
      position += bytesRead;
    }
    try {
      decoder.decode(); // a character cut off at the end
    } catch {
      return undefined;
    }
    if (firstText === undefined) return EMPTY;
    return firstText < 0x80 ? { from, bytes: size - from } : undefined;
  } finally {
    await handle.close();
  }
}
