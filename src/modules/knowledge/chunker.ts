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
  return [...chunkTextLazily(text, options)];
}

/**
 * The same chunks, produced one at a time: a caller storing a 100 MB document can yield to the
 * event loop between batches instead of cutting the whole text in one synchronous run.
 */
export function* chunkTextLazily(text: string, options: ChunkOptions = DEFAULT_CHUNKING): Generator<TextChunk> {
  const target = options.targetTokens * 4;
  const max = options.maxTokens * 4;
  const overlap = options.overlapTokens * 4;

  let current: string[] = [];
  let currentLength = 0;
  let sinceLastEmit = 0; // units added after the overlap carried in

  const take = (): TextChunk | null => {
    const content = current.join('').trim();
    return content ? { content, tokenCount: estimateTokens(content) } : null;
  };

  for (const unit of units(text, max)) {
    const piece = unit.text + (unit.paragraphEnd ? '\n\n' : ' ');
    if (currentLength + piece.length > target && sinceLastEmit > 0) {
      const chunk = take();
      if (chunk) yield chunk;
      const tail = overlapTail(current.join('').trim(), overlap);
      current = tail ? [tail + ' '] : [];
      currentLength = current.join('').length;
      sinceLastEmit = 0;
      // the overlap must never push a chunk over the hard maximum
      if (currentLength + piece.length > max) {
        current = [];
        currentLength = 0;
      }
    }
    current.push(piece);
    currentLength += piece.length;
    sinceLastEmit++;
  }
  if (sinceLastEmit > 0) {
    const chunk = take();
    if (chunk) yield chunk;
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
