import { isSpace, LINES, SENTENCES, separation, units, WORDS } from './text-units.js';

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
