import { readlinkSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { nativeAddon } from '../assets.js';
import { memoryBudgetExceeded, setTaskMemoryBudget } from './memory-guard.js';
import { NOT_TEXT_MESSAGE, NOT_UTF8_MESSAGE, type NormalisedText, normalisedTextFile } from './text-file.js';
import {
  type HtmlDocument,
  OUT_OF_MEMORY_MESSAGE,
  type ParsableType,
  type ParseResult,
  type TextMark,
} from './types.js';
import { type PdfItem, pdfPagesToText } from '../text/pdf-text.js';
import {
  assertZipExpansionWithin,
  OLE_MAGIC,
  readCentralDirectory,
  readSmallEntry,
  type ZipEntry,
  ZipRefusal,
} from './zip.js';

/**
 * The one file every worker thread runs (piscina; each export is a task, each pool names the task
 * it runs). One file, because the executable carries one worker bundle (scripts/build-sea.mjs):
 * - documents and web pages to text (parse, parseText, extractHtml; pool.ts): these never touch
 *   the database;
 * - database work worth another thread, each in its own pool, at the end of this file: WAL
 *   checkpoints (db/checkpointer.ts), quick_check (db/integrity.ts) and read-only queries
 *   (knowledge/keyword-searcher.ts).
 * Refusals come back as `{ error }` with a user-facing message instead of a thrown error, because
 * errors lose their class crossing the thread boundary; the pool turns them into ParseError. Only
 * infrastructure failures (the file is gone) are thrown. The parsing libraries are imported on
 * first use, so a worker that only ever sees text files never loads pdf.js.
 */

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

const MB = 1024 * 1024;

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

/**
 * Where the worker writes its thread id as it starts a task, so the pool's memory watch knows
 * which task a thread's memory belongs to (pool.ts): `cells` is shared with the pool.
 */
export interface TaskWatch {
  cells: Int32Array;
  slot: number;
  /** the task's memory budget, heap and buffers (INGEST_MEMORY_MB), also checked at each large allocation (memory-guard.ts) */
  budgetBytes?: number;
}

export interface ParseTask {
  path: string;
  type: ParsableType;
  limits?: Partial<ParseLimits>;
  watch?: TaskWatch;
}

function announceThread(watch: TaskWatch | undefined): void {
  if (watch) Atomics.store(watch.cells, watch.slot, threadId);
  setTaskMemoryBudget(watch?.budgetBytes ?? 0);
}

export type WorkerReply = ParseResult | { error: string };

/** The reply of `parseText`: the text as UTF-8 bytes moved to the caller, or where it is in the file. */
export type TextReply =
  | { utf8: Uint8Array; units: number; title?: string; marks?: TextMark[] }
  | { fileFrom: number; bytes: number; units: number }
  | { error: string };

const EMPTY_MESSAGE = 'The document contains no text';

/** A refusal whose message is shown to the user. */
class Refusal extends Error {}

const UNREADABLE: Record<ParsableType, string> = {
  pdf: 'The PDF could not be read',
  docx: 'The DOCX file could not be read',
  xlsx: 'The XLSX file could not be read',
  csv: 'The CSV file could not be read',
  txt: 'The text file could not be read',
};

/** how much nicer than the process a thread doing background work (parsing, checkpoints) is; 19 is the lowest priority */
const BACKGROUND_NICENESS = 10;
let backgroundPriority = false;

/**
 * Parsing and WAL checkpoints are background work: on a small box (2 cores) their thread would
 * otherwise take the CPU from the event loop answering visitors. The thread running them lowers
 * its own priority once (Linux: setpriority on the thread's id; each pool has its own threads).
 * Read queries keep the normal priority: a visitor waits on a chat turn's keyword search.
 * Measured with sequential chats while a 600-page PDF was parsed: p90 25-30 ms instead of 33,
 * 10-30% more turns served meanwhile, the PDF done in the same time (~12 s).
 */
function runInBackground(): void {
  if (backgroundPriority) return;
  backgroundPriority = true;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0)
      setPriority(threadId, Math.min(19, getPriority(threadId) + BACKGROUND_NICENESS));
  } catch {
    // not Linux, or not permitted: the thread keeps the normal priority
  }
}

export default async function parse(task: ParseTask): Promise<WorkerReply> {
  announceThread(task.watch);
  runInBackground();
  const input = await readInput(task);
  return 'error' in input ? input : parseBuffer(input.buf, task.type, input.limits);
}

