/**
 * A passage cut into sentences and lines for the no-model answer (knowledge-answer.ts): where a
 * sentence ends, which short lines lead into the next, and the Markdown tables a row belongs to.
 */

/** a sentence shorter than this (a heading, a label) brings the one after it */
const SHORT_SENTENCE = 60;

export interface Sentence {
  /** position in the passage */
  index: number;
  /** the line block it belongs to: sentences of one block are separated by spaces, blocks by line breaks */
  block: number;
  /** offset of the trimmed text in the passage */
  start: number;
  text: string;
}

/** abbreviations whose period does not end a sentence ("Dr. Smith", "approx. 20") */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'vs',
  'approx',
  'fig',
  'jr',
  'sr',
  'mt',
  'cf',
  'tel',
  'ca',
  'ph',
  'dept',
]);
const NUMBER_ABBREVIATIONS = new Set(['no', 'nr', 'nos', 'p', 'pp', 'vol', 'art', 'sec', 'ch']);
/** sentence-ending punctuation with its closing quotes and brackets */
const TERMINATOR_RE = /(?:[.!?…]+|[。！？]+)["'”’»)\]」』]*/gu;

/**
 * Line blocks, then sentences. A line break ends a block (a table row, a list item, a record, a
 * heading is its own sentence) unless it is a soft wrap: one line break followed by a lower-case
 * letter. Inside a block, `.`, `!`, `?` (with closing quotes/brackets) end a sentence when white
 * space and then anything but a lower-case letter follow, and the period does not end an
 * abbreviation or initialism ("e.g.", "U.S.", "Dr."); `$4.99`, `www.example.com`, `v2.3.1` hold
 * no white space after their periods. The text of a sentence is an exact slice, trimmed.
 */
export function splitSentences(content: string): Array<{ text: string; start: number; block: number }> {
  const out: Array<{ text: string; start: number; block: number }> = [];
  let block = 0;
  const pushBlock = (from: number, to: number) => {
    const text = content.slice(from, to);
    if (!/\S/.test(text)) return;
    let last = 0;
    const cut = (end: number) => {
      const raw = text.slice(last, end);
      const lead = raw.length - raw.trimStart().length;
      const trimmed = raw.trim();
      if (/[\p{L}\p{N}]/u.test(trimmed)) out.push({ text: trimmed, start: from + last + lead, block });
      else if (trimmed && out.length > 0 && out[out.length - 1]!.block === block) {
        // stray punctuation ("…", a lone quote) stays with the sentence before it
        const prev = out[out.length - 1]!;
        prev.text = content.slice(prev.start, from + last + lead + trimmed.length);
      }
      last = end;
    };
    for (const m of text.matchAll(TERMINATOR_RE)) {
      const end = m.index + m[0].length;
      const cjk = /^[。！？]/.test(m[0]);
      if (!cjk) {
        const after = /^\s+(.?)/su.exec(text.slice(end, end + 40));
        if (!after) continue; // no white space: "$4.99", "as.numeric", or the block's end
        if (after[1] && /\p{Ll}/u.test(after[1])) continue; // "e.g. the", "p.m. and"
        if (m[0] === '.' && isAbbreviation(text, m.index, after[1] ?? '')) continue;
      }
      cut(end);
    }
    cut(text.length);
    block++;
  };

  let blockStart = 0;
  const lineBreak = /\r?\n/g;
  for (const m of content.matchAll(lineBreak)) {
    const next = content.slice(m.index + m[0].length, m.index + m[0].length + 200);
    const prevLine = content.slice(content.lastIndexOf('\n', m.index - 1) + 1, m.index);
    // a soft wrap: one line break inside a paragraph, the next line going on in lower case
    if (/\S/.test(prevLine) && /^[ \t]*\p{Ll}/u.test(next)) continue;
    pushBlock(blockStart, m.index);
    blockStart = m.index + m[0].length;
  }
  pushBlock(blockStart, content.length);
  return out;
}

function isAbbreviation(text: string, dot: number, nextChar: string): boolean {
  const before = /[^\s(["'“‘]*$/u.exec(text.slice(Math.max(0, dot - 30), dot))?.[0] ?? '';
  if (before === '') return false;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(before)) return true; // "e.g", "i.e", "U.S", "a.m"
  if (/^\p{Lu}$/u.test(before)) return true; // an initial: "J. Smith"
  const lower = before.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  return NUMBER_ABBREVIATIONS.has(lower) && /\d/.test(nextChar); // "No. 5", "p. 12"
}

/**
 * A sentence that leads into the next one: short (a heading "Opening hours", a label "Price:", an
 * FAQ question "How do I reset it?"), and neither a complete statement (ending in "." or "!") nor
 * a record line, whose neighbour is another record.
 */
export function isLeadIn(text: string): boolean {
  return text.length < SHORT_SENTENCE && !/[.!。！]["'”’»)\]」』]*$/u.test(text) && !isRecord(text);
}

/** A table row or a record line ("SKU: A-17 | Product: ... | Price: $4.99"): complete on its own. */
function isRecord(text: string): boolean {
  return /\S\s*[|\t]\s*\S/.test(text) || (text.match(/[\p{L}\p{N})]:\s+\S/gu)?.length ?? 0) >= 2;
}

export const TABLE_ROW = /^\|.*\|$/;
const TABLE_SEPARATOR = /^\|(?:\s*:?-{3,}:?\s*\|)+$/;

/**
 * The header row of the Markdown table the sentence at `index` is a body row of, and the separator
 * line under it (which is not a sentence: it has no words), if it is one.
 */
export function tableHeader<S extends { text: string; index: number; start: number }>(
  sentences: S[],
  index: number,
  content: string,
): { header: S; separator: string } | undefined {
  const row = sentences[index];
  if (!row || !TABLE_ROW.test(row.text.trim())) return undefined;
  let i = index;
  while (i > 0 && TABLE_ROW.test(sentences[i - 1]!.text.trim())) i--;
  const header = sentences[i]!;
  const separator = separatorAfter(header, content);
  if (i === index || !separator) return undefined;
  return { header, separator };
}

/** the Markdown table separator line right after this row, if there is one */
export function separatorAfter(row: { text: string; start: number }, content: string): string | undefined {
  const after = /^[ \t]*\r?\n[ \t]*(\|[^\n]*\|)[ \t]*(?:\r?\n|$)/.exec(content.slice(row.start + row.text.length));
  return after && TABLE_SEPARATOR.test(after[1]!) ? after[1] : undefined;
}
