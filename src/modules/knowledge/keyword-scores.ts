/** A passage the keyword search found, with its bm25 score (lower is better). */
export interface KeywordHit {
  chunkId: number;
  score: number;
}

/**
 * The bm25 scores of one phrase of the keyword index (an agent's term, or a phrase of its terms)
 * over the passages that hold it, in rowid order: what `PHRASE_SCORES_SQL` answers.
 */
export interface PhraseScores {
  /** chunk ids: 32-bit when every one fits (all but a database of over 4 billion passages stored) */
  ids: Uint32Array | Float64Array;
  scores: Float64Array;
}

/**
 * One phrase's scores, as bm25 gives them in a query of that phrase alone. FTS5's bm25 is a sum
 * over the query's phrases, each weighed by the table's row count and average length, the
 * phrase's document count and the passage's length, none of which depends on the other phrases;
 * so a passage's score for `"a" OR "b c"` is its score for `"a"` plus its score for `"b c"`.
 * Rows come in rowid order (no ORDER BY: FTS5 walks its doclists that way).
 */
export const PHRASE_SCORES_SQL = 'SELECT rowid, bm25(chunks_fts, 1.0, 0.5) FROM chunks_fts WHERE chunks_fts MATCH ?';

/** How many times the keyword index has changed (migration 0040): the cache's key. */
export const KEYWORD_INDEX_WRITES_SQL = 'SELECT count FROM keyword_index_writes WHERE id = 1';

/**
 * What the cache may hold, in bytes (12 per passage of a phrase): the phrases of a few dozen
 * questions over an agent of 100k passages, many more over smaller ones. A phrase over a quarter
 * of it is not kept. Off the heap (typed arrays), within the main thread's share of the memory
 * budget (docs/DEPLOY.md).
 */
export const KEYWORD_CACHE_BYTES = 8 * 1024 * 1024;

/** term look-ups kept (KeywordScoreCache.lookup): small values, a few hundred bytes each at most */
const MAX_LOOKUPS = 4096;

/**
 * The phrases of an agent's FTS5 query (keyword-query.ts agentMatch: quoted phrases, OR-ed),
 * each as the MATCH of a query of its own; null for any other shape, which is searched as a whole.
 */
export function matchPhrases(match: string): string[] | null {
  const phrases: string[] = [];
  for (const part of match.split(' OR ')) {
    if (!/^"[^"]*"$/.test(part)) return null;
    phrases.push(part);
  }
  return [...new Set(phrases)];
}

/**
 * The keyword search's scores by phrase, kept between searches. A chat turn's question shares
 * most words with the questions before it, and scoring a common word anew meant bm25 over every
 * passage holding it (4.6 ms for a question of three common words at 100k passages, where the
 * scores summed from memory take ~0.2 ms). Every score is dropped when the index changes
 * (`sync`), so a search answers what FTS5 answers; least recently used phrases go first when
 * the cache is full.
 */
export class KeywordScoreCache {
  private writes = -1;
  private readonly phrases = new Map<string, PhraseScores>();
  private bytes = 0;
  private readonly lookups = new Map<string, unknown>();

  constructor(private readonly capacityBytes = KEYWORD_CACHE_BYTES) {}

  /** The index's change count now: when it moved since the scores were kept, they are dropped. */
  sync(writes: number): void {
    if (writes === this.writes) return;
    this.writes = writes;
    this.phrases.clear();
    this.bytes = 0;
    this.lookups.clear();
  }

  /**
   * A look-up of the index's terms (a word's typo neighbours, whether the agent holds a word),
   * kept as the scores are: each is an FTS5 query (~50 µs) that every turn asking the same words
   * ran again. At most MAX_LOOKUPS are kept; when full, all go.
   */
  lookup<T>(key: string, read: () => T): T {
    if (this.lookups.has(key)) return this.lookups.get(key) as T;
    const value = read();
    if (this.lookups.size >= MAX_LOOKUPS) this.lookups.clear();
    this.lookups.set(key, value);
    return value;
  }

  /** The change count the held scores are of. */
  get indexWrites(): number {
    return this.writes;
  }

  get(phrase: string): PhraseScores | undefined {
    const scores = this.phrases.get(phrase);
    if (scores) {
      // most recently used last: the map's order is the eviction order
      this.phrases.delete(phrase);
      this.phrases.set(phrase, scores);
    }
    return scores;
  }

  /** Keeps a phrase's scores read at change count `writes`; older (or newer) reads are not kept. */
  put(phrase: string, scores: PhraseScores, writes: number): void {
    const size = scores.ids.byteLength + scores.scores.byteLength;
    if (writes !== this.writes || size > this.capacityBytes / 4 || this.phrases.has(phrase)) return;
    this.phrases.set(phrase, scores);
    this.bytes += size;
    for (const [oldest, held] of this.phrases) {
      if (this.bytes <= this.capacityBytes) break;
      this.phrases.delete(oldest);
      this.bytes -= held.ids.byteLength + held.scores.byteLength;
    }
  }

  get size(): { phrases: number; bytes: number } {
    return { phrases: this.phrases.size, bytes: this.bytes };
  }
}

/** Rows [rowid, score] of `PHRASE_SCORES_SQL` as a phrase's scores. */
export function phraseScores(rows: ReadonlyArray<readonly [number, number]>): PhraseScores {
  const scores = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) scores[i] = rows[i]![1];
  return { ids: compactIds(Float64Array.from(rows, (row) => row[0])), scores };
}

/** Ids in rowid order as 32-bit integers when the last (the largest) fits. */
export function compactIds(ids: Float64Array): Uint32Array | Float64Array {
  return ids.length === 0 || ids[ids.length - 1]! <= 0xffffffff ? Uint32Array.from(ids) : ids;
}

/**
 * The `limit` passages of lowest summed score over the phrases (bm25 is negative: lower is
 * better), as FTS5's `ORDER BY bm25 LIMIT` of the OR-ed phrases gives them; equal scores in rowid
 * order. One pass over the phrases' lists merged by rowid, keeping the best in a sorted array.
 */
export function bestByScore(lists: readonly PhraseScores[], limit: number): KeywordHit[] {
  const cursors = new Int32Array(lists.length);
  const bestIds: number[] = [];
  const bestScores: number[] = [];
  if (limit <= 0) return [];
  for (;;) {
    let id = Number.POSITIVE_INFINITY;
    for (let l = 0; l < lists.length; l++) {
      const at = cursors[l]!;
      const ids = lists[l]!.ids;
      if (at < ids.length && ids[at]! < id) id = ids[at]!;
    }
    if (id === Number.POSITIVE_INFINITY) break;
    let score = 0;
    for (let l = 0; l < lists.length; l++) {
      const at = cursors[l]!;
      const list = lists[l]!;
      if (at < list.ids.length && list.ids[at] === id) {
        score += list.scores[at]!;
        cursors[l] = at + 1;
      }
    }
    if (bestIds.length === limit && score >= bestScores[limit - 1]!) continue;
    // ids arrive ascending, so an equal score already held stays ahead
    let slot = bestIds.length === limit ? limit - 1 : bestIds.length;
    while (slot > 0 && bestScores[slot - 1]! > score) {
      bestIds[slot] = bestIds[slot - 1]!;
      bestScores[slot] = bestScores[slot - 1]!;
      slot--;
    }
    bestIds[slot] = id;
    bestScores[slot] = score;
  }
  return bestIds.map((chunkId, i) => ({ chunkId, score: bestScores[i]! }));
}
