import { open } from 'node:fs/promises';

/**
 * Splits text into passages for retrieval: about 600 tokens each (never over 800), cut on
 * paragraph and then sentence boundaries, each passage starting with the last ~80 tokens of the
 * one before so an answer that straddles a cut is still found whole.
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
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): TextChunk[] {
  const chunker = new Chunker(options);
  return [...chunker.push(text), ...chunker.end()];
}

/**
 * The same chunks, produced one at a time from a text that may arrive in pieces: a caller storing
 * a 100 MB document yields to the event loop between batches, and never holds the text as one
 * string. Each piece must end at a paragraph break (as utf8Paragraphs and fileParagraphs cut
 * them) or be the last; the pieces then chunk exactly as their concatenation does.
 */
export class Chunker {
  private readonly target: number;
  private readonly max: number;
  private readonly overlap: number;
  private current: string[] = [];
  private currentLength = 0;
  private sinceLastEmit = 0; // units added after the overlap carried in

  constructor(options: ChunkOptions = DEFAULT_CHUNKING) {
    this.target = options.targetTokens * 4;
    this.max = options.maxTokens * 4;
    this.overlap = options.overlapTokens * 4;
  }

  /** the chunks this piece completes */
  *push(text: string): Generator<TextChunk> {
    for (const unit of units(text, this.max)) {
      const piece = unit.text + (unit.paragraphEnd ? '\n\n' : ' ');
      if (this.currentLength + piece.length > this.target && this.sinceLastEmit > 0) {
        const chunk = this.take();
        if (chunk) yield chunk;
        const tail = overlapTail(this.current.join('').trim(), this.overlap);
        this.current = tail ? [tail + ' '] : [];
        this.currentLength = this.current.join('').length;
        this.sinceLastEmit = 0;
        // the overlap must never push a chunk over the hard maximum
        if (this.currentLength + piece.length > this.max) {
          this.current = [];
          this.currentLength = 0;
        }
      }
      this.current.push(piece);
      this.currentLength += piece.length;
      this.sinceLastEmit++;
    }
  }

  /** the last chunk, after the last piece */
  *end(): Generator<TextChunk> {
    if (this.sinceLastEmit > 0) {
      const chunk = this.take();
      if (chunk) yield chunk;
    }
    this.current = [];
    this.currentLength = 0;
    this.sinceLastEmit = 0;
  }

  private take(): TextChunk | null {
    const content = this.current.join('').trim();
    return content ? { content, tokenCount: estimateTokens(content) } : null;
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

/** A UTF-8 text in memory, decoded for the Chunker a slice of about `sliceBytes` at a time. */
export function* utf8Paragraphs(utf8: Buffer, sliceBytes = 64 * 1024): Generator<string> {
  let start = 0;
  while (start < utf8.length) {
    const window = utf8.subarray(start, start + sliceBytes);
    const cut = start + sliceBytes < utf8.length ? lastParagraphCut(window) : -1;
    // no break in this window: up to the first break after it (or the end)
    const end = cut > 0 ? start + cut : firstCutFrom(utf8, start + sliceBytes);
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
export async function* fileParagraphs(file: string, from = 0, blockBytes = 64 * 1024): AsyncGenerator<string> {
  const handle = await open(file, 'r');
  try {
    // bytes read since the last cut (a paragraph longer than a block spans several)
    let pending: Buffer[] = [];
    for (let position = from; ; ) {
      const block = Buffer.allocUnsafeSlow(blockBytes);
      const { bytesRead } = await handle.read(block, 0, blockBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const bytes = block.subarray(0, bytesRead);
      const cut = lastParagraphCut(bytes);
      if (cut <= 0) {
        pending.push(bytes);
        continue;
      }
      pending.push(bytes.subarray(0, cut));
      yield Buffer.concat(pending).toString('utf8');
      pending = [bytes.subarray(cut)];
    }
    const rest = Buffer.concat(pending);
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Units, read lazily paragraph by paragraph: paragraphs, or the sentences of a paragraph too long
 * to keep whole, or word runs of a sentence too long to keep whole. Each unit remembers whether a
 * paragraph break follows it.
 */
function* units(text: string, max: number): Generator<{ text: string; paragraphEnd: boolean }> {
  const paragraphs = /([\s\S]*?)(?:\r?\n[ \t\f\v]*){2,}|([\s\S]+)$/g;
  let match: RegExpExecArray | null;
  while ((match = paragraphs.exec(text)) !== null) {
    if (match[0].length === 0) {
      paragraphs.lastIndex++;
      continue;
    }
    const p = (match[1] ?? match[2] ?? '').replace(/\r\n?/g, '\n').replace(/[ \t\f\v]+/g, ' ').trim();
    if (!p) continue;
    const pieces = p.length <= max ? [p] : splitSentences(p).flatMap((s) => (s.length <= max ? [s] : splitWords(s, max)));
    for (let i = 0; i < pieces.length; i++) yield { text: pieces[i]!, paragraphEnd: i === pieces.length - 1 };
  }
}

function splitSentences(text: string): string[] {
  const out: string[] = [];
  const re = /[^.!?\n]+(?:[.!?]+["')\]]*|\n|$)\s*/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    if (match[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const s = match[0].trim();
    if (s) out.push(s);
  }
  return out.length ? out : [text];
}

function splitWords(text: string, max: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    for (let w = word; w.length > 0; w = w.slice(max)) {
      const part = w.slice(0, max);
      if (current.length + part.length + 1 > max && current) {
        out.push(current);
        current = '';
      }
      current = current ? `${current} ${part}` : part;
    }
  }
  if (current) out.push(current);
  return out;
}

/** The last whole sentences of `text` fitting in `size` characters (or its last words). */
function overlapTail(text: string, size: number): string {
  if (size <= 0 || !text) return '';
  const sentences = splitSentences(text);
  let tail = '';
  for (let i = sentences.length - 1; i >= 0; i--) {
    const candidate = tail ? `${sentences[i]} ${tail}` : sentences[i]!;
    if (candidate.length > size) break;
    tail = candidate;
  }
  if (tail) return tail;
  const words = text.slice(-size).split(/\s+/);
  return words.slice(1).join(' ');
}
