import { lexiconSynonyms } from '../../platform/text/paraphrases.js';
import { stemWords, stemWord } from '../../platform/text/stemming.js';
import { detectLanguage } from '../../platform/text/stop-words.js';
import { synonymTerms } from '../agents/index.js';
import { questionKey } from './question-key.js';
import { editDistance } from './word-distance.js';

// What a visitor's question is searched by (KnowledgeService.search): the keyword query of its
// content words, and whether it is the question of an owner's Q&A.

const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could do does did for from had has have how i if in into is it its me my no not of on or our ' +
    'so that the their them then there these they this to us was we were what when where which who why will with would you your ' +
    'about any all am been being get got just more most some such than too very was were wat whats hi hello please thanks'
  ).split(' '),
);

/**
 * Whether a qa source's question matches a visitor's question: at least half of the visitor's
 * content words (questionKey: lower-cased, stop words out), stemmed in the agent's language, are
 * among the qa question's, and at least one is ("croissants costs?" matches "What does a
 * croissant cost?").
 */
export function qaMatches(qaQuestion: string, query: string, language?: string | null): boolean {
  const words = (text: string) =>
    questionKey(text)
      .split(' ')
      .filter(Boolean)
      .map((w) => stemWord(language, w));
  const asked = [...new Set(words(query))];
  if (asked.length === 0) return false;
  const known = new Set(words(qaQuestion));
  const shared = asked.filter((w) => known.has(w)).length;
  return shared > 0 && shared * 2 >= asked.length;
}

/**
 * What a question's words are searched as, besides themselves: the agent's language (the index
 * holds words stemmed in it, platform/text/stemming.ts), the owner's synonyms ("cornetto =
 * croissant") and, for a word the index does not have, the index's terms one or two typos away.
 */
export interface QueryVocabulary {
  /** the agent's language setting (`chatbots.language`); `auto` and null stem as English */
  language?: string | null;
  /** the owner's synonym groups, one a line: "cornetto = croissant = brioche" (agents/schemas.ts) */
  synonyms?: readonly string[];
  /** the index's terms near a stem it does not hold (typos), best first; absent: no typo look-up */
  nearTerms?: (stem: string) => string[];
}

/** A typo look-up for words of at least this many letters (shorter words have too many neighbours). */
const MIN_TYPO_LENGTH = 4;
/** ... and for the first this many of them: each unknown one reads a slice of the index's terms */
const MAX_TYPO_WORDS = 8;

/**
 * An FTS5 query from free text: the distinct content words, each stemmed in the agent's language
 * and quoted (so no user input is read as FTS syntax), OR-ed so that passages matching more words
 * rank higher under bm25; then the other terms of the owner's synonym groups the question names,
 * and the index's terms near a word it does not hold (a typo). At most 32 terms.
 *
 * One-letter words are kept: the question is often about exactly one ("install R packages", "a C
 * compiler", "the X axis", "plan B"), and the index (unicode61) holds them. The one-letter English
 * words "a" and "I" are stop words. Dropped too is a letter that is only part of a word with an
 * apostrophe, which would match any passage with a contraction or a possessive: the ending of
 * "what's", "don't", "I'm", and the elided article of "l'été", "d'Artagnan"; but the R of "R's".
 * A hyphenated word is searched as the phrase of its parts or as one word (below).
 */
