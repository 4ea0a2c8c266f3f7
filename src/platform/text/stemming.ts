import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { detectLanguage } from './stop-words.js';

/**
 * Snowball stemmers for the widget's languages, so a question finds a passage whatever the
 * inflection: "croissants" finds "croissant", "cornetti" finds "cornetto", "Lieferungen" finds
 * "Lieferung". The keyword index holds each passage's words stemmed in its agent's language (the
 * `stem_text` SQL function below, called by the index's triggers, migration 0027) and a question's
 * words are stemmed the same way (knowledge/search-query.ts).
 *
 * The agent's language is the widget's (`chatbots.language`). `auto` (the widget follows each
 * visitor's browser, so it says nothing about the language the owner writes in) and anything
 * unknown stem as English: what the index's `porter` tokenizer did before.
 *
 * Each language's stemmer (2-11 KB of code, @orama/stemmers: the Snowball algorithms, and for
 * English Porter's, as the `porter` tokenizer had) is loaded on its first word, synchronously,
 * since SQLite calls `stem_text` inside a statement: a process whose agents all write English
 * loads only the English one.
 */

export const STEM_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const;
export type StemLanguage = (typeof STEM_LANGUAGES)[number];

interface StemmerModule {
  stemmer(word: string): string;
}

// From source (tsx) an ES module has no `require`; in the server bundle esbuild turns each
// literal require() below into a module of the bundle that is evaluated on its first call, and in
// vitest `require` is there too. test/ship/bundle-stemmers.test.ts checks the built server.
const sourceRequire = typeof require === 'function' ? null : createRequire(import.meta.url);
const load = (bundled: () => StemmerModule, id: string): StemmerModule =>
  sourceRequire ? (sourceRequire(id) as StemmerModule) : bundled();

const LOADERS: Record<StemLanguage, () => StemmerModule> = {
  en: () => load(() => require('@orama/stemmers/english'), '@orama/stemmers/english'),
  es: () => load(() => require('@orama/stemmers/spanish'), '@orama/stemmers/spanish'),
  fr: () => load(() => require('@orama/stemmers/french'), '@orama/stemmers/french'),
  de: () => load(() => require('@orama/stemmers/german'), '@orama/stemmers/german'),
  it: () => load(() => require('@orama/stemmers/italian'), '@orama/stemmers/italian'),
  pt: () => load(() => require('@orama/stemmers/portuguese'), '@orama/stemmers/portuguese'),
  nl: () => load(() => require('@orama/stemmers/dutch'), '@orama/stemmers/dutch'),
};

/** The stemming language of an agent's language setting: `auto`, null and unknown codes stem as English. */
export function stemLanguage(language: string | null | undefined): StemLanguage {
  return (STEM_LANGUAGES as readonly string[]).includes(language ?? '') ? (language as StemLanguage) : 'en';
}

/**
 * Stemmed words are remembered per language in two generations of up to this many each: a word
 * is looked up in the current one, then in the one before (and brought forward); when the current
 * one is full it becomes the one before. Words are Zipf-distributed, so the frequent ones stay and
 * a passage's words are mostly found: re-stemming an index runs several times faster than
 * stemming every word (0.4-1 M words/s), for well under a megabyte per language in use.
 */
const GENERATION_SIZE = 4096;

class Stemmer {
  private stem: ((word: string) => string) | null = null;
  private current = new Map<string, string>();
  private previous = new Map<string, string>();
  constructor(private readonly language: StemLanguage) {}

  word(word: string): string {
    // numbers, codes with digits and one- or two-letter words are kept as they are
    if (word.length < 3) return word;
    let stemmed = this.current.get(word);
    if (stemmed !== undefined) return stemmed;
    stemmed = this.previous.get(word);
    if (stemmed === undefined) {
      if (/\d/.test(word)) return word;
      this.stem ??= LOADERS[this.language]().stemmer;
      stemmed = this.stem(word) || word;
    }
    if (this.current.size >= GENERATION_SIZE) {
      this.previous = this.current;
      this.current = new Map();
    }
    // copies: a word cut from a passage (and its stem, cut from the word) may be a view of the
    // passage's whole text, which the cache would otherwise keep alive
    this.current.set(own(word), own(stemmed));
    return stemmed;
  }
}

/** A string of its own: V8 keeps a slice of 13 or more characters as a view of the string it was cut from. */
const own = (s: string): string => (s.length < 13 ? s : ` ${s}`.slice(1));

const stemmers = new Map<StemLanguage, Stemmer>();

function stemmerFor(language: string | null | undefined): Stemmer {
  const lang = stemLanguage(language);
  let stemmer = stemmers.get(lang);
  if (!stemmer) stemmers.set(lang, (stemmer = new Stemmer(lang)));
  return stemmer;
}

/** A lower-cased word's stem in `language` (see stemLanguage). */
export function stemWord(language: string | null | undefined, word: string): string {
  return stemmerFor(language).word(word);
}

/**
 * The words of a text, as FTS5's unicode61 tokenizer splits them (runs of letters, digits and
 * private-use characters; everything else separates), lower-cased.
 */
export function textWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

/** A text's words (textWords), stemmed. */
export function stemWords(language: string | null | undefined, text: string): string[] {
  return textWords(text).map((w) => stemWord(language, w));
}

/**
 * A text as the keyword index holds it: its words stemmed (the characters between them left as
 * they are). For an agent on `auto` each text is stemmed in the language its common words tell
 * (stop-words.ts detectLanguage, English when they tell none): an owner on `auto` may write
 * Italian, and a question to such an agent is searched by its stems in English and in its own
 * language (knowledge/search-query.ts). The same text always stems the same way, and the index
 * deletes a row by its rowid alone (migration 0027), so passages stemmed before this read their
 * English stems until they are stored again or the agent's language changes.
 */
export function stemText(language: string | null | undefined, text: string | null | undefined): string {
  if (!text) return '';
  // the words replaced by their stems in place: what separates them still separates them
  const stemmer = stemmerFor(language === 'auto' ? detectLanguage(text) : language);
  return text.toLowerCase().replace(WORD, (w) => stemmer.word(w));
}

const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * The keyword index's prefix for one partition's terms (an agent's: migration 0039): 'a', the id's
 * UTF-8 bytes in hex, 'x' (not a hex digit, so where the prefix ends is never in doubt). Letters
 * and digits only, so the tokenizer keeps prefix and word together as one term.
 */
export function partitionKey(partitionId: string): string {
  return `a${Buffer.from(partitionId, 'utf8').toString('hex')}x`;
}

/** Every word of `text` with its partition's prefix ("opening hours" -> "a6167...xopening a6167...xhours"). */
export function partitionTerms(partitionId: string, text: string | null | undefined): string {
  if (!text) return '';
  const key = partitionKey(partitionId);
  return text.replace(WORD, (w) => key + w);
}

/**
 * `stem_text(language, text)` and `partition_terms(id, text)` in SQL, for the keyword index's
 * triggers and migrations 0027 and 0039: every connection that writes passages (or an agent's
 * language) needs them (platform/db openDatabase).
 */
export function registerStemFunction(sqlite: Database.Database): void {
  sqlite.function('stem_text', { deterministic: true }, (language: unknown, text: unknown) =>
    stemText(typeof language === 'string' ? language : null, typeof text === 'string' ? text : null),
  );
  sqlite.function('partition_terms', { deterministic: true }, (id: unknown, text: unknown) =>
    partitionTerms(String(id), typeof text === 'string' ? text : null),
  );
}
