/**
 * The answer when the agent's LLM provider has no key: the sentences of the retrieved passages
 * that answer the question, quoted exactly, with their sources.
 *
 * 1. The question's content words: its words lower-cased, minus English stop words (one-letter
 *    words other than "a"/"i" are kept, so "R" or "C" count), compared by a crude stem so
 *    "prices"/"pricing"/"price" and "installing"/"install" match. Dotted tokens ("4.99",
 *    "v2.3.1", "192.168.8.1", "as.numeric") are one content word, matched whole.
 * 2. Relevance: the keyword index ORs the question's words, so a passage it returns may share just
 *    one common word with the question. A passage counts when its words (content, title and
 *    heading, as the keyword index sees them) cover at least half of the content words (rounded
 *    up, at least one), or when the vector index found it within {@link MAX_VECTOR_DISTANCE}; a
 *    passage found only by the vector index counts only by its distance.
 * 3. The best three relevant passages (as ranked) are cut into sentences and lines; each sentence
 *    scores the sum of the weights of the content words it holds, a word's weight being
 *    ln(1 + N / df), N the number of sentences and df the number holding the word: a word in every
 *    sentence ("plan" on a pricing page) weighs ln 2 ≈ 0.7, a word in one sentence of thirty
 *    ("annually") ln 31 ≈ 3.4; a word in the question's own form ("billing", not "billed") counts
 *    a tenth more, which only breaks ties. The best sentence is taken, then others scoring at least
 *    half of it, at most three, within {@link QUOTE_BUDGET} characters; a short lead-in (a heading,
 *    a label such as "Price:", an FAQ question) brings the sentence after it, a short complete
 *    sentence or a record line does not. A sentence repeated by overlapping passages counts once.
 * 4. The sentences are quoted per passage in document order, as Markdown block quotes, each
 *    followed by its citation when the agent shows sources.
 *
 * Pure and synchronous: a few hundred microseconds for three passages of 2,400 characters.
 */

import { citation } from './answer-citation.js';
import { isLeadIn, type Sentence, separatorAfter, splitSentences, TABLE_ROW, tableHeader } from './answer-sentences.js';
import { questionWords, readTerms, stem, type Terms, TOKEN_RE } from './answer-words.js';

export interface AnswerPassage {
  content: string;
  sourceId: string;
  sourceName: string;
  /** page title (websites) or document title, if any */
  title: string | null;
  /** the page's own URL (websites), else null */
  pageUrl: string | null;
  /** PDF page number, else null */
  page: number | null;
  /** heading path like "Setup > Reset", else null */
  heading: string | null;
  /** found by the keyword index */
  keywordMatch: boolean;
  /** cosine distance from the question when the vector index found it, else null */
  distance: number | null;
  /** a Q&A source whose question matches: the owner's answer (set only when it matches) */
  qaAnswer?: string | null;
  /** the passage of a Q&A source: the owner's question and answer (whether or not it matches), else null */
  qa?: { question: string; answer: string } | null;
}

export const DEFAULT_NO_ANSWER = 'I could not find that in our information.';

export interface KnowledgeAnswer {
  text: string;
  /** the passages quoted, in the order quoted */
  used: AnswerPassage[];
  /** false when nothing relevant matched (text is the no-answer message) */
  found: boolean;
}

export interface KnowledgeAnswerOptions {
  /** the owner's message for a question the knowledge does not answer; empty or null = the default */
  noAnswer?: string | null;
  /** whether each quote is followed by its "Source: ..." line */
  showSources: boolean;
}

export const ANSWER_INTRO = 'Here is what I found in our information:';
/** a passage found only by the vector index is relevant within this cosine distance */
export const MAX_VECTOR_DISTANCE = 0.35;
/** at most this many relevant passages are read, and this many sentences picked */
const MAX_PASSAGES = 5;
const MAX_SENTENCES = 3;
/** the quoted sentences together stay within about this many characters */
const QUOTE_BUDGET = 450;
/** a longer sentence is quoted as a window of about this size around its first matching word */
const MAX_SENTENCE_CHARS = 400;
/** a sentence shorter than this (a heading, a label) brings the one after it */

// ---------------------------------------------------------------------------------------------
// the answer

interface Scored extends Sentence {
  passage: number;
  /** the text with white space collapsed, lower-cased: the same sentence in two overlapping passages */
  key: string;
  terms: Terms;
  score: number;
}

