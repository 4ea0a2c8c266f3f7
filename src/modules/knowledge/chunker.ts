import { open } from 'node:fs/promises';

/**
 * Splits text into passages for retrieval: about 600 tokens each (never over 800), cut on
 * paragraph and then sentence boundaries, each passage starting with the last ~80 tokens of the
 * one before so an answer that straddles a cut is still found whole.
 *
 * A passage is always a slice of the text it was given, never rewritten: no white space is
 * normalised and nothing is joined, so `$4.99`, `www.example.com` or a table row read back exactly
 * as they were. A passage is one contiguous slice, from a unit's start (or from inside the passage
 * before, for the overlap) to a unit's end; units are paragraphs, or for a paragraph too long to
 * keep whole its sentences, or for a sentence too long its lines, or for a line too long its runs
 * of words, or for a run without white space longer than a passage its pieces cut between two
 * characters (never inside a surrogate pair).
 *
 * Tokens are estimated as characters / 4, which is close for English prose and needs no tokenizer.
 */
export interface ChunkOptions {
  targetTokens: number;
  maxTokens: number;
  overlapTokens: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetTokens: 600, maxTokens: 800, overlapTokens: 80 };

export interface TextChunk {
  content: string;
  tokenCount: number;
  /** where the passage is in the text: [start, end) offsets of the concatenation of the pieces */
  start: number;
  end: number;
}

/**
 * A section (a heading and what follows it) ends the passage before it, unless that passage is
 * shorter than this (a heading followed at once by a sub-heading, a one-line section): it then
 * runs on into the next section rather than stand alone.
 */
const MIN_SECTION_PASSAGE_CHARS = 200;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function chunkText(
  text: string,
  options: ChunkOptions = DEFAULT_CHUNKING,
  sections: number[] = [],
): TextChunk[] {
  const chunker = new Chunker(options, sections);
  return [...chunker.push(text), ...chunker.end()];
}

/**
 * The same chunks, produced one at a time from a text that may arrive in pieces: a caller storing
 * a 100 MB document yields to the event loop between batches, and never holds the text as one
 * string. Each piece must end at a paragraph break (as utf8Paragraphs and fileParagraphs cut
 * them) or be the last; the pieces then chunk exactly as their concatenation does. A paragraph
 * longer than MAX_PIECE_BYTES is cut at white space into pieces, each then read as a paragraph.
 *
 * `sections` are the offsets where sections start (a heading's first character, at a paragraph
 * start; sorted): a passage ends before a section unless it is very short, and the overlap of the
 * next one never reaches back across a section's start.
 *
 * Positions are offsets into the concatenation of the pieces. The chunker keeps the text from the
 * start of the passage being filled (at most a passage) plus the piece being read: a passage, and
 * its overlap, may span the end of one piece and the start of the next.
 */
export class Chunker {
  private readonly target: number;
  private readonly max: number;
  private readonly overlap: number;
  /** the text kept, from offset `bufferStart` of the concatenation to the end of the last piece */
  private buffer = '';
  private bufferStart = 0;
  /** the passage being filled: [start, end), or start -1 for none */
  private passageStart = -1;
  private passageEnd = 0;

  constructor(
    options: ChunkOptions = DEFAULT_CHUNKING,
    private readonly sections: readonly number[] = [],
  ) {
    this.target = options.targetTokens * 4;
    this.max = options.maxTokens * 4;
    this.overlap = options.overlapTokens * 4;
  }

