/**
 * Whether a passage answers the question, for the no-model answer (knowledge-answer.ts), and what
 * kind of answer the question wants.
 *
 * A passage answers when its words, with its page title and headings, hold at least
 * {@link MIN_COVERAGE} of the question's weight. A question word weighs ln(1 + N / df), N the
 * number of candidate passages retrieval gave, df the number holding the word: a word in every
 * candidate ("SQLite" in an SQLite FAQ, "router" in a router manual) weighs ln 2 and says little
 * about which passage answers; a word in one of five weighs ln 6. A word in no candidate ("gym"
 * asked of a bakery, "charge" asked of a rate table that says "Cost") weighs the mean of the others:
 * the knowledge may say it in other words, or not at all. A word the agent's whole knowledge holds
 * nowhere (typos and the owner's synonyms aside) weighs a tenth more than the heaviest held word:
 * "Do you ship to Canada?" of a shop that never says "Canada" is not half answered by "ship". With
 * one candidate every other word weighs the same: half the question's words.
 *
 * The margin: when the best sentence does not hold all the question's topic words and another
 * sentence, elsewhere, holds the same ones and scores as high, nothing stands out: the question
 * asks about what the two lack ("How do I encrypt an SQLite database?" of an FAQ whose entries all
 * say "SQLite database"), and the answer is the no-answer message.
 *
 * Frame words ("abbreviation", "stand for", "meaning", "kind of") say what form the answer takes,
 * not what it is about: they are left out (unless the question has no other word), so "What does
 * the abbreviation CRAN stand for?" is answered as "What does CRAN stand for?" is, and a passage
 * about a router that "stands in a small flat" does not answer "What does GDPR stand for?".
 */

import { stem, type Terms } from './answer-words.js';

/** the share of the question's weight a passage (with its title and headings) must hold */
export const MIN_COVERAGE = 0.5;

const FRAME_WORDS = new Set(
  (
    'abbreviation abbreviations abbreviated acronym acronyms stand stands meaning meanings mean means meant ' +
    'definition define defined called exactly example examples kind kinds type types sort sorts way ways ' +
    'possible available option options detail details say says said tell'
  )
    .split(/\s+/)
    .map(stem),
);

/** The question's content words that name its subject: all but frame words (all of them if nothing else is left). */
export function topicWords(words: string[]): string[] {
  const topic = words.filter((w) => !FRAME_WORDS.has(w));
  return topic.length > 0 ? topic : words;
}

/**
 * Each question word's weight over the candidates' terms (content, title and heading of each).
 * `unknown`: the words the agent's whole knowledge holds nowhere (not merely the candidates),
 * typos and synonyms aside: such a word weighs a tenth more than the heaviest word the candidates
 * hold, so a question turning on it ("Do you ship to Canada?", "Can I pay by PayPal?") is not
 * answered by a passage sharing its other word, while a longer question with one stray word ("How
 * much paid time off do full-time staff get?" of a handbook saying "employees") still is.
 */
export function wordWeights(
  words: string[],
  candidates: Array<Set<string>>,
  unknown: ReadonlySet<string> = new Set(),
): Map<string, number> {
  const n = Math.max(1, candidates.length);
  const weights = new Map<string, number>();
  const absent: string[] = [];
  for (const w of words) {
    const df = candidates.reduce((sum, terms) => sum + (terms.has(w) ? 1 : 0), 0);
    if (df === 0) absent.push(w);
    else weights.set(w, Math.log(1 + n / df));
  }
  const present = [...weights.values()];
  const mean = present.length > 0 ? present.reduce((a, b) => a + b, 0) / present.length : Math.LN2;
  const heaviest = Math.max(Math.LN2, ...present);
  for (const w of absent) weights.set(w, unknown.has(w) ? 1.1 * heaviest : mean);
  return weights;
}

/** The share of the weight of the question's topic words that `has` holds (frame words count neither way). */
export function coverage(words: string[], weights: Map<string, number>, has: (w: string) => boolean): number {
  let total = 0;
  let held = 0;
  for (const w of topicWords(words)) {
    const weight = weights.get(w) ?? 0;
    total += weight;
    if (has(w)) held += weight;
  }
  return total > 0 ? held / total : 0;
}

/**
 * Whether the passage at `index` of the candidates stands out: it holds at least
 * {@link STRONG_COVERAGE} of the question's weight (with its title and headings) and every other
 * candidate at least {@link COVERAGE_MARGIN} less. Then its best sentence answers when it holds
 * {@link MIN_ENTRY_COVERAGE} of the weight, not half: a FAQ entry answers "Why is .3 + .6 not the
 * same as .9 in my calculation?" with "R> .3 + .6 == .9" though its words for "same" are
 * elsewhere in the entry and "calculation" in none.
 */