export function knowledgeOnlyAnswer(
  question: string,
  passages: AnswerPassage[],
  options: KnowledgeAnswerOptions,
): KnowledgeAnswer {
  const noAnswer: KnowledgeAnswer = { text: options.noAnswer?.trim() || DEFAULT_NO_ANSWER, used: [], found: false };
  // the owner wrote the answer to this question (a Q&A source, ranked first when it matches): it is
  // the answer, in their words, not sentences quoted out of "Q: … A: …"
  const qa = passages[0];
  if (qa?.qaAnswer?.trim()) {
    const text = options.showSources ? `${qa.qaAnswer.trim()}\n\n${citation(qa)}` : qa.qaAnswer.trim();
    return { text, used: [qa], found: true };
  }
  const asked = questionWords(question);
  const words = [...asked.keys()];
  const needed = Math.max(1, Math.ceil(words.length / 2));

  // each candidate's sentences, read once: their terms serve both relevance and scoring
  const relevant: AnswerPassage[] = [];
  const perPassage: Scored[][] = [];
  for (const p of passages) {
    if (relevant.length >= MAX_PASSAGES) break;
    if (!p.content || !/\S/.test(p.content)) continue;
    const close = isClose(p);
    if (!close && (!p.keywordMatch || words.length === 0)) continue;
    const passage = relevant.length;
    const sentences: Scored[] = splitSentences(p.content).map((s, index) => ({
      ...s,
      index,
      passage,
      key: s.text.replace(/\s+/g, ' ').toLowerCase(),
      terms: readTerms(s.text),
      score: 0,
    }));
    if (!close) {
      const context = readTerms(`${p.title ?? ''}\n${p.heading ?? ''}`).stems;
      let covered = 0;
      for (const w of words) if (context.has(w) || sentences.some((s) => s.terms.stems.has(w))) covered++;
      if (covered < needed) continue;
    }
    relevant.push(p);
    perPassage.push(sentences);
  }
  if (relevant.length === 0) return noAnswer;

  // a sentence repeated by an overlapping passage counts (and is quoted) once
  const seen = new Set<string>();
  const all: Scored[] = [];
  for (const s of perPassage.flat()) {
    if (seen.has(s.key)) continue;
    seen.add(s.key);
    all.push(s);
  }

  const weights = new Map<string, number>();
  for (const w of words) {
    const df = all.reduce((n, s) => n + (s.terms.stems.has(w) ? 1 : 0), 0);
    if (df > 0) weights.set(w, Math.log(1 + all.length / df));
  }
  for (const s of all) {
    const content = relevant[s.passage]!.content;
    // a table's header row is only column names; a body row is read with them (as records are)
    if (TABLE_ROW.test(s.text.trim()) && separatorAfter(s, content)) continue;
    const headerTerms = tableHeader(perPassage[s.passage]!, s.index, content)?.header.terms;
    for (const [w, weight] of weights) {
      const inRow = s.terms.stems.has(w);
      if (!inRow && !headerTerms?.stems.has(w)) continue;
      // the question's own form ("billing", not "billed") counts a tenth more: it breaks ties;
      // a column name counts less than the row's own words
      const own = inRow && s.terms.forms.has(asked.get(w)!) ? weight * 1.1 : weight;
      s.score += inRow ? own : weight * 0.5;
    }
  }

  // "What is R?": a sentence that says what it is ("R is a system for…") answers it
  const subject = /^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(.+?)[\s?.!]*$/i
    .exec(question)?.[1]
    ?.toLowerCase();
  if (subject) {
    const bonus = Math.max(0, ...weights.values());
    for (const s of all)
      if (new RegExp(`^${escapeRegExp(subject)}\\s+(?:is|are|was|were)\\b`, 'i').test(s.text.trim())) s.score += bonus;
  }

  const picked = new Set<Scored>();
  const pickedKeys = new Set<string>();
  let budget = QUOTE_BUDGET;
  const take = (s: Scored) => {
    picked.add(s);
    pickedKeys.add(s.key);
    budget -= Math.min(s.text.length, MAX_SENTENCE_CHARS);
  };
  const ranked = all
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.passage - b.passage || a.index - b.index);
  // the best sentence must itself (with its page's title and headings) hold half the question's
  // words: passages that share a word or two here and there do not answer it
  const top = ranked[0];
  const topPassage = top ? relevant[top.passage]! : undefined;
  if (top && topPassage && !isClose(topPassage)) {
    const header = tableHeader(perPassage[top.passage]!, top.index, topPassage.content)?.header;
    const context = readTerms(`${topPassage.title ?? ''}\n${topPassage.heading ?? ''}\n${header?.text ?? ''}`).stems;
    const covered = words.filter((w) => top.terms.stems.has(w) || context.has(w)).length;
    if (covered < needed) return noAnswer;
  }
  if (ranked.length > 0) {
    const threshold = ranked[0]!.score / 2;
    let count = 0;
    for (const s of ranked) {
      if (count >= MAX_SENTENCES || s.score < threshold) break;
      // a sentence already quoted as the line after a heading may still bring its own next line
      const already = picked.has(s);
      const next = isLeadIn(s.text) ? perPassage[s.passage]![s.index + 1] : undefined;
      const follower = next && !pickedKeys.has(next.key) ? next : undefined;
      if (already && !follower) continue;
      const cost =
        (already ? 0 : Math.min(s.text.length, MAX_SENTENCE_CHARS)) +
        (follower ? Math.min(follower.text.length, MAX_SENTENCE_CHARS) : 0);
      if (count > 0 && cost > budget) continue;
      if (!already) take(s);
      if (follower) take(follower);
      count++;
    }
  } else {
    // found by meaning alone (no shared word): the opening of the closest passage
    for (const s of perPassage[0]!) {
      const cost = Math.min(s.text.length, MAX_SENTENCE_CHARS);
      if (picked.size >= MAX_SENTENCES || (picked.size > 0 && cost > budget)) break;
      take(s);
    }
  }

  if (picked.size === 0) return noAnswer;

  // passages in the order of their best quote, sentences in document order
  const best = new Map<number, Scored>();
  for (const s of picked) {
    const b = best.get(s.passage);
    if (!b || s.score > b.score) best.set(s.passage, s);
  }
  const order = [...best.keys()].sort((a, b) => best.get(b)!.score - best.get(a)!.score || a - b);
  const blocks: string[] = [];
  const used: AnswerPassage[] = [];
  for (const passage of order) {
    const sentences = [...picked].filter((s) => s.passage === passage).sort((a, b) => a.index - b.index);
    let quote = '';
    let prev: Scored | null = null;
    let headerShown = -1;
    for (const s of sentences) {
      // a table row is read under its column names: the header row (and separator) goes first
      const table = tableHeader(perPassage[passage]!, s.index, relevant[passage]!.content);
      if (table && table.header.index !== headerShown && !sentences.includes(table.header)) {
        if (prev) quote += '\n';
        quote += `${table.header.text}\n${table.separator}`;
        headerShown = table.header.index;
        // what follows goes on a line of its own
        prev = { ...table.header, block: -1 };
      }
      // a line wrapped inside a sentence (a text file's, a PDF's) is quoted as one line
      const text = excerpt(s.text, words).replace(/[ \t]*\r?\n[ \t]*(?=\p{Ll})/gu, ' ');
      if (prev) quote += prev.block !== s.block ? '\n' : prev.index + 1 === s.index ? ' ' : ' … ';
      quote += text;
      prev = s;
    }
    const p = relevant[passage]!;
    used.push(p);
    const quoted = quote
      .split(/\r?\n/)
      .map((line) => `> ${line}`.trimEnd())
      .join('\n');
    blocks.push(options.showSources ? `${quoted}\n\n${citation(p)}` : quoted);
  }
  return { text: `${ANSWER_INTRO}\n\n${blocks.join('\n\n')}`, used, found: true };
}
function isClose(p: AnswerPassage): boolean {
  return p.distance !== null && p.distance !== undefined && p.distance <= MAX_VECTOR_DISTANCE;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A sentence longer than MAX_SENTENCE_CHARS: a window of about that size, starting a little
 * before its first matching word, cut between words and marked with "…".
 */
function excerpt(text: string, words: string[]): string {
  if (text.length <= MAX_SENTENCE_CHARS) return text;
  const wanted = new Set(words);
  let first = -1;
  for (const m of text.toLowerCase().matchAll(TOKEN_RE)) {
    if (wanted.has(m[0]) || m[0].split('.').some((part) => wanted.has(stem(part)))) {
      first = m.index;
      break;
    }
  }
  let start = Math.max(0, Math.min(first - 80, text.length - MAX_SENTENCE_CHARS));
  if (start > 0) {
    const space = text.slice(start).search(/\s/);
    start = space >= 0 && space < 40 ? start + space + 1 : start;
  }
  let end = Math.min(text.length, start + MAX_SENTENCE_CHARS);
  if (end < text.length) {
    const space = text.slice(start, end).search(/\s\S*$/);
    if (space > MAX_SENTENCE_CHARS / 2) end = start + space;
  }
  return `${start > 0 ? '… ' : ''}${text.slice(start, end).trim()}${end < text.length ? ' …' : ''}`;
}
