import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker, chunkText, fileParagraphs, utf8Paragraphs, type TextChunk } from '../../src/modules/knowledge/chunker.js';

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

const WORDS = ['opening', 'hours', 'café', 'naïve', 'prices', '日本語', 'delivery', '🙂', 'support', 'a', 'Straße', 'x'.repeat(900)];
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
  for (const slice of utf8Paragraphs(Buffer.from(text, 'utf8'), sliceBytes)) chunks.push(...chunker.push(slice));
  chunks.push(...chunker.end());
  return chunks;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'chunker-test-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('chunking a text in slices', () => {
  const docs = Array.from({ length: 12 }, (_, i) => document(i + 1, 40 + i * 10));

  it('from memory: the same chunks as the whole text, for any slice size', () => {
    for (const [i, text] of docs.entries()) {
      const whole = chunkText(text);
      expect(whole.length, `document ${i}`).toBeGreaterThan(3);
      for (const size of [1, 16, 300, 5000, 64 * 1024]) expect(sliced(text, size), `document ${i}, slices of ${size}`).toEqual(whole);
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
        for await (const slice of fileParagraphs(file, 3, blockBytes)) {
          joined += slice;
          chunks.push(...chunker.push(slice));
        }
        chunks.push(...chunker.end());
        expect(joined, `document ${i}, blocks of ${blockBytes}`).toBe(text);
        expect(chunks, `document ${i}, blocks of ${blockBytes}`).toEqual(chunkText(text));
      }
    }
  });

  it('a text with no paragraph break is one slice', async () => {
    const text = 'one long paragraph without a blank line. '.repeat(500);
    expect([...utf8Paragraphs(Buffer.from(text), 100)]).toEqual([text]);
    const file = path.join(dir, 'flat.txt');
    await writeFile(file, text);
    const slices: string[] = [];
    for await (const slice of fileParagraphs(file, 0, 100)) slices.push(slice);
    expect(slices).toEqual([text]);
  });
});