export function ftsQuery(text: string, vocabulary: QueryVocabulary = {}): string | null {
  // an agent on `auto`: its passages are stemmed in the language each is written in
  // (platform/text/stemming.ts stemText), the question in English and in its own language
  if (vocabulary.language === 'auto') {
    const asked = detectLanguage(text);
    const english = ftsQuery(text, { ...vocabulary, language: 'en' });
    if (asked === 'en' || english === null) return english;
    const own = ftsQuery(text, { ...vocabulary, language: asked, nearTerms: undefined }) ?? '';
    return [...new Set([...own.split(' OR '), ...english.split(' OR ')])].slice(0, 32).join(' OR ');
  }
  const stem = (word: string) => stemWord(vocabulary.language, word);
  const terms: string[] = [];
  const typoCandidates: string[] = [];
  // neighbouring content words, searched as a phrase too: a passage saying "Item 12" ranks above
  // one saying "Item 4 ... Stock: 12" (bm25 scores the phrase as one more term)
  const pairs: string[] = [];
  let previous: string | null = null;
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:['\u2019-][\p{L}\p{N}]+)*/gu)) {
    // a hyphenated word ("e-mail", "wi-fi", "x-200") is a phrase of its parts, or the parts
    // written together: its one-letter part alone would match any passage with that letter
    const [first, ...rest] = word.split('-');
    if (rest.length > 0) {
      const parts = [first!, ...rest].map((p) => p.replace(/['\u2019].*$/, ''));
      terms.push(`"${parts.map(stem).join(' ')}"`, `"${stem(parts.join(''))}"`);
      previous = null;
      continue;
    }
    const parts = word.split(/['\u2019]/);
    parts.forEach((part, i) => {
      const fragment = parts.length > 1 && part.length === 1 && !(i === 0 && parts[1]!.length === 1);
      if (fragment || STOPWORDS.has(part)) {
        previous = null;
        return;
      }
      const stemmed = stem(part);
      terms.push(`"${stemmed}"`);
      if (previous !== null && parts.length === 1) pairs.push(`"${previous} ${stemmed}"`);
      previous = parts.length === 1 ? stemmed : null;
      if (part.length >= MIN_TYPO_LENGTH && !/\d/.test(part)) typoCandidates.push(stemmed);
    });
  }
  if (terms.length === 0) return null;
  terms.push(...pairs, ...synonymQueryTerms(text, vocabulary));
  if (vocabulary.nearTerms) {
    for (const stemmed of [...new Set(typoCandidates)].slice(0, MAX_TYPO_WORDS)) {
      for (const near of vocabulary.nearTerms(stemmed)) terms.push(`"${near}"`);
    }
  }
  return [...new Set(terms)].slice(0, 32).join(' OR ');
}

/**
 * The terms of the owner's synonym groups that the question names one of, but the others: a
 * term is named when its stemmed words stand in the question's stemmed words in that order
 * ("gift card = voucher": "a voucher?" searches "gift card" as a phrase, "gift cards?" searches
 * "voucher"). Each as an FTS5 phrase of stems.
 */
function synonymQueryTerms(text: string, { language, synonyms = [] }: QueryVocabulary): string[] {
  const stemmed = (t: string) => stemWords(language, t).join(' ');
  const words = stemWords(language, text);
  const single = new Set(words);
  const asked = ` ${words.join(' ')} `;
  const names = (t: string) => (t.includes(' ') ? asked.includes(` ${t} `) : single.has(t));
  const out: string[] = [];
  // the built-in lexicon's groups (platform/text/paraphrases.ts), then the owner's
  for (const group of [...lexiconGroups(language), ...synonyms.map((line) => synonymTerms(line).map(stemmed))]) {
    if (!group.some((t) => t && names(t))) continue;
    const named = group.filter((t) => t && names(t));
    for (const t of group) if (t && !named.includes(t)) out.push(`"${t}"`);
  }
  return out;
}

/** the lexicon's groups, each term as its stems joined by spaces, per language (the lexicon is fixed: stemmed once) */
const stemmedLexicon = new Map<string, string[][]>();
function lexiconGroups(language: string | null | undefined): string[][] {
  const key = language ?? '';
  let groups = stemmedLexicon.get(key);
  if (!groups) {
    groups = lexiconSynonyms(language).map((line) => synonymTerms(line).map((t) => stemWords(language, t).join(' ')));
    stemmedLexicon.set(key, groups);
  }
  return groups;
}

/**
 * Whether a word (as stems in `language`) is a term of a lexicon group another term of which the
 * agent holds, every word of it: "price" asked of knowledge that says "cost".
 */
function heldByLexicon(language: string, stems: string[], holds: (stem: string) => boolean): boolean {
  for (const group of lexiconGroups(language)) {
    if (!group.some((t) => stems.includes(t))) continue;
    if (group.some((t) => !stems.includes(t) && t.split(' ').every((w) => holds(w)))) return true;
  }
  return false;
}

/**
 * The question's words that an agent's knowledge holds nowhere (lower-cased, as the keyword
 * index's tokenizer splits them): not the word's stem in the agent's language (on `auto`, in
 * English or in the question's own language) nor that stem less its last one or two letters, not an index term a typo away that the agent holds
 * ("shiping"; TYPO_EDITS), not part of a term of the owner's synonym groups. "Do you ship to Canada?" asked of
 * a manual that never says "Canada": the manual cannot answer it, however well "ship" matches
 * (chat/answer-gate.ts weighs such a word heavily). Stop words and one-letter words are left out.
 */
export function unknownWords(
  text: string,
  vocabulary: QueryVocabulary & { holds: (stem: string) => boolean },
): Set<string> {
  const languages =
    vocabulary.language === 'auto' ? [...new Set(['en', detectLanguage(text)])] : [vocabulary.language ?? 'en'];
  // the words of the owner's synonym groups, as stems: "croissants" of "cornetto = croissant"
  const synonymStems = new Set(
    (vocabulary.synonyms ?? []).flatMap((line) =>
      synonymTerms(line).flatMap((t) => languages.flatMap((l) => stemWords(l, t))),
    ),
  );
  const unknown = new Set<string>();
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (word.length < 2 || STOPWORDS.has(word) || unknown.has(word)) continue;
    const stems = [...new Set(languages.map((l) => stemWord(l, word)))];
    if (stems.some((s) => synonymStems.has(s))) continue;
    // the stem, or it less a letter or two: stemmers disagree on endings (Italian "vegano" is
    // held as "veg", "vegani" stems "vegan")
    const cut = (s: string) => [s, s.slice(0, -1), s.slice(0, -2)].filter((p) => p === s || p.length >= 3);
    if (stems.some((s) => cut(s).some((p) => vocabulary.holds(p)))) continue;
    if (languages.some((l) => heldByLexicon(l, [stemWord(l, word)], vocabulary.holds))) continue;
    const typo =
      word.length >= MIN_TYPO_LENGTH &&
      !/\d/.test(word) &&
      stems.some((s) =>
        (vocabulary.nearTerms?.(s) ?? []).some(
          (near) => editDistance(s, near, TYPO_EDITS(s)) <= TYPO_EDITS(s) && vocabulary.holds(near),
        ),
      );
    if (!typo) unknown.add(word);
  }
  return unknown;
}

/**
 * A typo, for unknownWords: one edit, two in a word of 8 letters or more. Stricter than the
 * search's look-up (two edits from 6 letters), which may well widen the search: "paypal" is two
 * edits from "payabl(e)", but no misspelling of it.
 */
const TYPO_EDITS = (stem: string) => (stem.length >= 8 ? 2 : 1);
