/**
 * The quote of one passage in the no-model answer (knowledge-answer.ts): the picked sentences in
 * document order, a table row under its column names, a very long sentence cut around its match,
 * each line prefixed with "> ".
 */

import { type Sentence, tableHeader } from './answer-sentences.js';
import { stem, TOKEN_RE } from './answer-words.js';

/** a longer sentence is quoted as a window of about this size around its first matching word */
export const MAX_SENTENCE_CHARS = 400;

/**
 * The Markdown block quote of `picked` (sentences of one passage, any order), out of all the
 * passage's `sentences`. A Q&A source (`qaAnswer` set) is quoted with the owner's answer: its
 * "Q: …" and "A: …" lines are how it is stored, not how it reads.
 */
export function quotePassage<S extends Sentence>(
  picked: S[],
  sentences: S[],
  content: string,
  words: string[],
  qaAnswer?: string,
  stemOf: (word: string) => string = stem,
): string {
  let quote = '';
  if (qaAnswer?.trim()) quote = qaAnswer.trim();
  else {
    let prev: Sentence | null = null;
    let headerShown = -1;
    for (const s of [...picked].sort((a, b) => a.index - b.index)) {
      // a table row is read under its column names: the header row (and separator) goes first
      const table = tableHeader(sentences, s.index, content);
      if (table && table.header.index !== headerShown && !picked.includes(table.header)) {
        if (prev) quote += '\n';
        quote += `${table.header.text}\n${table.separator}`;
        headerShown = table.header.index;
        // what follows goes on a line of its own
        prev = { ...table.header, block: -1 };
      }
      // a line wrapped inside a sentence (a text file's, a PDF's) is quoted as one line: a sentence
      // spans lines only where they wrap (answer-sentences.ts)
      const text = excerpt(s.text, words, stemOf).replace(/[ \t]*\r?\n[ \t]*/g, ' ');
      if (prev) quote += prev.block !== s.block ? '\n' : prev.index + 1 === s.index ? ' ' : ' … ';
      quote += text;
      prev = s;
    }
  }
  return quote
    .split(/\r?\n/)
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');
}

/**
 * A sentence longer than MAX_SENTENCE_CHARS: a window of about that size, starting a little
 * before its first matching word, cut between words and marked with "…".
 */
function excerpt(text: string, words: string[], stemOf: (word: string) => string): string {
  if (text.length <= MAX_SENTENCE_CHARS) return text;
  const wanted = new Set(words);
  let first = -1;
  for (const m of text.toLowerCase().matchAll(TOKEN_RE)) {
    if (wanted.has(m[0]) || m[0].split('.').some((part) => wanted.has(stemOf(part)))) {
      first = m.index;
      break;
    }
  }
  let start = Math.max(0, Math.min(first - 80, text.length - MAX_SENTENCE_CHARS));
  if (start > 0) {
    const space = text.slice(start).search(/\s/);
    start = space >= 0 && space < 40 ? start + space + 1 : start;
  }
  let end = Math.min(text.length, start + MAX_SENTENCE_CHARS);
  if (end < text.length) {
    const space = text.slice(start, end).search(/\s\S*$/);
    if (space > MAX_SENTENCE_CHARS / 2) end = start + space;
  }
  return `${start > 0 ? '… ' : ''}${text.slice(start, end).trim()}${end < text.length ? ' …' : ''}`;
}