  /** the chunks this piece completes (read it to the end before pushing the next piece) */
  *push(text: string): Generator<TextChunk> {
    const pieceStart = this.bufferStart + this.buffer.length;
    // keep only what the passage being filled needs (from its start), then the new piece
    const keepFrom = this.passageStart >= 0 ? this.passageStart : pieceStart;
    this.buffer = this.buffer.slice(keepFrom - this.bufferStart) + text;
    this.bufferStart = keepFrom;
    const base = this.bufferStart;
    for (const [from, to] of units(this.buffer, pieceStart - base, this.max)) {
      const unitStart = from + base;
      const unitEnd = to + base;
      if (this.passageStart < 0) {
        this.passageStart = unitStart;
      } else if (
        this.sectionStartsIn(this.passageEnd, unitStart) &&
        this.passageEnd - this.passageStart >= MIN_SECTION_PASSAGE_CHARS
      ) {
        yield this.take();
        this.passageStart = unitStart;
      } else if (unitEnd - this.passageStart > this.target) {
        yield this.take();
        const carried = this.overlapStart();
        // the overlap must never push a chunk over the hard maximum, nor reach back into another section
        const ok = carried >= 0 && unitEnd - carried <= this.max && !this.sectionStartsIn(carried, unitStart);
        this.passageStart = ok ? carried : unitStart;
      }
      this.passageEnd = unitEnd;
    }
  }

  /** the last chunk, after the last piece */
  *end(): Generator<TextChunk> {
    if (this.passageStart >= 0) yield this.take();
    this.buffer = '';
    this.bufferStart = 0;
    this.passageStart = -1;
    this.passageEnd = 0;
  }

  private take(): TextChunk {
    const content = this.buffer.slice(this.passageStart - this.bufferStart, this.passageEnd - this.bufferStart);
    return { content, tokenCount: estimateTokens(content), start: this.passageStart, end: this.passageEnd };
  }

  /** whether a section starts in (from, to] */
  private sectionStartsIn(from: number, to: number): boolean {
    const sections = this.sections;
    if (sections.length === 0) return false;
    // the first section after `from`
    let lo = 0;
    let hi = sections.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sections[mid]! <= from) lo = mid + 1;
      else hi = mid;
    }
    return lo < sections.length && sections[lo]! <= to;
  }

  /**
   * Where the next passage starts inside the one just taken: the passage's own start if it is no
   * longer than the overlap, else the first sentence start among its last `overlap` characters,
   * or failing one the first line start, or the first word start; -1 for none (a run without
   * white space).
   */
  private overlapStart(): number {
    if (this.overlap <= 0) return -1;
    const text = this.buffer;
    const floor = this.passageStart - this.bufferStart;
    const end = this.passageEnd - this.bufferStart;
    const from = Math.max(floor, end - this.overlap);
    if (from === floor) return this.passageStart;
    // from the start of the white space run `from` may be in (never before the passage's start)
    let scan = from;
    while (scan > floor && isSpace(text.charCodeAt(scan - 1))) scan--;
    const space = /\s+/g;
    space.lastIndex = scan;
    const first = [-1, -1, -1]; // the first start after WORDS, LINES, SENTENCES
    for (let m = space.exec(text); m !== null && m.index < end; m = space.exec(text)) {
      const next = m.index + m[0].length;
      if (next < from) continue;
      if (next >= end) break;
      const level = separation(text, m.index, next, floor);
      if (level === SENTENCES) return next + this.bufferStart;
      for (let l = level; l >= WORDS; l--) if (first[l]! < 0) first[l] = next;
    }
    const start = first[LINES]! >= 0 ? first[LINES]! : first[WORDS]!;
    return start >= 0 ? start + this.bufferStart : -1;
  }
}

const isAsciiSpace = (b: number | undefined) => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);

/**
 * The last place in `bytes` to cut a UTF-8 text so that both sides chunk as the whole does: just
 * after a paragraph break (two newlines and all the white space that follows), before a byte that
 * is not white space. -1 when there is none. The cut falls on an ASCII byte, never inside a
 * character.
 */
function lastParagraphCut(bytes: Buffer): number {
  let last = bytes.length - 1;
  while (last >= 0 && isAsciiSpace(bytes[last])) last--;
  const pair = last >= 2 ? bytes.lastIndexOf('\n\n', last - 2) : -1;
  if (pair < 0) return -1;
  let cut = pair + 2;
  while (isAsciiSpace(bytes[cut])) cut++;
  return cut;
}

