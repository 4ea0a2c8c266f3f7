import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker, chunkText, DEFAULT_CHUNKING, type TextChunk } from '../../src/modules/knowledge/chunker.js';
import { fileParagraphs, MAX_PIECE_BYTES, utf8Paragraphs } from '../../src/modules/knowledge/paragraph-pieces.js';

/**
 * Large documents are chunked from slices of their text (ingestion never holds a 100 MB text as
 * one string): the slices must give exactly the chunks of the whole text, whatever the slice size,
 * white space around the breaks and multi-byte characters at the edges of what is read.
 */

/** A deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'opening',
  'hours',
  'café',
  'naïve',
  'prices',
  '日本語',
  'delivery',
  '🙂',
  'support',
  'a',
  'Straße',
  'x'.repeat(900),
];
const ENDINGS = ['. ', '! ', '? ', ', ', ' ', '.\n', '\t'];
const BREAKS = ['\n\n', '\n\n\n', '\n \n', '\n\n  ', '\n\t\n\v ', '\r\n\r\n', '\n\n\r', ' \n\n', '\n'];

/** Paragraphs of sentences (some far longer than a chunk), joined by every kind of break. */
function document(seed: number, paragraphs: number): string {
  const next = random(seed);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  let text = next() < 0.3 ? '  \n\n' : '';
  for (let p = 0; p < paragraphs; p++) {
    const sentences = next() < 0.1 ? 150 : 1 + Math.floor(next() * 8);
    for (let s = 0; s < sentences; s++) {
      const words = 3 + Math.floor(next() * 15);
      for (let w = 0; w < words; w++) text += pick(WORDS) + (w === words - 1 ? pick(ENDINGS) : ' ');
    }
    text += pick(BREAKS);
  }
  return text;
}

function sliced(text: string, sliceBytes: number): TextChunk[] {
  const chunker = new Chunker();
  const chunks: TextChunk[] = [];
  // (no piece limit: cut at paragraph breaks only, the pieces chunk exactly as the whole)
  for (const slice of utf8Paragraphs(Buffer.from(text, 'utf8'), sliceBytes, Infinity))
    chunks.push(...chunker.push(slice));
  chunks.push(...chunker.end());
  return chunks;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'chunker-test-'));
}, 60_000);
afterAll(async () => rm(dir, { recursive: true, force: true }), 60_000);

describe('chunking a text in slices', () => {
  const docs = Array.from({ length: 12 }, (_, i) => document(i + 1, 40 + i * 10));

  it('from memory: the same chunks as the whole text, for any slice size', () => {
    for (const [i, text] of docs.entries()) {
      const whole = chunkText(text);
      expect(whole.length, `document ${i}`).toBeGreaterThan(3);
      for (const size of [1, 16, 300, 5000, 64 * 1024])
        expect(sliced(text, size), `document ${i}, slices of ${size}`).toEqual(whole);
    }
  });

  it('cuts the text into many slices, each decoded on its own', () => {
    const text = docs[5]!;
    const slices = [...utf8Paragraphs(Buffer.from(text, 'utf8'), 300)];
    expect(slices.length).toBeGreaterThan(20);
    expect(slices.join('')).toBe(text);
  });

  it('from a file, after a byte offset: the same chunks, whatever the block size', async () => {
    for (const [i, text] of docs.slice(0, 4).entries()) {
      const file = path.join(dir, `doc-${i}.txt`);
      // a BOM before the text, as in an uploaded file; the reader starts after it
      await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]));
      for (const blockBytes of [61, 4096, 64 * 1024]) {
        const chunker = new Chunker();
        const chunks: TextChunk[] = [];
        let joined = '';
        for await (const slice of fileParagraphs(file, 3, blockBytes, Infinity)) {
          joined += slice;
          chunks.push(...chunker.push(slice));
        }
        chunks.push(...chunker.end());
        expect(joined, `document ${i}, blocks of ${blockBytes}`).toBe(text);
        expect(chunks, `document ${i}, blocks of ${blockBytes}`).toEqual(chunkText(text));
      }
    }
  });

  it('a text with no paragraph break up to the piece limit is one slice', async () => {
    const text = 'one long paragraph without a blank line. '.repeat(500);
    expect([...utf8Paragraphs(Buffer.from(text), 100)]).toEqual([text]);
    const file = path.join(dir, 'flat.txt');
    await writeFile(file, text);
    const slices: string[] = [];
    for await (const slice of fileParagraphs(file, 0, 100)) slices.push(slice);
    expect(slices).toEqual([text]);
  });

  it('a text with no line break at all (a 3 MB line) comes in pieces cut at white space, never one string; passages stay slices of it', async () => {
    const words = ['price', '$4.99', 'www.example.com', 'as.numeric', 'v2.3.1', 'caf\u00e9', '\u{1F642}', 'router'];
    const text = Array.from({ length: 400_000 }, (_, i) => words[i % words.length]).join(' ');
    expect(Buffer.byteLength(text)).toBeGreaterThan(3_000_000);
    const file = path.join(dir, 'one-line.txt');
    await writeFile(file, text);
    for (const pieces of [[...utf8Paragraphs(Buffer.from(text))], await collect(fileParagraphs(file))]) {
      expect(pieces.join('')).toBe(text);
      expect(pieces.length).toBeGreaterThan(10);
      for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(MAX_PIECE_BYTES + 64 * 1024);
      // cut between words: each piece but the last ends in white space
      for (const piece of pieces.slice(0, -1)) expect(piece).toMatch(/\s$/);
      const chunker = new Chunker();
      const chunks = [...pieces.flatMap((p) => [...chunker.push(p)]), ...chunker.end()];
      for (const c of chunks) {
        expect(c.content).toBe(text.slice(c.start, c.end));
        expect(c.content.length).toBeLessThanOrEqual(DEFAULT_CHUNKING.maxTokens * 4);
      }
      expect(chunks[0]!.start).toBe(0);
      expect(chunks.at(-1)!.end).toBe(text.length);
    }
    // with no white space either, pieces are cut between characters
    const solid = '\u00e9'.repeat(400_000);
    const solidPieces = [...utf8Paragraphs(Buffer.from(solid))];
    expect(solidPieces.join('')).toBe(solid);
    expect(solidPieces.length).toBeGreaterThan(2);
  });
});

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
}