/**
 * The same document as `parse`, for callers that read its text in slices: a 100 MB text crosses
 * the thread boundary as neither a string (copied, so held on both sides) nor anything this worker
 * keeps (an idle worker does not collect its garbage).
 * - A .txt file that already is its text (valid UTF-8, no NUL, no CR to normalise) is checked a
 *   block at a time and never read whole: `{ fileFrom }` says where its text starts (after a BOM).
 * - Anything else is parsed as `parse` does and its text comes back as UTF-8 bytes whose memory
 *   moves to the caller.
 */
export async function parseText(task: ParseTask): Promise<TextReply> {
  announceThread(task.watch);
  runInBackground();
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...task.limits };
  if (task.type === 'txt') {
    const plain = await plainTextFile(task.path, limits);
    if (plain === EMPTY) return { error: EMPTY_MESSAGE };
    if (plain) return { fileFrom: plain.from, bytes: plain.bytes, units: 1 };
    // any other text: normalised a block at a time, never decoded whole (text-file.ts)
    const text = await normalisedTextFile(task.path, limits);
    if ('refusal' in text) return { error: textRefusal(text.refusal, limits) };
    const value = { utf8: text.utf8, units: 1, marks: [] };
    return move({ [transferableSymbol]: text.utf8.buffer, [valueSymbol]: value }) as unknown as TextReply;
  }
  const input = await readInput(task);
  if ('error' in input) return input;
  const reply = await parseBuffer(input.buf, task.type, input.limits);
  if ('error' in reply) return reply;
  // large Buffers own their memory whole; a small one may share Node's pool, so it is copied
  const encoded = Buffer.from(reply.text, 'utf8');
  const utf8 =
    encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength ? encoded : new Uint8Array(encoded);
  // piscina replies with the value and transfers the buffer (the view on it goes along)
  const value = { utf8, units: reply.units, marks: reply.marks ?? [], ...(reply.title ? { title: reply.title } : {}) };
  return move({ [transferableSymbol]: utf8.buffer, [valueSymbol]: value }) as unknown as TextReply;
}