/**
 * The longest piece handed to the Chunker at once: a paragraph longer than this (a text file
 * with no blank line, a 50 MB line) is cut at white space (or, with none, between characters), so
 * no step of the event loop ever reads more than this, and no such text is ever one string. The
 * cut acts as a paragraph break; passages stay exact slices of the text.
 */
export const MAX_PIECE_BYTES = 256 * 1024;

/**
 * Where to cut bytes[0, end) when no paragraph break is near: after the last ASCII white space
 * run that is followed by something else, or failing one at the last character boundary.
 */
function forcedCut(bytes: Buffer, from: number, end: number): number {
  for (let i = end - 1; i > from; i--) {
    if (isAsciiSpace(bytes[i - 1]) && !isAsciiSpace(bytes[i])) return i;
  }
  let cut = end;
  // never inside a UTF-8 sequence: back up over continuation bytes (10xxxxxx)
  while (cut > from + 1 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/** A UTF-8 text in memory, decoded for the Chunker a slice of about `sliceBytes` at a time. */
export function* utf8Paragraphs(
  utf8: Buffer,
  sliceBytes = 64 * 1024,
  maxPieceBytes = MAX_PIECE_BYTES,
): Generator<string> {
  let start = 0;
  while (start < utf8.length) {
    const window = utf8.subarray(start, start + sliceBytes);
    const cut = start + sliceBytes < utf8.length ? lastParagraphCut(window) : -1;
    let end = cut > 0 ? start + cut : firstCutFrom(utf8, start + sliceBytes);
    // no break in this window: up to the first break after it (or the end), within the piece limit
    if (end - start > maxPieceBytes) end = forcedCut(utf8, start, start + maxPieceBytes);
    yield utf8.toString('utf8', start, end);
    start = end;
  }
}

function firstCutFrom(utf8: Buffer, from: number): number {
  for (let pair = utf8.indexOf('\n\n', from); pair >= 0; pair = utf8.indexOf('\n\n', pair + 1)) {
    let cut = pair + 2;
    while (isAsciiSpace(utf8[cut])) cut++;
    if (cut < utf8.length) return cut;
  }
  return utf8.length;
}

/**
 * A UTF-8 text file from byte `from`, read and decoded for the Chunker about `blockBytes` at a
 * time: only a slice is in memory, never the file.
 */
export async function* fileParagraphs(
  file: string,
  from = 0,
  blockBytes = 64 * 1024,
  maxPieceBytes = MAX_PIECE_BYTES,
): AsyncGenerator<string> {
  const handle = await open(file, 'r');
  try {
    // bytes read since the last cut (a paragraph longer than a block spans several)
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (let position = from; ; ) {
      const block = Buffer.allocUnsafeSlow(blockBytes);
      const { bytesRead } = await handle.read(block, 0, blockBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const bytes = block.subarray(0, bytesRead);
      const cut = lastParagraphCut(bytes);
      if (cut <= 0) {
        pending.push(bytes);
        pendingBytes += bytes.length;
        // a paragraph longer than a piece may be: cut it at white space
        while (pendingBytes > maxPieceBytes) {
          const all = Buffer.concat(pending);
          const forced = forcedCut(all, 0, maxPieceBytes);
          yield all.toString('utf8', 0, forced);
          pending = [all.subarray(forced)];
          pendingBytes = all.length - forced;
        }
        continue;
      }
      pending.push(bytes.subarray(0, cut));
      yield Buffer.concat(pending).toString('utf8');
      pending = [bytes.subarray(cut)];
      pendingBytes = bytes.length - cut;
    }
    const rest = Buffer.concat(pending);
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** JavaScript's white space (\s): what trim() removes and what separates words. */
function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && /\s/.test(String.fromCharCode(code)));
}

/** Closing quotes and brackets that may follow a sentence's final punctuation. */
const CLOSERS = new Set(['"', "'", ')', ']', '}', '\u2019', '\u201d', '\u00bb', '\u203a']);

/** What the white space between two units of text separates, weakest first. */
const WORDS = 0;
const LINES = 1;
const SENTENCES = 2;

/**
 * What the white space [space, next) of `text` separates: SENTENCES after a sentence's end (one
 * or more of `.` `!` `?`, then any closing quotes or brackets), LINES for other white space holding
 * a line break, WORDS otherwise. Punctuation with no white space after it never ends a sentence
 * (`$4.99`, `1.2.3`, `www.example.com`, `as.numeric`), nor does a `.` followed by a lower-case
 * letter (`e.g. the`, `approx. five`, `the U.S. economy`). Only the text from `floor` on is read,
 * so the answer does not depend on what else is in memory.
 */
function separation(text: string, space: number, next: number, floor: number): number {
  let i = space - 1;
  while (i >= floor && CLOSERS.has(text[i]!)) i--;
  const mark = i >= floor ? text[i] : undefined;
  if (mark === '!' || mark === '?') return SENTENCES;
  if (mark === '.') {
    // "e.g. the", but "U.S. Navy", "costs $4. Then"
    const following = text.codePointAt(next);
    if (following === undefined || !/\p{Ll}/u.test(String.fromCodePoint(following))) return SENTENCES;
  }
  for (let j = space; j < next; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) return LINES;
  }
  return WORDS;
}

/**
 * Units of text[from..], read lazily paragraph by paragraph, as [start, end) offsets into text,
 * each trimmed of white space and at most `max` characters long: paragraphs, or for a paragraph
 * too long to keep whole its sentences, or for a sentence too long its lines (a PDF's or a
 * sheet's), or for a line too long its runs of words.
 */
function* units(text: string, from: number, max: number): Generator<[number, number]> {
  const breaks = /(?:\r?\n[ \t\f\v]*){2,}/g;
  breaks.lastIndex = from;
  for (let start = from; start < text.length; ) {
    const match = breaks.exec(text);
    const end = match ? match.index : text.length;
    const next = match ? match.index + match[0].length : text.length;
    let s = start;
    let e = end;
    while (s < e && isSpace(text.charCodeAt(s))) s++;
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    start = next;
    if (s === e) continue;
    if (e - s <= max) {
      yield [s, e];
      continue;
    }
    for (const [ss, se] of parts(text, s, e, SENTENCES)) {
      if (se - ss <= max) {
        yield [ss, se];
        continue;
      }
      for (const [ls, le] of parts(text, ss, se, LINES)) {
        if (le - ls <= max) yield [ls, le];
        else yield* wordRuns(text, ls, le, max);
      }
    }
  }
}

/** The trimmed text[start, end) cut at each white space that separates at least `level`, trimmed. */
function* parts(text: string, start: number, end: number, level: number): Generator<[number, number]> {
  const space = /\s+/g;
  space.lastIndex = start;
  let part = start;
  for (let m = space.exec(text); m !== null && m.index < end; m = space.exec(text)) {
    const next = m.index + m[0].length;
    if (separation(text, m.index, next, start) >= level) {
      yield [part, m.index];
      part = next;
    }
  }
  yield [part, end];
}

/**
 * The trimmed text[start, end) in runs of at most `max` characters, cut at white space, or a run
 * of no white space longer than `max` between two characters (never inside a surrogate pair).
 */
function* wordRuns(text: string, start: number, end: number, max: number): Generator<[number, number]> {
  const word = /\S+/g;
  word.lastIndex = start;
  let run = -1;
  let runEnd = -1;
  for (let m = word.exec(text); m !== null && m.index < end; m = word.exec(text)) {
    let ws = m.index;
    const we = Math.min(ws + m[0].length, end);
    if (run >= 0 && we - run <= max) {
      runEnd = we;
      continue;
    }
    if (run >= 0) yield [run, runEnd];
    while (we - ws > max) {
      let cut = ws + max;
      if (cut - 1 > ws && isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))) cut--;
      yield [ws, cut];
      ws = cut;
    }
    run = ws;
    runEnd = we;
  }
  if (run >= 0) yield [run, runEnd];
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