export function standsOut(
  words: string[],
  weights: Map<string, number>,
  candidates: Array<Set<string>>,
  index: number,
): boolean {
  const share = (terms: Set<string>) => coverage(words, weights, (w) => terms.has(w));
  const own = share(candidates[index]!);
  return own >= STRONG_COVERAGE && candidates.every((c, i) => i === index || share(c) <= own - COVERAGE_MARGIN);
}

/** the share a passage that stands out must hold, the margin by which it stands out, and what its best sentence must hold then */
const STRONG_COVERAGE = 0.65;
const COVERAGE_MARGIN = 0.2;
export const MIN_ENTRY_COVERAGE = 1 / 3;

/** whether a content word is a frame word (it weighs little in choosing the sentence to quote) */
export function isFrameWord(word: string): boolean {
  return FRAME_WORDS.has(word);
}

/** the terms of a passage with its title and heading, as retrieval's keyword index reads them */
export function passageTerms(contentTerms: Terms[], context: Terms): Set<string> {
  const all = new Set(context.stems);
  for (const t of contentTerms) for (const s of t.stems) all.add(s);
  return all;
}

/**
 * Whether the question asks for a list ("What breads do you have?", "Which plans are there?",
 * "What kinds of cake do you make?", "List your opening days"): then the answer quotes the rows of
 * the list its best sentence belongs to (or that a heading naming it leads into), and more
 * sentences than for a single fact. English
 * wordings only; in other languages the answer stays as for a single fact.
 */
export function asksForList(question: string): boolean {
  const q = question.trim().toLowerCase();
  if (/^(?:please\s+)?(?:list|name)\b/.test(q) || /\b(?:list|all)\s+(?:of\s+)?(?:the|your|our)\b/.test(q)) return true;
  if (/^(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b/.test(q)) return true;
  // "what are your prices": a plural right after "what/which are (the/your/our)"
  const are = /^(?:what|which)\s+are\s+(?:the\s+|your\s+|our\s+)?([\p{L}-]+)/u.exec(q)?.[1];
  if (are) return !NOT_A_NOUN.test(are) && isPlural(are);
  // "what breads", "which plans", "what vegan options": a plural right after what/which, or after one more word
  const [, first, second] = /^(?:what|which)\s+([\p{L}-]+)(?:\s+([\p{L}-]+))?/u.exec(q) ?? [];
  if (!first || NOT_A_NOUN.test(first)) return false;
  return isPlural(first) || (second !== undefined && !NOT_A_NOUN.test(second) && isPlural(second));
}

const NOT_A_NOUN =
  /^(?:is|are|was|were|does|do|did|has|have|had|can|could|should|would|will|shall|may|might|must|this|that|these|those|the|a|an|your|our|my|their|its|his|her|of|to|in|on|at|for|about|happens|means|makes|takes|goes|comes|costs|needs|works|causes|says|gets|looks|seems|counts|helps|requires|includes)$/;

function isPlural(word: string): boolean {
  return word.length > 3 && /[^su]s$/.test(word) && stem(word) !== word;
}

/**
 * For a question asking what something is or stands for ("What is R?", "Who is Anna Rossi?", "What
 * does CRAN stand for?", "What does ECCN mean?"): whether a sentence defines it, by saying "R is …",
 * "CRAN, the …", "CRAN (…)", "CRAN stands for …" or "… (ECCN)". Else null.
 */
export function definitionOf(question: string): ((sentence: string) => boolean) | null {
  const q = question.trim();
  const subject =
    /^(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(.+?)[\s?.!]*$/i.exec(q)?.[1] ??
    /^what\s+(?:does|do|did)\s+(?:the\s+)?(?:(?:abbreviation|acronym|word|term|name)\s+)?(.+?)\s+(?:stand\s+for|mean)[\s?.!]*$/i.exec(
      q,
    )?.[1] ??
    /^what\s+is\s+the\s+meaning\s+of\s+(?:the\s+)?(?:(?:abbreviation|acronym|word|term)\s+)?(.+?)[\s?.!]*$/i.exec(
      q,
    )?.[1];
  if (!subject) return null;
  const x = escapeRegExp(subject.trim());
  const forms = [
    new RegExp(`^${x}\\s+(?:is|are|was|were)\\b`, 'i'),
    new RegExp(
      `(?:^|[^\\p{L}\\p{N}])${x}(?:,\\s+(?:the|an?)\\s|\\s+\\(|\\s+(?:stands|stood)\\s+for\\b|\\s+means\\b)`,
      'iu',
    ),
    new RegExp(`\\(${x}\\)`, 'i'),
  ];
  return (sentence) => forms.some((re) => re.test(sentence));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
