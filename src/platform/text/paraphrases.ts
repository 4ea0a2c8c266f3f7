import lexicon from './paraphrases.json' with { type: 'json' };
import { stemLanguage, type StemLanguage } from './stemming.js';

/**
 * A small built-in lexicon of the ways visitors say what documents say otherwise, per language, in
 * the form of the owner's synonyms (one group a line, "cost = price = fee"): the keyword search
 * adds the group's other terms to a question naming one of them (knowledge/search-query.ts), and
 * the no-model answer counts a question word as held by a text holding another term of its group
 * (chat/answer-words.ts). Unlike the owner's synonyms, a lexicon word the agent's knowledge holds
 * nowhere, nor any other term of its group, stays a word the knowledge does not know.
 *
 * Kept to pairs that mean the same in any business's documents (no domain terms, which are the
 * owner's to add), and to the forms of irregular English verbs that a stemmer does not join
 * ("wrote", "written": "write"), leaving out those that are also other words ("left", "saw",
 * "found"). The groups are data, in paraphrases.json (a few kilobytes).
 */
const LEXICON: Record<StemLanguage, readonly string[]> = lexicon;

/** The lexicon's groups for an agent's language (`auto`, null and unknown: English), one a line as the owner's synonyms are written. */
export function lexiconSynonyms(language: string | null | undefined): readonly string[] {
  return LEXICON[stemLanguage(language)];
}
