// The units a passage is made of (chunker.ts): paragraphs, sentences, lines and runs of words, and
// what the white space between two of them separates.

/** JavaScript's white space (\s): what trim() removes and what separates words. */
export function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && /\s/.test(String.fromCharCode(code)));
}

/** Closing quotes and brackets that may follow a sentence's final punctuation. */
const CLOSERS = new Set(['"', "'", ')', ']', '}', '\u2019', '\u201d', '\u00bb', '\u203a']);

/** What the white space between two units of text separates, weakest first. */
export const WORDS = 0;
export const LINES = 1;
export const SENTENCES = 2;

/**
 * What the white space [space, next) of `text` separates: SENTENCES after a sentence's end (one
 * or more of `.` `!` `?`, then any closing quotes or brackets), LINES for other white space holding
 * a line break, WORDS otherwise. Punctuation with no white space after it never ends a sentence
 * (`$4.99`, `1.2.3`, `www.example.com`, `as.numeric`), nor does a `.` followed by a lower-case
 * letter (`e.g. the`, `approx. five`, `the U.S. economy`). Only the text from `floor` on is read,
 * so the answer does not depend on what else is in memory.
 */
export function separation(text: string, space: number, next: number, floor: number): number {
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
export function* units(text: string, from: number, max: number): Generator<[number, number]> {
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
