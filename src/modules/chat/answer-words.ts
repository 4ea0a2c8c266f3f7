/**
 * The words of a question and of a passage, as the no-model answer (knowledge-answer.ts) compares
 * them: content words without stop words, a crude stem, dotted tokens ("4.99", "v2.3.1") whole.
 */

import { lexiconSynonyms } from '../../platform/text/paraphrases.js';
import { STEM_LANGUAGES, stemLanguage, stemWord } from '../../platform/text/stemming.js';
import { detectLanguage, isStopWord } from '../../platform/text/stop-words.js';
import { synonymTerms } from '../agents/index.js';

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
  /** the stems in the text's order (the word reader's reading only) */
  order?: string[];
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

/**
 * How the no-model answer reads words, the way retrieval does (knowledge/search-query.ts): an
 * agent writing English by the crude stem above (an agent on `auto`: the question's language,
 * platform/text/stop-words.ts detectLanguage, English when it tells none); one writing another of the
 * widget's languages by that language's Snowball stemmer (platform/text/stemming.ts), its stop
 * words left out besides the English ones, and the elided article of "l'acqua" or "d'été" split
 * off as the keyword index does. The owner's synonyms ("cornetto = croissant"): a question word of
 * a term of a group counts as held by a text that holds another term of the group, a phrase's
 * words together and in order ("opening times", not "open" here and "time" there).
 */
export interface AnswerVocabulary {
  /** the agent's language setting (`chatbots.language`) */
  language?: string | null;
  /** the owner's synonym groups, one a line: "cornetto = croissant = brioche" */
  synonyms?: readonly string[];
}

export interface WordReader {
  /** a lower-cased word's stem */
  stem(word: string): string;
  /** the question's content words (stem → the form the question used) */
  asked: Map<string, string>;
  /** what a text holds, a question word named by a synonym the text holds included */
  readTerms(text: string): Terms;
  /** the question's content words that stand next to each other in it ("item 12", "opening hours") */
  pairs: Array<[string, string]>;
}

export function wordReader(question: string, vocabulary: AnswerVocabulary = {}): WordReader {
  // an agent on `auto` (or none) may write in any of the languages: the question's own, told by
  // its stop words ("Avete cornetti vegani?" is Italian), English when it has none
  const known = (STEM_LANGUAGES as readonly string[]).includes(vocabulary.language ?? '');
  const language = known ? stemLanguage(vocabulary.language) : detectLanguage(question);
  const stemOf = language === 'en' ? stem : (w: string) => stemWord(language, w);
  const split = (token: string) => (language === 'en' ? [token] : token.split("'").filter(Boolean));
  const isStop = (w: string) => STOP_WORDS.has(w) || (language !== 'en' && isStopWord(language, w));

  const asked = new Map<string, string>();
  const sequence: string[] = [];
  for (const m of normalise(question).matchAll(TOKEN_RE)) {
    if (m[0].includes('.')) {
      asked.set(m[0], m[0]);
      sequence.push(m[0]);
      continue;
    }
    const parts = split(m[0]);
    for (const word of parts) {
      const key = stemOf(word);
      sequence.push(key);
      // the elided article of "l'acqua", "d'été" is no word of the question
      if (
        isStop(word) ||
        (parts.length > 1 && word.length === 1) ||
        (word.endsWith("'s") && STOP_WORDS.has(word.slice(0, -2)))
      )
        continue;
      if (!asked.has(key)) asked.set(key, word);
    }
  }

  // question word → the other terms of its synonym groups, each as its stems
  const alternatives = new Map<string, string[][]>();
  const termStems = (term: string) => [...normalise(term).matchAll(TOKEN_RE)].flatMap((m) => split(m[0]).map(stemOf));
  const said = ` ${sequence.join(' ')} `;
  const saidWords = new Set(sequence);
  // the built-in lexicon's groups (platform/text/paraphrases.ts, read once per language) count as the owner's do
  const groups = [
    ...lexiconGroups(language, () => lexiconSynonyms(language).map((line) => synonymTerms(line).map(termStems))),
    ...(vocabulary.synonyms ?? []).map((line) => synonymTerms(line).map(termStems)),
  ];
  for (const group of groups) {
    if (!group.some((term) => term.length > 0 && saidWords.has(term[0]!))) continue;
    for (const term of group) {
      if (term.length === 0 || !said.includes(` ${term.join(' ')} `)) continue;
      const others = group.filter((t) => t !== term && t.length > 0);
      for (const w of term) if (asked.has(w)) alternatives.set(w, [...(alternatives.get(w) ?? []), ...others]);
    }
  }

  const read = (text: string): Terms => {
    const stems = new Set<string>();
    const forms = new Set<string>();
    // the stems in order, for a phrase of a synonym group: its words must stand together
    const order: string[] = [];
    const add = (word: string) => {
      forms.add(word);
      const key = stemOf(word);
      stems.add(key);
      order.push(key);
    };
    for (const m of normalise(text).matchAll(TOKEN_RE)) {
      const token = m[0];
      if (token.includes('.')) {
        stems.add(token);
        forms.add(token);
        for (const part of token.split('.')) for (const w of split(part)) add(w);
      } else {
        if (language !== 'en' && token.includes("'")) forms.add(token);
        for (const w of split(token)) add(w);
      }
    }
    let sequence: string | undefined;
    const holds = (alt: string[]) =>
      alt.length === 1
        ? stems.has(alt[0]!)
        : alt.every((s) => stems.has(s)) && (sequence ??= ` ${order.join(' ')} `).includes(` ${alt.join(' ')} `);
    for (const [w, alts] of alternatives) if (!stems.has(w) && alts.some(holds)) stems.add(w);
    return { stems, forms, order };
  };
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < sequence.length; i++)
    if (asked.has(sequence[i]!) && asked.has(sequence[i + 1]!)) pairs.push([sequence[i]!, sequence[i + 1]!]);
  return { stem: stemOf, asked, readTerms: read, pairs };
}

/**
 * What a row (of a table, list or record) gains for the question's neighbouring words it holds side
 * by side, half the lighter word's weight a pair: "Item 12 | Price: 30.00" answers "the price of
 * Item 12?" before "Item 4 | Price: 10.00 | Stock: 12", which holds every word too. Rows only: rows
 * alike but for their names are where words apart mislead; given to every sentence, it lowered
 * the answers in the documents' words (third-party 1 -> 0.94), and a heading naming the thing
 * asked ("Gift wrapping") outranked the label that answers ("Price: $4.99").
 */
export function adjacencyBonus(terms: Terms, pairs: Array<[string, string]>, weights: Map<string, number>): number {
  if (pairs.length === 0 || !terms.order) return 0;
  const said = ` ${terms.order.join(' ')} `;
  let bonus = 0;
  for (const [a, b] of pairs)
    if (said.includes(` ${a} ${b} `)) bonus += 0.5 * Math.min(weights.get(a) ?? 0, weights.get(b) ?? 0);
  return bonus;
}

/** the lexicon's groups as the answer reads them (each term as its stems), per language */
const readLexicon = new Map<string, string[][][]>();
function lexiconGroups(language: string, read: () => string[][][]): string[][][] {
  let groups = readLexicon.get(language);
  if (!groups) readLexicon.set(language, (groups = read()));
  return groups;
}

function normalise(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes('’') ? lower.replace(/’/g, "'") : lower;
}
