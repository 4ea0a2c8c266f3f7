/**
 * The answer when the agent's LLM provider has no key: the sentences of the retrieved passages
 * that answer the question, quoted exactly, with their sources.
 *
 * 1. The question's content words: its words lower-cased, minus English stop words (one-letter
 *    words other than "a"/"i" are kept, so "R" or "C" count), compared by a crude stem so
 *    "prices"/"pricing"/"price" and "installing"/"install" match. Dotted tokens ("4.99",
 *    "v2.3.1", "192.168.8.1", "as.numeric") are one content word, matched whole. An agent writing
 *    another of the widget's languages reads words by that language's stemmer and stop words, and
 *    the owner's synonyms count, as retrieval reads them (answer-words.ts wordReader).
 * 2. Relevance (answer-gate.ts): the keyword index ORs the question's words, so a passage it
 *    returns may share just one common word with the question. A passage counts when its words
 *    (content, title and heading, as the keyword index sees them) hold at least half the weight of
 *    the question's topic words, a word weighing less the more candidate passages hold it, frame
 *    words ("abbreviation", "stand for") left out, a word the agent's whole knowledge holds nowhere
 *    weighing more than any held word (so "Do you ship to Canada?" is not half answered by "ship");
 *    or when the vector index found it within
 *    {@link MAX_VECTOR_DISTANCE}; a passage found only by the vector index counts only by its
 *    distance. The best sentence with its entry (the question line or heading before it, the
 *    answer after it), title and headings must hold half that weight too (a third when its passage
 *    stands out among the candidates), and stand out: a tie with a sentence elsewhere holding the
 *    same words is no answer.
 * 3. The relevant passages (at most five, as ranked) are cut into sentences and lines (a price
 *    list or bullets run into one line are cut into rows); each sentence scores the sum of the
 *    weights of the content words it holds, a word's weight being ln(1 + N / df), N the number of
 *    sentences and df the number holding the word: a word in every sentence ("plan" on a pricing
 *    page) weighs ln 2 ≈ 0.7, a word in one sentence of thirty ("annually") ln 31 ≈ 3.4; a word
 *    in the question's own form ("billing", not "billed") counts a tenth more, which only breaks
 *    ties; a sentence defining what "What is X?" or "What does X stand for?" asks about counts more.
 *    The best sentence is taken, then others scoring at least half of it, at most three, within
 *    {@link QUOTE_BUDGET} characters, then the next sentence of the best one's paragraph if it fits. A question line (an FAQ's, of any length) brings its answer;
 *    a short lead-in (a heading, a label such as "Price:") brings the sentence after it, a short
 *    complete sentence or a record line does not. A question asking for a list ("What breads do
 *    you have?", "Which plans are there?") gets up to eight sentences of the best one's passage and
 *    the rows of the list it is in. A sentence repeated by overlapping passages counts once.
 * 4. The sentences are quoted per passage in document order, as Markdown block quotes, each
 *    followed by its citation when the agent shows sources (answer-quote.ts); a Q&A source is
 *    quoted with the owner's answer, never its "Q: …" line.
 *
 * Pure and synchronous: a few hundred microseconds for three passages of 2,400 characters.
 */

import { citation } from './answer-citation.js';
import {
  asksForList,
  coverage,
  definitionOf,
  isFrameWord,
  MIN_COVERAGE,
  MIN_ENTRY_COVERAGE,
  passageTerms,
  standsOut,
  topicWords,
  wordWeights,
} from './answer-gate.js';
import { MAX_SENTENCE_CHARS, quotePassage } from './answer-quote.js';
import {
  entryQuestion,
  followersOf,
  isLeadIn,
  isQuestion,
  isRowLike,
  listRows,
  paragraphBreak,
  type Sentence,
  separatorAfter,
  splitSentences,
  TABLE_ROW,
  tableHeader,
} from './answer-sentences.js';
import { adjacencyBonus, type AnswerVocabulary, type Terms, wordReader } from './answer-words.js';

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