function textRefusal(refusal: Exclude<NormalisedText, { utf8: Uint8Array }>['refusal'], limits: ParseLimits): string {
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

const EMPTY = Symbol('empty');
const TEXT_BLOCK_BYTES = 64 * 1024;

/**
 * Whether a .txt file is its own text, read a block at a time: valid UTF-8, no NUL (binary), no
 * CR (to normalise), within the caps. EMPTY when it is only ASCII white space; undefined when the
 * full parse must decide (it gives the refusal, or e.g. tells whether leading non-ASCII characters
 * are Unicode spaces).
 */
async function plainTextFile(
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

async function readInput({
  path,
  type,
  limits: overrides,
}: ParseTask): Promise<{ buf: Buffer; limits: ParseLimits } | { error: string }> {
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...overrides };
  if (!Object.hasOwn(PARSERS, type)) return { error: 'This file type is not supported' };
  // fs errors (missing file, permissions) are the caller's problem, not the document's: thrown.
  const { size } = await stat(path);
  if (size > limits.maxInputBytes)
    return { error: `The file is larger than ${Math.round(limits.maxInputBytes / MB)} MB` };
  return { buf: await readFile(path), limits };
}

async function parseBuffer(buf: Buffer, type: ParsableType, limits: ParseLimits): Promise<WorkerReply> {
  const parser = PARSERS[type];
  try {
    const result = await parser(buf, limits);
    // pdf.js reads on past errors in a page (stopAtErrors is off): a page it was refused memory for is not a page to leave out
    if (memoryBudgetExceeded()) return { error: OUT_OF_MEMORY_MESSAGE };
    if (result.text.trim() === '') return { error: EMPTY_MESSAGE };
    assertTextWithin(result.text.length, limits);
    return result;
  } catch (err) {
    // a library may have wrapped or swallowed the refused allocation: the refusal is what happened
    if (memoryBudgetExceeded()) return { error: OUT_OF_MEMORY_MESSAGE };
    if (err instanceof Refusal || err instanceof ZipRefusal) return { error: err.message };
    return { error: UNREADABLE[type] };
  }
}

type Parser = (buf: Buffer, limits: ParseLimits) => Promise<ParseResult>;

const PARSERS: Record<ParsableType, Parser> = {
  pdf: parsePdf,
  docx: parseDocx,
  xlsx: parseXlsx,
  csv: parseCsv,
  txt: parseTxt,
};

function assertTextWithin(chars: number, limits: ParseLimits): void {
  if (chars > limits.maxTextChars) {
    throw new Refusal(`The document's text is longer than ${Math.round(limits.maxTextChars / MB)} MB`);
  }
}

// ---- PDF (unpdf: pdf.js without its own worker) ----

async function parsePdf(buf: Buffer): Promise<ParseResult> {
  const { getDocumentProxy } = await import('unpdf');
  // pdf.js wants a plain Uint8Array, not a Buffer.
  const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(data, { verbosity: 0 });
  } catch (err) {
    if (err instanceof Error && err.name === 'PasswordException') throw new Refusal('The PDF is password-protected');
    throw new Refusal(UNREADABLE.pdf);
  }
  try {
    const pages: PdfItem[][] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const items: PdfItem[] = [];
      for (const item of content.items) {
        if (!('str' in item)) continue;
        const [, , , scaleY, x, y] = item.transform as number[];
        items.push({
          str: item.str,
          x: x!,
          y: y!,
          width: item.width,
          height: item.height || Math.abs(scaleY!),
          hasEOL: item.hasEOL,
        });
      }
      pages.push(items);
      page.cleanup();
    }
    const { text, marks } = pdfPagesToText(pages);
    // a few characters per page at most: page numbers, a scanner's stamp; the pages are pictures
    if (text.replace(/\s+/g, '').length < Math.max(20, 5 * pdf.numPages)) throw new Refusal(SCANNED_PDF);
    const title = await pdfTitle(pdf);
    return { text, units: pdf.numPages, marks, ...(title ? { title } : {}) };
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw new Refusal(UNREADABLE.pdf);
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

const SCANNED_PDF =
  'The PDF has no text to read: its pages look like scanned images. Run it through text recognition (OCR), or export it again as a PDF with text, and upload it again';

/** The title the PDF names in its metadata, when it is one a person wrote (not a file name). */
async function pdfTitle(pdf: { getMetadata(): Promise<{ info: unknown }> }): Promise<string | undefined> {
  const { info } = await pdf.getMetadata().catch(() => ({ info: {} }));
  return writtenTitle((info as { Title?: unknown }).Title);
}

/** A document title (PDF Title, DOCX dc:title), when it is one a person wrote (not a file name). */
function writtenTitle(title: unknown): string | undefined {
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

// ---- DOCX and XLSX (ZIP containers: checked for bombs first) ----

async function assertSafeZip(buf: Buffer, kind: 'docx' | 'xlsx', limits: ParseLimits): Promise<ZipEntry[]> {
  if (buf.subarray(0, OLE_MAGIC.length).equals(OLE_MAGIC)) {
    throw new Refusal(
      `The file is password-protected or in the old ${kind === 'docx' ? '.doc' : '.xls'} format; save it as .${kind} without a password`,
    );
  }
  const corrupt = UNREADABLE[kind];
  const entries = readCentralDirectory(buf, corrupt, limits.maxZipEntries);
  const folder = kind === 'docx' ? 'word/' : 'xl/';
  if (!entries.some((e) => e.name.startsWith(folder)))
    throw new Refusal(`The file is not a ${kind.toUpperCase()} document`);
  await assertZipExpansionWithin(
    buf,
    entries,
    { maxExpandedBytes: limits.maxExpandedBytes, maxRatio: limits.maxRatio, ratioMinBytes: limits.ratioMinBytes },
    corrupt,
    'The file is password-protected',
  );
  return entries;
}

/**
 * DOCX through mammoth's HTML (headings, lists and tables kept, images left out), read by the same
 * walk as web pages: headings become sections, tables Markdown tables with every cell in place.
 */
async function parseDocx(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  const entries = await assertSafeZip(buf, 'docx', limits);
  const { default: mammoth } = await import('mammoth');
  const { value: html } = await mammoth.convertToHtml(
    { buffer: buf },
    { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) },
  );
  const { htmlBlocks, joinBlocks } = await import('../text/html-text.js');
  const { text, marks } = joinBlocks(htmlBlocks(html, { boilerplate: false }).blocks);
  const title = docxTitle(buf, entries);
  return { text, units: 1, marks, ...(title ? { title } : {}) };
}

/** The DOCX's title (File > Properties), `dc:title` in docProps/core.xml: mammoth does not read it. */
function docxTitle(buf: Buffer, entries: ZipEntry[]): string | undefined {
  const xml = readSmallEntry(buf, entries, 'docProps/core.xml', 256 * 1024)?.toString('utf8');
  const raw = xml?.match(/<dc:title\b[^>]*>([^<]*)<\/dc:title>/)?.[1];
  if (raw === undefined) return undefined;
  const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  const text = raw.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return XML_ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
  return writtenTitle(text);
}

async function parseXlsx(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  await assertSafeZip(buf, 'xlsx', limits);
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  // exceljs declares its own `Buffer` (an ArrayBuffer); at run time it takes a Node Buffer.
  await workbook.xlsx.load(buf as unknown as Parameters<typeof workbook.xlsx.load>[0]);

  const out = new TextBuilder(limits);
  let cells = 0;
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const texts: string[] = [];
      for (let c = 1; c <= row.cellCount; c++) {
        const cell = row.getCell(c);
        // A merged range repeats its master's value in every cell: keep it once.
        const text = cell.isMerged && cell.master !== cell ? '' : oneLine(formattedCellText(cell.value, cell.numFmt));
        if (text !== '') cells++;
        texts.push(text);
      }
      if (cells > limits.maxCells)
        throw new Refusal(`The spreadsheet has more than ${limits.maxCells.toLocaleString('en')} cells`);
      rows.push(texts);
    });
    writeRecords(out, rows, sheet.name);
  }
  return { text: out.toString(), units: workbook.worksheets.length, marks: out.marks };
}

