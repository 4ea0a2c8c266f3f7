import { questionKey } from './question-key.js';

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
 * content words (questionKey: lower-cased, stop words out) are among the qa question's, and at
 * least one is.
 */
export function qaMatches(qaQuestion: string, query: string): boolean {
  const asked = questionKey(query).split(' ').filter(Boolean);
  if (asked.length === 0) return false;
  const known = new Set(questionKey(qaQuestion).split(' '));
  const shared = asked.filter((w) => known.has(w)).length;
  return shared > 0 && shared * 2 >= asked.length;
}

/**
 * An FTS5 query from free text: the distinct content words, each quoted (so no user input is
 * read as FTS syntax), OR-ed so that passages matching more words rank higher under bm25.
 *
 * One-letter words are kept: the question is often about exactly one ("install R packages", "a C
 * compiler", "the X axis", "plan B"), and the index (unicode61) holds them. The one-letter English
 * words "a" and "I" are stop words. Dropped too is a letter that is only part of a word with an
 * apostrophe, which would match any passage with a contraction or a possessive: the ending of
 * "what's", "don't", "I'm", and the elided article of "l'été", "d'Artagnan"; but the R of "R's".
 * A hyphenated word is searched as the phrase of its parts or as one word (below).
 */
export function ftsQuery(text: string): string | null {
  const terms: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:['\u2019-][\p{L}\p{N}]+)*/gu)) {
    // a hyphenated word ("e-mail", "wi-fi", "x-200") is a phrase of its parts, or the parts
    // written together: its one-letter part alone would match any passage with that letter
    const [first, ...rest] = word.split('-');
    if (rest.length > 0) {
      const parts = [first!, ...rest].map((p) => p.replace(/['\u2019].*$/, ''));
      terms.push(`"${parts.join(' ')}"`, `"${parts.join('')}"`);
      continue;
    }
    const parts = word.split(/['\u2019]/);
    parts.forEach((part, i) => {
      const fragment = parts.length > 1 && part.length === 1 && !(i === 0 && parts[1]!.length === 1);
      if (!fragment && !STOPWORDS.has(part)) terms.push(`"${part}"`);
    });
  }
  const unique = [...new Set(terms)].slice(0, 32);
  if (unique.length === 0) return null;
  return unique.join(' OR ');
}