/**
 * A passage is a slice of the extracted text, never a rewrite of it: PDF text and large sheets
 * come as one paragraph far longer than a passage, and cutting it must not touch `$4.99`,
 * `www.example.com` or the white space between sentences.
 */
const MAX_CHARS = DEFAULT_CHUNKING.maxTokens * 4;
const INTACT = ['$4.99', 'www.example.com', 'as.numeric', 'v1.2.3', '3.14', 'U.S.'];

/** One paragraph of numbered (so every passage is found at one place) sentences, as a PDF gives it. */
function pdfLikeParagraph(sentences: number, seed = 7): string {
  const next = random(seed);
  const templates = [
    (i: number) => `Item ${i} costs $4.99 at www.example.com this week.`,
    (i: number) => `In R, step ${i} converts with as.numeric before plotting.`,
    (i: number) => `Release v1.2.3 fixed issue ${i} in the parser.`,
    (i: number) => `The ratio ${i} is close to 3.14 in most samples.`,
    (i: number) => `Sales in the U.S. grew for the ${i}th month running.`,
    (i: number) => `He said "this is case ${i}."`,
    (i: number) => `Was it item ${i} (or the one after?)`,
    (i: number) => `Line ${i} wraps here\nas PDF text does, e.g. in columns!`,
  ];
  const spaces = [' ', ' ', ' ', '  ', '\t', ' \n'];
  let text = '';
  for (let i = 0; i < sentences; i++)
    text += templates[Math.floor(next() * templates.length)]!(i) + spaces[Math.floor(next() * spaces.length)]!;
  return text;
}

/** Where each chunk lies in `text`: in order, each starting inside the one before (the overlap) or after it. */
function locate(text: string, chunks: TextChunk[]): number[] {
  const at: number[] = [];
  let from = 0;
  for (const [i, chunk] of chunks.entries()) {
    const position = text.indexOf(chunk.content, from);
    expect(position, `chunk ${i} is a slice of the text, after chunk ${i - 1}`).toBeGreaterThanOrEqual(0);
    at.push(position);
    from = position;
  }
  return at;
}

/** Every character that is not white space lies in some chunk. */
function expectCovered(text: string, chunks: TextChunk[], at: number[]): void {
  let covered = 0; // text[0, covered) is covered or white space
  for (const [i, chunk] of chunks.entries()) {
    expect(text.slice(covered, at[i]!).trim(), `text before chunk ${i} that no chunk holds`).toBe('');
    covered = Math.max(covered, at[i]! + chunk.content.length);
  }
  expect(text.slice(covered).trim(), 'text after the last chunk').toBe('');
}

function checkSlices(text: string, chunks: TextChunk[], { overlapping }: { overlapping: boolean }): number[] {
  for (const chunk of chunks) {
    expect(text.includes(chunk.content)).toBe(true);
    expect(chunk.content.length).toBeLessThanOrEqual(MAX_CHARS);
    expect(chunk.content).toBe(chunk.content.trim());
    expect(chunk.tokenCount).toBe(Math.ceil(chunk.content.length / 4));
  }
  const at = locate(text, chunks);
  if (overlapping) {
    for (let i = 1; i < chunks.length; i++) {
      expect(at[i]!, `chunk ${i} starts after chunk ${i - 1}'s start`).toBeGreaterThan(at[i - 1]!);
      expect(at[i]!, `chunk ${i} starts inside chunk ${i - 1}`).toBeLessThan(
        at[i - 1]! + chunks[i - 1]!.content.length,
      );
    }
  }
  expectCovered(text, chunks, at);
  return at;
}

