import { partitionKey } from '../../platform/text/stemming.js';

/**
 * Rows bm25 scores in one search at most, when the question's terms allow: ~0.65 us a row, so
 * ~1 ms. A question of three common words over 100k passages matched ~4,500 rows (~3 ms).
 */
export const KEYWORD_ROW_BUDGET = 1500;

/** the phrases a bounded search pairs up, the rarest: pairs grow with their square */
const MAX_PAIRED_PHRASES = 8;

/** A keyword search: its FTS5 query, and the one to run when it finds fewer passages than wanted. */
export interface AgentMatch {
  match: string;
  /** the unbounded query, when `match` is bounded */
  fallback: string | null;
}

/**
 * One agent's FTS5 query from `match` (ftsQuery's phrases of stems, OR-ed): each word with the
 * agent's prefix (the index's terms are partitioned by agent, migration 0039), phrases the agent
 * holds nowhere left out; null when none is left.
 *
 * Bounded: when the phrases' rows (`rowsOf`: the agent's passages holding a term; a phrase's is
 * its rarest word's) add up to more than `budget`, the query asks for passages holding at least
 * two of the phrases ("(a AND b) OR (a AND c) OR (b AND c)"): far fewer rows, and the ones bm25
 * ranks first, as a passage matching two of a question's words outscores one matching a single
 * one. FTS5 scores each of those rows exactly as the plain OR query does (each phrase counted
 * once; test/knowledge/keyword-index.test.ts holds it to that). When that finds fewer passages than
 * wanted, the caller runs `fallback`, the plain query. Leaving the commonest words out instead
 * kept 7% of the plain query's top 20 at 100k passages (bench/retrieval.ts); this keeps nearly
 * all of it.
 */
export function agentMatch(
  chatbotId: string,
  match: string,
  rowsOf: (term: string) => number,
  budget = KEYWORD_ROW_BUDGET,
): AgentMatch | null {
  const key = partitionKey(chatbotId);
  const phrases = match
    .split(' OR ')
    .map((phrase) => {
      const terms = phrase
        .replace(/^"|"$/g, '')
        .split(' ')
        .filter(Boolean)
        .map((word) => key + word);
      return { text: `"${terms.join(' ')}"`, rows: Math.min(...terms.map(rowsOf)) };
    })
    .filter((p) => p.rows > 0);
  if (phrases.length === 0) return null;
  const plain = phrases.map((p) => p.text).join(' OR ');
  const total = phrases.reduce((sum, p) => sum + p.rows, 0);
  if (total <= budget || phrases.length < 2) return { match: plain, fallback: null };
  const paired = [...phrases].sort((a, b) => a.rows - b.rows).slice(0, MAX_PAIRED_PHRASES);
  const pairs = paired.flatMap((a, i) => paired.slice(i + 1).map((b) => `(${a.text} AND ${b.text})`));
  return { match: pairs.join(' OR '), fallback: plain };
}
