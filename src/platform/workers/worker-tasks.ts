import { readFile, stat } from 'node:fs/promises';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { memoryBudgetExceeded } from './memory-guard.js';
import {
  assertTextWithin,
  DEFAULT_PARSE_LIMITS,
  EMPTY_MESSAGE,
  MB,
  type ParseLimits,
  Refusal,
  UNREADABLE,
} from './parse-common.js';
import { parseDocx } from './parse-docx.js';
import { parsePdf } from './parse-pdf.js';
import { EMPTY, parseCsv, parseTxt, plainTextFile, textRefusal } from './parse-text.js';
import { parseXlsx } from './parse-xlsx.js';
import { announceThread, runInBackground, type TaskWatch } from './task-thread.js';
import { normalisedTextFile } from './text-file.js';
import { OUT_OF_MEMORY_MESSAGE, type ParsableType, type ParseResult, type TextMark } from './types.js';
import { ZipRefusal } from './zip.js';

/**
 * The one file every worker thread runs (piscina; each export is a task, each pool names the task
 * it runs). One file, because the executable carries one worker bundle (scripts/build-sea.mjs):
 * - documents and web pages to text (parse, parseText, extractHtml; pool.ts): these never touch
 *   the database; each document type's parser is a parse-*.ts file beside this one, web pages are
 *   html-task.ts;
 * - database work worth another thread, each in its own pool, in db-tasks.ts: WAL
 *   checkpoints (db/checkpointer.ts), quick_check (db/integrity.ts) and read-only queries
 *   (knowledge/keyword-searcher.ts).
 * This file is the entry (scripts/build.mjs, scripts/build-sea.mjs): it exports every task.
 * Refusals come back as `{ error }` with a user-facing message instead of a thrown error, because
 * errors lose their class crossing the thread boundary; the pool turns them into ParseError. Only
 * infrastructure failures (the file is gone) are thrown. The parsing libraries are imported on
 * first use, so a worker that only ever sees text files never loads pdf.js.
 */

export { checkpoint, quickCheck, readColumns, readQuery } from './db-tasks.js';
export { extractHtml } from './html-task.js';

export interface ParseTask {
  path: string;
  type: ParsableType;
  limits?: Partial<ParseLimits>;
  watch?: TaskWatch;
}

export type WorkerReply = ParseResult | { error: string };

/** The reply of `parseText`: the text as UTF-8 bytes moved to the caller, or where it is in the file. */
export type TextReply =
  | { utf8: Uint8Array; units: number; title?: string; marks?: TextMark[] }
  | { fileFrom: number; bytes: number; units: number }
  | { error: string };

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
