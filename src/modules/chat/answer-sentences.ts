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
    // a table row is one line to quote, whatever its cells say: "| SQLite License. Warranty of
    // title … | $6000 one time fee |" cut at its periods would lose its price
    const row = text.trim();
    if (TABLE_ROW.test(row)) {
      out.push({ text: row, start: from + text.indexOf(row), block: block++ });
      return;
    }
    let last = 0;
    const cut = (end: number) => {
      const raw = text.slice(last, end);
      const lead = raw.length - raw.trimStart().length;
      const trimmed = raw.trim();
      if (/[\p{L}\p{N}]/u.test(trimmed)) {
        // a list of "Label: price" rows run into one line (a PDF's price table) is one row a line
        const rows = runOnRows(trimmed);
        for (const [i, row] of rows.entries()) {
          if (i > 0) block++;
          out.push({ text: row.text, start: from + last + lead + row.start, block });
        }
        if (rows.length > 1) block++;
      } else if (trimmed && out.length > 0 && out[out.length - 1]!.block === block) {
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
    // a soft wrap: one line break inside a paragraph, the next line going on in lower case, or a
    // long line of a hard-wrapped text (a .txt FAQ at 72 columns) stopping mid-sentence
    if (/\S/.test(prevLine) && (/^[ \t]*\p{Ll}/u.test(next) || isHardWrap(prevLine, next))) continue;
    pushBlock(blockStart, m.index);
    blockStart = m.index + m[0].length;
  }
  pushBlock(blockStart, content.length);
  return out;
}

/** a line wrapped at a fixed width: long, ending inside a sentence, the next line going on with prose */
const WRAPPED_LINE = 60;
function isHardWrap(prevLine: string, next: string): boolean {
  const line = prevLine.trim();
  return (
    line.length >= WRAPPED_LINE &&
    /[\p{L}\p{N},;)]$/u.test(line) &&
    !isRecord(line) &&
    !LIST_ITEM.test(line) &&
    /^[ \t]*[\p{L}\p{N}(["'“‘]/u.test(next) &&
    !LIST_ITEM.test(next.trimStart())
  );
}

/** a list item: "- x", "* x", "• x", "1. x", "2) x" */
export const LIST_ITEM = /^(?:[-*•–]\s+|\d{1,3}[.)]\s+)/u;

/**
 * Rows run into one line, cut apart: "- Router - Power adapter - Ethernet cable" (three or more
 * bullets), or "Croissant: 1.50 euro Rye bread: 4.80 euro Spelt bread: 5.10 euro": three or more label-value
 * pairs whose values are amounts, each ending where the next label starts (a capital letter), cut
 * into rows; words before the first label that are not part of it ("Our prices") are a row of their
 * own. Anything else is one row: the sentence itself.
 */
function runOnRows(text: string): Array<{ text: string; start: number }> {
  const one = [{ text, start: 0 }];
  // "- Router - Power adapter - Ethernet cable": bullets run into one line
  if (/^[-•*–]\s/u.test(text)) {
    const starts = [0];
    for (const m of text.matchAll(/\s([-•*–])\s+(?=[\p{Lu}\p{N}])/gu)) starts.push(m.index + m[0].indexOf(m[1]!));
    if (starts.length >= 3) {
      return starts.map((from, i) => {
        const raw = text.slice(from, starts[i + 1] ?? text.length);
        return { text: raw.trim(), start: from };
      });
    }
    return one;
  }
  if ((text.match(/:/g)?.length ?? 0) < 3) return one;
  const ends: number[] = [];
  for (const m of text.matchAll(AMOUNT_THEN_LABEL)) ends.push(m.index + m[0].length);
  if (ends.length < 2) return one;
  const cuts = [0, ...ends.map((e) => e + (/^\s*/.exec(text.slice(e))?.[0].length ?? 0))];
  // a lead-in before the first label: the last "lower-case word, Capitalised word" boundary before its colon
  const firstColon = text.indexOf(':');
  const lead = /^(.*\p{Ll}[\p{L}\p{N})]*)\s+(?=\p{Lu}[^:]*$)/u.exec(text.slice(0, firstColon));
  if (lead) cuts.splice(1, 0, lead[0].length);
  const rows: Array<{ text: string; start: number }> = [];
  for (const [i, from] of cuts.entries()) {
    const raw = text.slice(from, cuts[i + 1] ?? text.length);
    const row = raw.trim();
    if (row) rows.push({ text: row, start: from + raw.length - raw.trimStart().length });
  }
  return rows.length >= 3 ? rows : one;
}
// no "i" flag: with it, \\p{Lu} would match lower-case letters too
const CURRENCY = '(?:[€$£¥]|[Ee]uros?|EUR|[Dd]ollars?|[Pp]ounds?|USD|GBP|CHF|SEK|NOK|DKK|PLN|kr)';
/** ": 1.50 euro" (or ": $4.99", ": 12 €") followed by white space and a capital letter: a row's end */
const AMOUNT_THEN_LABEL = new RegExp(
  `:\\s*(?:${CURRENCY}\\s?)?\\d[\\d.,]*(?:\\s?${CURRENCY})?(?=\\s+[\\p{Lu}(])`,
  'gu',
);

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
 * a row (a record, list item or "Label: value" line), whose neighbour is another row.
 */