/**
 * A table's rows as records that carry their column names ("Product: Travel adapter | Price:
 * 4.99"), one paragraph each, so that any passage cut from a large sheet still says what each
 * value is. The first row is the header when its cells are all words (no numbers, no dates) and
 * it is not alone; without one, cells are joined by tabs as they were. A sheet starts a section
 * headed by its name, so its passages name it too.
 */
function writeRecords(out: TextBuilder, rows: string[][], sheetName?: string): void {
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

type CellValue = import('exceljs').CellValue;

/**
 * A number as the sheet shows it, as far as its format says so simply: a percentage (0.12 with
 * `0%` is "12%"), a fixed number of decimals (114 with `0.00` is "114.00"), a currency sign. Other
 * formats (dates are Date values already) keep the plain number.
 */
function formattedCellText(value: CellValue, numFmt: string | undefined): string {
  const number =
    typeof value === 'number'
      ? value
      : value && typeof value === 'object' && 'result' in value && typeof value.result === 'number'
        ? value.result
        : null;
  if (number === null || !numFmt || numFmt === 'General') return cellText(value);
  // the format of positive numbers, without colours, conditions and quoted text
  const section = numFmt.split(';')[0]!.replace(/\[[^\]]*\]/g, '');
  // a currency sign may be quoted ("$"#,##0.00) or escaped (\$); any other quoted text is left out
  const format = section.replace(/"([$€£¥])"|\\([$€£¥])/g, '$1$2').replace(/"[^"]*"/g, '');
  const decimals = /0\.(0+)/.exec(format)?.[1]?.length ?? 0;
  if (format.includes('%')) return `${(number * 100).toFixed(decimals)}%`;
  if (!/[0#]/.test(format)) return cellText(value);
  const currency = /[$€£¥]/.exec(format)?.[0] ?? '';
  const digits = Math.abs(number).toFixed(decimals);
  const text = format.includes(',')
    ? Number(digits).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
    : digits;
  const sign = number < 0 ? '-' : '';
  return format.indexOf(currency) > format.search(/[0#]/) && currency
    ? `${sign}${text} ${currency}`
    : `${sign}${currency}${text}`;
}

function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('hyperlink' in value) return cellText(value.text);
  if ('error' in value) return value.error;
  if ('result' in value) return cellText(value.result ?? null);
  return '';
}

/** exceljs dates are UTC: a date alone when there is no time of day. */
function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}

function oneLine(s: string): string {
  return s
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/\t/g, ' ')
    .trim();
}

// ---- CSV and TXT ----

function decodeText(buf: Buffer): string {
  if (buf.includes(0)) throw new Refusal(NOT_TEXT_MESSAGE);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    throw new Refusal(NOT_UTF8_MESSAGE);
  }
  return text.replace(/\r\n?/g, '\n');
}

async function parseTxt(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  const text = decodeText(buf);
  assertTextWithin(text.length, limits);
  return { text, units: 1 };
}