describe('passages are slices of the text', () => {
  it('a paragraph far over a passage (PDF text): slices, tokens intact, overlapping, covering the text', () => {
    const text = pdfLikeParagraph(300);
    expect(text.length).toBeGreaterThan(12_000);
    expect(text).not.toMatch(/\n\s*\n/);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(6);
    const at = checkSlices(text, chunks, { overlapping: true });
    for (const token of INTACT)
      expect(
        chunks.some((c) => c.content.includes(token)),
        token,
      ).toBe(true);
    // every passage ends at a sentence's end, after its closing quote or bracket, never before them
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.content).toMatch(/[.!?]["')]?$/);
      expect(text[at[i]! + chunk.content.length] ?? ' ').toMatch(/\s/);
    }
    expect(chunks.some((c) => c.content.endsWith('."') || c.content.endsWith('?)'))).toBe(true);
  });

  it('cuts a long paragraph at sentence ends only: never inside $4.99, v1.2.3 or www.example.com, nor after "e.g." or "U.S." before a lower-case word', () => {
    const text =
      'Use a helper, e.g. as.numeric or as.integer, to convert.  Prices are $4.99 at www.example.com today! ' +
      'Is it v1.2.3 (or later?) He said "pi is 3.14." The U.S. office is open; the U.S. economy grew.\tDone.';
    const chunks = chunkText(text, { targetTokens: 10, maxTokens: 15, overlapTokens: 0 });
    expect(chunks.map((c) => c.content)).toEqual([
      'Use a helper, e.g. as.numeric or as.integer, to convert.',
      'Prices are $4.99 at www.example.com today!',
      'Is it v1.2.3 (or later?)',
      'He said "pi is 3.14."',
      'The U.S. office is open; the U.S. economy grew.',
      'Done.',
    ]);
  });

  it('a run with no white space longer than a passage is cut between characters, never inside a surrogate pair', () => {
    const text = `before it ${'x🙂'.repeat(1500)}a${'🙂'.repeat(2500)} after it`;
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    checkSlices(text, chunks, { overlapping: false });
    for (const chunk of chunks) {
      expect(chunk.content, 'no lone low surrogate at the start').not.toMatch(/^[\udc00-\udfff]/);
      expect(chunk.content, 'no lone high surrogate at the end').not.toMatch(/[\ud800-\udbff]$/);
      expect(chunk.content).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });

  it('pieces cut at random paragraph breaks chunk as their concatenation, into slices spanning the pieces', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const next = random(seed);
      const breaks = ['\n\n', '\r\n\r\n', '\n \n', '\n\n\t', ' \n\n\n'];
      let text = '';
      for (let p = 0; p < 30; p++) {
        const sentences = next() < 0.3 ? 60 + Math.floor(next() * 60) : 1 + Math.floor(next() * 6);
        text += pdfLikeParagraph(sentences, seed * 100 + p) + breaks[Math.floor(next() * breaks.length)]!;
      }
      const whole = chunkText(text);
      checkSlices(text, whole, { overlapping: false });
      // cut after a random choice of the paragraph breaks (and the white space after them)
      const pieces: string[] = [];
      let start = 0;
      for (const m of text.matchAll(/\n[ \t]*\n\s*/g)) {
        const cut = m.index + m[0].length;
        if (cut < text.length && next() < 0.5) {
          pieces.push(text.slice(start, cut));
          start = cut;
        }
      }
      pieces.push(text.slice(start));
      expect(pieces.join('')).toBe(text);
      expect(pieces.length).toBeGreaterThan(5);
      const chunker = new Chunker();
      const streamed: TextChunk[] = [];
      for (const piece of pieces) streamed.push(...chunker.push(piece));
      streamed.push(...chunker.end());
      expect(streamed, `seed ${seed}`).toEqual(whole);
      // some passage holds the end of one piece and the start of the next
      const spanning = whole.filter((c) => !pieces.some((piece) => piece.includes(c.content)));
      expect(spanning.length, `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('a 1 MB paragraph: slices at their places, overlapping, covering it', () => {
    let text = '';
    for (let i = 0; text.length < 1 << 20; i++) text += pdfLikeParagraph(50, i + 1).replace(/(\d+)/, `$1-${i}`);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(300);
    checkSlices(text, chunks, { overlapping: true });
  });
});