export function isLeadIn(text: string): boolean {
  return text.length < SHORT_SENTENCE && !/[.!。！]["'”’»)\]」』]*$/u.test(text) && !isRowLike(text);
}

/** A question: it ends in "?" (an FAQ's question line, a Q&A source's "Q: ..."). */
export function isQuestion(text: string): boolean {
  return /[?？]["'”’»)\]」』]*$/u.test(text);
}

/**
 * What a lead-in brings: after a question, its answer (the next sentence, and the one after that
 * too when the first is short, "Yes." or "Short answer:", stopping at the next question); after a
 * heading or label, the next sentence. Nothing after anything else.
 */
export function followersOf<S extends Sentence>(sentences: S[], index: number, content: string): S[] {
  const s = sentences[index];
  const next = sentences[index + 1];
  // a blank line often follows a heading or an FAQ's question line: the answer still is the next sentence
  if (!s || !next) return [];
  if (isQuestion(s.text)) {
    if (isQuestion(next.text)) return [];
    const after = sentences[index + 2];
    const more =
      next.text.length < SHORT_SENTENCE && after && !isQuestion(after.text) && !paragraphBreak(next, after, content);
    return more ? [next, after] : [next];
  }
  return isLeadIn(s.text) ? [next] : [];
}

/**
 * The question line of the FAQ entry the sentence at `index` belongs to: the nearest question
 * before it with no blank line between (or right above the blank line that follows it), if any.
 */
export function entryQuestion<S extends Sentence>(sentences: S[], index: number, content: string): S | undefined {
  for (let i = index - 1; i >= 0; i--) {
    const s = sentences[i]!;
    if (isQuestion(s.text)) return s;
    if (paragraphBreak(s, sentences[i + 1]!, content)) return undefined;
  }
  return undefined;
}

/** whether a blank line separates two sentences (a before b) */
export function paragraphBreak(a: Sentence, b: Sentence, content: string): boolean {
  return /\n[ \t]*\r?\n/.test(content.slice(a.start + a.text.length, b.start));
}

/**
 * The rows of the list the sentence at `index` belongs to (itself included), in order: the
 * neighbouring lines, each alone on its line and no blank line between, that are list items, table
 * rows or records ("Rye bread: 4.80 euro"). Empty when the sentence is not such a row.
 */
export function listRows<S extends Sentence>(sentences: S[], index: number, content: string): S[] {
  const isRow = (i: number) => {
    const s = sentences[i];
    if (!s) return false;
    const alone = sentences[i - 1]?.block !== s.block && sentences[i + 1]?.block !== s.block;
    return alone && isRowLike(s.text);
  };
  if (!isRow(index)) return [];
  let from = index;
  while (isRow(from - 1) && !paragraphBreak(sentences[from - 1]!, sentences[from]!, content)) from--;
  let to = index;
  while (isRow(to + 1) && !paragraphBreak(sentences[to]!, sentences[to + 1]!, content)) to++;
  return to > from ? sentences.slice(from, to + 1) : [];
}
/** A list item, table row or record line: one of many alike, not a statement of its own. */
export function isRowLike(text: string): boolean {
  return LIST_ITEM.test(text) || TABLE_ROW.test(text) || isRecord(text) || LABELLED.test(text);
}
/** "Rye bread: 4.80 euro", "Opening hours: 9-17": a short label and its value, not a sentence ("Note: we are closed.") */
const LABELLED = /^[^:]{1,60}:\s+\S.{0,80}(?<![.!?。！？])$/u;

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