export interface KnowledgeAnswerOptions extends AnswerVocabulary {
  /** the owner's message for a question the knowledge does not answer; empty or null = the default */
  noAnswer?: string | null;
  /** whether each quote is followed by its "Source: ..." line */
  showSources: boolean;
  /**
   * the question's words (lower-cased) that the agent's whole knowledge holds nowhere, typos and
   * synonyms aside (knowledge/search-query.ts unknownWords): they weigh heavily (answer-gate.ts)
   */
  unknownWords?: ReadonlySet<string>;
}

export const ANSWER_INTRO = 'Here is what I found in our information:';
/** a passage found only by the vector index is relevant within this cosine distance */
export const MAX_VECTOR_DISTANCE = 0.35;
/** at most this many relevant passages are read, and this many sentences picked (for a list question, LIST_SENTENCES) */
const MAX_PASSAGES = 5;
const MAX_SENTENCES = 3;
const LIST_SENTENCES = 8;
/** the quoted sentences together stay within about this many characters (for a list question, LIST_BUDGET) */
const QUOTE_BUDGET = 450;
const LIST_BUDGET = 900;
/** a sentence scoring at least this share of the best one's, holding the same words, is a tie (answer-gate.ts, the margin) */
const TIE = 0.95;
/** at most this many rows of one list are quoted */
const MAX_ROWS = 12;

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
  // words read as retrieval reads them: in the agent's language, with the owner's synonyms
  const { asked, readTerms, stem, pairs } = wordReader(question, options);
  const words = [...asked.keys()];
  const list = asksForList(question);
  const topic = topicWords(words);

  // each candidate's sentences, read once: their terms serve relevance, the gate's weights and scoring
  const candidates = passages
    .filter((p) => p.content && /\S/.test(p.content))
    .map((p) => {
      const sentences = splitSentences(p.content).map((s, index) => ({
        ...s,
        index,
        passage: -1,
        key: s.text.replace(/\s+/g, ' ').toLowerCase(),
        terms: readTerms(s.text),
        score: 0,
      }));
      const context = readTerms(`${p.title ?? ''}\n${p.heading ?? ''}`);
      return {
        p,
        sentences,
        all: passageTerms(
          sentences.map((s) => s.terms),
          context,
        ),
      };
    });
  const unknown = new Set(
    [...asked].filter(([, form]) => options.unknownWords?.has(form.replace(/'s$/, ''))).map(([w]) => w),
  );
  const candidateTerms = candidates.map((c) => c.all);
  const gateWeights = wordWeights(words, candidateTerms, unknown);
  const relevant: AnswerPassage[] = [];
  const perPassage: Scored[][] = [];
  for (const c of candidates) {
    if (relevant.length >= MAX_PASSAGES) break;
    const close = isClose(c.p);
    if (!close && (!c.p.keywordMatch || words.length === 0)) continue;
    if (!close && coverage(words, gateWeights, (w) => c.all.has(w)) < MIN_COVERAGE) continue;
    for (const s of c.sentences) s.passage = relevant.length;
    relevant.push(c.p);
    perPassage.push(c.sentences);
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
    // a frame word ("stand for", "abbreviation") only breaks ties between sentences
    if (df > 0)
      weights.set(w, Math.log(1 + all.length / df) * (isFrameWord(w) && topic.length < words.length ? 0.1 : 1));
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
      // (not for a list question: its plural names the list, "plans", and the rows each name one item)
      const own = inRow && !list && s.terms.forms.has(asked.get(w)!) ? weight * 1.1 : weight;
      s.score += inRow ? own : weight * 0.5;
    }
    if (s.score > 0 && isRowLike(s.text)) s.score += adjacencyBonus(s.terms, pairs, weights);
  }

  // a list question: a heading naming what it asks for ("Our breads") above a list comes first
  if (list)
    for (const s of all) {
      const sentences = perPassage[s.passage]!;
      const content = relevant[s.passage]!.content;
      const next = followersOf(sentences, s.index, content)[0];
      if (s.score > 0 && isLeadIn(s.text) && next && listRows(sentences, next.index, content).length > 0)
        s.score *= 1.2;
    }

  // "What is R?", "What does CRAN stand for?": a sentence that says what it is ("R is a system
  // for…", "CRAN, the Comprehensive R Archive Network", "… Number (ECCN)") answers it
  const defines = definitionOf(question);
  if (defines) {
    const bonus = Math.max(0, ...weights.values());
    for (const s of all) if (defines(s.text.trim())) s.score += bonus;
  }

  const picked = new Set<Scored>();
  const pickedKeys = new Set<string>();
  let budget = QUOTE_BUDGET;
  const cost = (s: Scored) => (pickedKeys.has(s.key) ? 0 : Math.min(s.text.length, MAX_SENTENCE_CHARS));
  const take = (s: Scored) => {
    budget -= cost(s);
    picked.add(s);
    pickedKeys.add(s.key);
  };
  const ranked = all
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.passage - b.passage || a.index - b.index);
  // the best sentence, with what leads into it and what it leads into (a question line and its
  // answer), its page's title and headings, must itself hold the question's weight as its passage
  // does: a passage that shares a word here and a word there does not answer it
  const top = ranked[0];
  const topPassage = top ? relevant[top.passage]! : undefined;
  if (top && topPassage && !isClose(topPassage)) {
    const sentences = perPassage[top.passage]!;
    const before = sentences[top.index - 1];
    const lead = before && followersOf(sentences, before.index, topPassage.content).includes(top) ? [before] : [];
    const entry = [...lead, top, ...followersOf(sentences, top.index, topPassage.content)];
    const header = tableHeader(sentences, top.index, topPassage.content)?.header;
    const context = readTerms(`${topPassage.title ?? ''}\n${topPassage.heading ?? ''}\n${header?.text ?? ''}`).stems;
    const held = (w: string) => context.has(w) || entry.some((s) => s.terms.stems.has(w));
    const share = coverage(words, gateWeights, held);
    // a passage standing out answers with a sentence holding less (answer-gate.ts standsOut)
    const at = candidates.findIndex((c) => c.p === topPassage);
    if (share < MIN_COVERAGE && !(share >= MIN_ENTRY_COVERAGE && standsOut(words, gateWeights, candidateTerms, at)))
      return noAnswer;
    if (share < 1 && !list && !isRowLike(top.text)) {
      // the margin: another sentence, in another paragraph or passage, holding the same topic words
      // as high (rows of a table or list are alike by nature: a carrier's rows for each country;
      // a sentence cut at a passage's edge is the same sentence)
      const holds = (s: Scored) => topic.filter((w) => s.terms.stems.has(w)).join(' ');
      const own = holds(top);
      const elsewhere = (s: Scored) => {
        if (s.passage !== top.passage) return !s.key.includes(top.key) && !top.key.includes(s.key);
        const [a, b] = s.index < top.index ? [s, top] : [top, s];
        return paragraphBreak(a, b, topPassage.content);
      };
      const rival = ranked.find(
        (s) =>
          s !== top &&
          !entry.includes(s) &&
          !isRowLike(s.text) &&
          s.score >= top.score * TIE &&
          holds(s) === own &&
          elsewhere(s),
      );
      if (rival) return noAnswer;
    }
  }
  // whether `s` is the one row of its list holding a word of the question: "What are the opening
  // hours of the canteen?" asks for the canteen's row of a table, not the table
  const namesOneRow = (s: Scored) => {
    const rows = listRows(perPassage[s.passage]!, s.index, relevant[s.passage]!.content);
    const own = topic.filter((w) => s.terms.stems.has(w));
    return rows.length > 0 && own.some((w) => !rows.some((r) => r !== s && r.terms.stems.has(w)));
  };
  const wantsList = list && top !== undefined && !namesOneRow(top);
  if (wantsList) budget = LIST_BUDGET;
  /** for a list question, the list to quote with `s`: the rows of its list, or of the list a heading leads into ("Our breads" above its bullets) */
  const listOf = (s: Scored, followers: Scored[], sentences: Scored[], content: string): Scored[] => {
    let rows = listRows(sentences, s.index, content);
    if (rows.length === 0 && followers[0]) rows = listRows(sentences, followers[0].index, content);
    return rows.slice(0, MAX_ROWS);
  };
  /**
   * The fact asked is often in the sentence after the one naming it ("… numbers are equal?" → "The
   * only numbers … are integers …" → "All other numbers are rounded to 53 binary digits"): the best
   * sentence's paragraph goes on by one sentence holding a question word, if the budget allows.
   */
  const continueParagraph = (s: Scored) => {
    const sentences = perPassage[s.passage]!;
    const content = relevant[s.passage]!.content;
    let i = Math.max(s.index, ...followersOf(sentences, s.index, content).map((f) => f.index));
    const same = (j: number) =>
      sentences[j + 1] !== undefined && !paragraphBreak(sentences[j]!, sentences[j + 1]!, content);
    while (same(i) && pickedKeys.has(sentences[i + 1]!.key)) i++;
    const next = same(i) ? sentences[i + 1]! : undefined;
    if (!next || next.score === 0 || pickedKeys.has(next.key) || cost(next) > budget) return;
    if (!isQuestion(next.text) && !isRowLike(next.text) && !isLeadIn(next.text)) take(next);
  };
  const topQuestion = top && entryQuestion(perPassage[top.passage]!, top.index, relevant[top.passage]!.content);
  // a row named by words standing together ("Item 12") is the row asked for, not the rows holding them apart
  const named = (s: Scored) => adjacencyBonus(s.terms, pairs, weights) > 0;
  const namedRow = !wantsList && top !== undefined && isRowLike(top.text) && named(top);
  if (ranked.length > 0) {
    const threshold = ranked[0]!.score / 2;
    const most = wantsList ? LIST_SENTENCES : MAX_SENTENCES;
    let count = 0;
    for (const s of ranked) {
      if (count >= most || s.score < threshold) break;
      // a list comes from one place: a list question's further sentences from the best one's passage
      if (wantsList && count > 0 && s.passage !== ranked[0]!.passage) continue;
      // another FAQ entry's question, matching less well, is another question: not quoted with its answer
      if (count > 0 && isQuestion(s.text) && s !== topQuestion && s.score < ranked[0]!.score * TIE) continue;
      // another row of a table, matching only by its column names, is not asked for unless the list is
      if (!wantsList && count > 0 && !words.some((w) => s.terms.stems.has(w))) continue;
      if (namedRow && count > 0 && isRowLike(s.text) && !named(s)) continue;
      const sentences = perPassage[s.passage]!;
      const content = relevant[s.passage]!.content;
      // a question line brings its answer, a heading or label the line after it; a sentence
      // already quoted as such may still bring its own; for a list question, a row brings its list
      const followers = followersOf(sentences, s.index, content);
      const rows = wantsList ? listOf(s, followers, sentences, content) : [];
      const group = [s, ...followers, ...rows];
      const extra = group.filter((x) => !pickedKeys.has(x.key));
      if (extra.length === 0) continue;
      const groupCost = extra.reduce((n, x) => n + cost(x), 0);
      if (count > 0 && groupCost > budget) continue;
      for (const x of extra) take(x);
      count++;
    }
    if (!wantsList && top) continueParagraph(top);
  } else {
    // found by meaning alone (no shared word): the opening of the closest passage
    for (const s of perPassage[0]!) {
      if (picked.size >= MAX_SENTENCES || (picked.size > 0 && cost(s) > budget)) break;
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
    const p = relevant[passage]!;
    const sentences = [...picked].filter((s) => s.passage === passage);
    const quoted = quotePassage(sentences, perPassage[passage]!, p.content, words, p.qa?.answer, stem);
    used.push(p);
    blocks.push(options.showSources ? `${quoted}\n\n${citation(p)}` : quoted);
  }
  return { text: `${ANSWER_INTRO}\n\n${blocks.join('\n\n')}`, used, found: true };
}

function isClose(p: AnswerPassage): boolean {
  return p.distance !== null && p.distance !== undefined && p.distance <= MAX_VECTOR_DISTANCE;
}