async function parseCsv(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
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

/** Joins paragraphs (and section headings, marked) and refuses as soon as the text passes the limit. */
class TextBuilder {
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

// ---- Web pages (knowledge/crawler.ts) ----
// Read here rather than on the main thread: a large or deeply nested page costs its time on
// this thread, at a lower priority, under the pool's timeout (a terminated worker ends it).

export interface HtmlTask {
  html: string;
  url: string;
  watch?: TaskWatch;
}

export type HtmlReply = HtmlDocument | { error: string };

export async function extractHtml({ html, url, watch }: HtmlTask): Promise<HtmlReply> {
  announceThread(watch);
  runInBackground();
  const { htmlBlocks } = await import('../text/html-text.js');
  const { blockKey } = await import('../text/blocks.js');
  try {
    const page = htmlBlocks(html, { url });
    // the crawl's repeated-block filter compares these keys: computed here, off the event loop
    for (const block of page.blocks) if (!block.heading) block.key = blockKey(block.text);
    return page;
  } catch {
    return { error: 'The page could not be read' };
  }
}

// ---- WAL checkpoints (db/checkpointer.ts) ----
// Not parsing, but the same worker file: a checkpoint copies committed pages from the WAL into
// the database file and fsyncs both, tens of milliseconds that would otherwise stop the main
// thread every ~4 MB written. It changes no data, so "only the main thread writes" still holds.

let connection: import('better-sqlite3').Database | undefined;

/**
 * This thread's connection to the database file, opened on its first task. Each pool using it
 * (checkpoints, read queries) has its own thread, so a thread holds one connection.
 */
async function connectionTo(
  file: string,
  setup: (db: import('better-sqlite3').Database) => void,
): Promise<import('better-sqlite3').Database> {
  if (!connection) {
    const { default: Database } = await import('better-sqlite3');
    const nativeBinding = nativeAddon('better-sqlite3');
    connection = new Database(file, {
      fileMustExist: true,
      ...(nativeBinding ? { nativeBinding: nativeBinding as string } : {}),
    });
    setup(connection);
  }
  return connection;
}

export interface CheckpointResult {
  /** 1 when a reader or writer kept it from finishing (PASSIVE never waits) */
  busy: number;
  /** frames in the WAL, and how many of them are now in the database file */
  log: number;
  checkpointed: number;
}

/** A checkpoint SQLite refused (a full disk): the code crosses the thread, which an error's class would not. */
export interface CheckpointRefusal {
  refused: { code: string; message: string };
}

export async function checkpoint({ file }: { file: string }): Promise<CheckpointResult | CheckpointRefusal> {
  runInBackground();
  const db = await connectionTo(file, (c) => c.pragma('busy_timeout = 1000'));
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    return row!;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_'))
      return { refused: { code, message: (err as Error).message } };
    throw err;
  }
}

// ---- Integrity checks (db/integrity.ts) ----
// quick_check reads every page of the file: seconds on a large database, on a thread of its own
// with a read transaction (WAL lets writers go on meanwhile).

/** What quick_check found: nothing (an empty list) or its first messages. */
export async function quickCheck({ file }: { file: string }): Promise<{ problems: string[] }> {
  runInBackground();
  try {
    const db = await connectionTo(file, (c) => c.pragma('busy_timeout = 5000'));
    const rows = db.pragma('quick_check(10)') as Array<{ quick_check: string }>;
    const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
    return { problems };
  } catch (err) {
    // a file too damaged to walk is itself the finding
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return { problems: [(err as Error).message] };
    throw err;
  }
}

// ---- Read-only queries (knowledge/keyword-searcher.ts) ----
// Also not parsing: a read whose CPU is worth another core, such as the bm25 ranking of a chat
// turn's keyword search (~2 ms at 10k chunks), runs here while the main thread waits for the
// question's embedding. The caller owns the SQL; the connection is query_only.

const statements = new Map<string, import('better-sqlite3').Statement>();

export interface ReadQueryTask {
  file: string;
  sql: string;
  params: unknown[];
}

/** The rows of one read-only statement, as arrays (raw mode). */
export async function readQuery({ file, sql, params }: ReadQueryTask): Promise<unknown[][]> {
  const db = await connectionTo(file, (c) => {
    c.pragma('busy_timeout = 5000');
    c.pragma('query_only = ON');
  });
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql).raw();
    statements.set(sql, statement);
  }
  return statement.all(...params) as unknown[][];
}
