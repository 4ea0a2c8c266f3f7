/**
 * The words of a question and of a passage, as the no-model answer (knowledge-answer.ts) compares
 * them: content words without stop words, a crude stem, dotted tokens ("4.99", "v2.3.1") whole.
 */

const STOP_WORDS = new Set(
  (
    'a an the is are was were be been being am do does did done doing have has had having get gets got ' +
    'how what which where when who whom whose why can could would should will shall may might must ' +
    'i you your yours we our ours my me mine us they them their it its this that these those there here ' +
    'to of in on at by for from with into onto about as if so than then and or but not no nor ' +
    'any some all much many also just very too please hi hello hey thanks thank thx ok okay yes ' +
    'tell know want need like let find give show ' +
    "i'm i've i'd i'll you're you've we're it's that's there's what's whats where's how's who's " +
    "don't doesn't didn't can't cannot isn't aren't wasn't won't wouldn't shouldn't couldn't"
  ).split(/\s+/),
);

/**
 * A token: letters, digits and marks, with inner apostrophes ("don't", "Anna's") and inner periods:
 * a dotted token ("4.99", "v2.3.1", "192.168.8.1", "as.numeric") is matched whole, and in a
 * passage its parts count as words too.
 */
export const TOKEN_RE = /[\p{L}\p{N}\p{M}]+(?:['’.][\p{L}\p{N}\p{M}]+)*/gu;

/**
 * A crude stem: lower-case, no trailing "'s", then no plural "s"/"es" and no "ing"/"ed" (when at
 * least three letters remain), a doubled final consonant undoubled ("shipp" → "ship") and a final
 * "e" dropped, so "price", "prices", "priced" and "pricing" all read "pric"; "-ies"/"-ied" read
 * "-y" ("companies", "company"; "applied", "apply").
 */
export function stem(word: string): string {
  let cached = stemCache.get(word);
  if (cached === undefined) {
    if (stemCache.size >= STEM_CACHE_SIZE) stemCache.clear();
    cached = computeStem(word);
    stemCache.set(word, cached);
  }
  return cached;
}

/** stems of recent words (a passage's words recur across questions); cleared when full */
const stemCache = new Map<string, string>();
const STEM_CACHE_SIZE = 20_000;

function computeStem(word: string): string {
  let w = word.toLowerCase().replace(/’/g, "'");
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (/\d/.test(w)) return w;
  // plural ("companies" and "applied" read "company", "apply": the y comes back)
  if (w.length >= 5 && /ie[sd]$/.test(w)) return `${w.slice(0, -3)}y`;
  if (w.length >= 5 && w.endsWith('es') && /(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length >= 4 && w.endsWith('s') && !/[siu]s$/.test(w)) w = w.slice(0, -1);
  // verb endings
  if (w.length >= 6 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length >= 5 && w.endsWith('ed') && !w.endsWith('eed')) w = undouble(w.slice(0, -2));
  if (w.length >= 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  return n >= 4 && w[n - 1] === w[n - 2] && /[bcdfgkmnprt]/.test(w[n - 1]!) ? w.slice(0, -1) : w;
}

/** The question's content words: stems, and dotted tokens whole. */
export function contentWords(question: string): string[] {
  return [...questionWords(question).keys()];
}

/** content word → the form the question used (lower-cased), for the exact-form bonus */
export function questionWords(question: string): Map<string, string> {
  const words = new Map<string, string>();
  for (const m of question.toLowerCase().replace(/’/g, "'").matchAll(TOKEN_RE)) {
    const word = m[0];
    if (word.includes('.')) {
      words.set(word, word);
      continue;
    }
    if (STOP_WORDS.has(word) || (word.endsWith("'s") && STOP_WORDS.has(word.slice(0, -2)))) continue;
    const key = stem(word);
    if (!words.has(key)) words.set(key, word);
  }
  return words;
}

/** What a text holds: the stems of its words and its dotted tokens whole (`stems`), and its words as written (`forms`). */
export interface Terms {
  stems: Set<string>;
  forms: Set<string>;
}

export function readTerms(text: string): Terms {
  const stems = new Set<string>();
  const forms = new Set<string>();
  const add = (word: string) => {
    forms.add(word);
    stems.add(stem(word));
  };
  let lower = text.toLowerCase();
  if (lower.includes('’')) lower = lower.replace(/’/g, "'");
  for (const m of lower.matchAll(TOKEN_RE)) {
    const token = m[0];
    if (token.includes('.')) {
      stems.add(token);
      forms.add(token);
      for (const part of token.split('.')) add(part);
    } else add(token);
  }
  return { stems, forms };
}
