import { and, asc, desc, eq, getTableColumns, gt, inArray, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { partitionKey } from '../../platform/text/stemming.js';
import { agentMatch } from './keyword-query.js';
import { editDistance, foldDiacritics } from './word-distance.js';
import {
  bestByScore,
  KEYWORD_INDEX_WRITES_SQL,
  type KeywordHit,
  KeywordScoreCache,
  matchPhrases,
  PHRASE_SCORES_SQL,
  phraseScores,
} from './keyword-scores.js';
import { chunks, sources, type ChunkRow, type SourceRow } from './tables.js';

export type NewSource = typeof sources.$inferInsert;

/**
 * The agent's own terms (migration 0039: each carries the agent's prefix), so other agents'
 * chunks cost nothing; the passage's words weigh twice its context (title and headings).
 * Rows are [chunk id, score], lower score first.
 */
const KEYWORD_SEARCH_SQL = `
  SELECT rowid AS id, bm25(chunks_fts, 1.0, 0.5) AS score
    FROM chunks_fts
   WHERE chunks_fts MATCH ?
   ORDER BY score
   LIMIT ?`;

/** A passage to store: its text and, when known, where it comes from (passage-context.ts). */
export interface NewPassage {
  content: string;
  tokenCount: number;
  title?: string | null;
  page_url?: string | null;
  page?: number | null;
  heading?: string | null;
}

export type { KeywordHit };

export class KnowledgeRepo {
  // Ingestion stores tens of thousands of chunks: one statement built and prepared once, run per
  // row, instead of a multi-row INSERT whose SQL drizzle builds and SQLite compiles per batch.
  private readonly insertChunk;
  private readonly mergeKeywordIndex;
  // the two reads of every chat turn, prepared once
  private readonly keywordHits;
  private readonly chunksWithSource;
  private readonly termsNear;
  private readonly agentHasTerm;
  private readonly phraseScores;
  private readonly qaQuestions;
  private readonly agentHasQa;
  private readonly keywordIndexWrites;
  /** the keyword search's scores by phrase, shared with the worker's searches (keyword-searcher.ts): read through keywordScoresNow */
  readonly keywordScores = new KeywordScoreCache();

  constructor(private readonly db: Db) {
    this.keywordHits = db.$client.prepare<[string, number], [number, number]>(KEYWORD_SEARCH_SQL).raw();
    this.phraseScores = db.$client.prepare<[string], [number, number]>(PHRASE_SCORES_SQL).raw();
    this.qaQuestions = db.$client
      .prepare<[string], [number, string]>(
        `SELECT c.id, coalesce(s.qa_question, '') FROM chunks c JOIN sources s ON s.id = c.source_id
          WHERE c.id IN (SELECT value FROM json_each(?)) AND s.type = 'qa'`,
      )
      .raw();
    const agentHasQa = "SELECT 1 FROM sources WHERE chatbot_id = ? AND type = 'qa' LIMIT 1";
    this.agentHasQa = db.$client.prepare<[string], number>(agentHasQa).pluck();
    this.keywordIndexWrites = db.$client.prepare<[], number>(KEYWORD_INDEX_WRITES_SQL).pluck();
    // the keyword index's terms (migrations 0027, 0039): both look-ups are range reads of its term b-tree
    this.termsNear = db.$client
      .prepare<[string, string, number, number], [string, number]>(
        `SELECT term, doc FROM chunks_fts_terms WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ? LIMIT ${TYPO_SCAN_LIMIT}`,
      )
      .raw();
    this.agentHasTerm = db.$client
      .prepare<[string], number>('SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1')
      .pluck();
    // ids as one JSON array parameter: one statement for any number of them
    this.chunksWithSource = db
      .select({
        ...getTableColumns(chunks),
        source_name: sources.name,
        source_title: sources.title,
        source_url: sources.url,
        source_type: sources.type,
        qa_question: sources.qa_question,
        qa_answer: sources.qa_answer,
      })
      .from(chunks)
      .innerJoin(sources, eq(sources.id, chunks.source_id))
      .where(sql`${chunks.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`)
      .prepare();
    // FTS5's automerge is off (migration 0008): this bounded step after each insert does its work
    this.mergeKeywordIndex = db.$client.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', ?)");
    this.insertChunk = db
      .insert(chunks)
      .values({
        chatbot_id: sql.placeholder('chatbot_id'),
        source_id: sql.placeholder('source_id'),
        ordinal: sql.placeholder('ordinal'),
        content: sql.placeholder('content'),
        token_count: sql.placeholder('token_count'),
        title: sql.placeholder('title'),
        page_url: sql.placeholder('page_url'),
        page: sql.placeholder('page'),
        heading: sql.placeholder('heading'),
      })
      .returning()
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  insertSource(row: NewSource): SourceRow {
    return this.db.insert(sources).values(row).returning().get();
  }

  listSources(chatbotId: string): SourceRow[] {
    return this.db
      .select()
      .from(sources)
      .where(eq(sources.chatbot_id, chatbotId))
      .orderBy(desc(sources.created_at), desc(sources.id))
      .all();
  }

  findSource(id: string): SourceRow | undefined {
    return this.db.select().from(sources).where(eq(sources.id, id)).get();
  }

  /** Deletes the source; chunks, their FTS rows and vectors go with it (FK cascade + triggers). */
  deleteSource(id: string): void {
    this.db.delete(sources).where(eq(sources.id, id)).run();
  }

  updateSource(id: string, patch: Partial<Omit<SourceRow, 'id' | 'chatbot_id' | 'created_at'>>): void {
    this.db.update(sources).set(patch).where(eq(sources.id, id)).run();
  }

  /**
   * The source's passages, or only those with an id above `above` (the ones a re-crawl stored) or
   * at most `upTo` (the ones it replaces), of the pages `pageUrls` only (a sync's changed and removed pages).
   */
  deleteChunksOf(sourceId: string, range: { above?: number; upTo?: number; pageUrls?: string[] } = {}): void {
    if (range.pageUrls?.length === 0) return;
    const conditions = [eq(chunks.source_id, sourceId)];
    if (range.above !== undefined) conditions.push(gt(chunks.id, range.above));
    if (range.upTo !== undefined) conditions.push(lte(chunks.id, range.upTo));
    if (range.pageUrls) conditions.push(inArray(chunks.page_url, range.pageUrls));
    const where = and(...conditions);
    this.db.transaction(() => {
      const removed = conditions.length === 1 ? null : this.passageBytes(where);
      this.db
        .update(sources)
        .set({ passage_bytes: removed === null ? 0 : sql`max(0, ${sources.passage_bytes} - ${removed})` })
        .where(eq(sources.id, sourceId))
        .run();
      this.db.delete(chunks).where(where).run();
    });
  }

  /** UTF-8 bytes of the passages' text (what `passage_bytes` counts). */
  private passageBytes(where: ReturnType<typeof and>): number {
    return this.db
      .select({ n: sql<number>`coalesce(sum(length(CAST(${chunks.content} AS BLOB))), 0)` })
      .from(chunks)
      .where(where)
      .get()!.n;
  }

  /**
   * What an account's storage limit counts: its passages' text, and the uploads still waiting on
   * disk to be read (their file is removed once they are).
   */
  storageUsedBy(userId: string): number {
    return this.db
      .select({
        n: sql<number>`coalesce(sum(${sources.passage_bytes} + CASE WHEN ${sources.stored_path} IS NOT NULL THEN coalesce(${sources.file_size}, 0) ELSE 0 END), 0)`,
      })
      .from(sources)
      .where(sql`${sources.chatbot_id} IN (SELECT id FROM chatbots WHERE user_id = ${userId})`)
      .get()!.n;
  }

  /** The highest passage id of a source, 0 when it has none. */
  lastChunkId(sourceId: string): number {
    return (
      this.db
        .select({ id: sql<number | null>`max(${chunks.id})` })
        .from(chunks)
        .where(eq(chunks.source_id, sourceId))
        .get()?.id ?? 0
    );
  }

  /** One page of a source's passages in their order (the owner reads what was extracted). */
  listChunks(sourceId: string, offset: number, limit: number, upTo?: number): ChunkRow[] {
    return this.db
      .select()
      .from(chunks)
      .where(and(eq(chunks.source_id, sourceId), upTo !== undefined ? lte(chunks.id, upTo) : undefined))
      .orderBy(asc(chunks.ordinal), asc(chunks.id))
      .limit(limit)
      .offset(offset)
      .all();
  }

  /** Sources still `processing`, oldest first (watchdog, restart). */
  listProcessing(): SourceRow[] {
    return this.db
      .select()
      .from(sources)
      .where(eq(sources.status, 'processing'))
      .orderBy(asc(sources.created_at))
      .all();
  }

  /** Files still waiting in the upload folder, so a sweep can tell which files are orphans. */
  storedPaths(): string[] {
    return this.db
      .select({ p: sources.stored_path })
      .from(sources)
      .where(sql`${sources.stored_path} IS NOT NULL`)
      .all()
      .map((r) => r.p!);
  }

  insertChunks(chatbotId: string, sourceId: string, parts: NewPassage[], firstOrdinal = 0): ChunkRow[] {
    const rows = parts.map(
      (p, i) =>
        this.insertChunk.get({
          chatbot_id: chatbotId,
          source_id: sourceId,
          ordinal: firstOrdinal + i,
          content: p.content,
          token_count: p.tokenCount,
          title: p.title ?? null,
          page_url: p.page_url ?? null,
          page: p.page ?? null,
          heading: p.heading ?? null,
        })!,
    );
    if (rows.length > 0) {
      const bytes = parts.reduce((sum, p) => sum + Buffer.byteLength(p.content), 0);
      this.db
        .update(sources)
        .set({ passage_bytes: sql`${sources.passage_bytes} + ${bytes}` })
        .where(eq(sources.id, sourceId))
        .run();
      // about one page of merging per chunk stored (a chunk is ~2.5 KB; a page 4 KB)
      this.mergeKeywordIndex.run(Math.max(16, rows.length));
    }
    return rows;
  }

  /**
   * The question of each passage's Q&A source, for the passages of a Q&A source among `ids`: all
   * a search needs of its 40 candidates to order them (the 5 it returns are read whole). Skipped
   * for an agent known to hold no Q&A source, until the index changes (a pair's passage is stored
   * with it, and again when it is edited).
   */
  qaQuestionsOf(chatbotId: string, ids: number[]): Map<number, string> {
    const holdsQa = () => this.agentHasQa.get(chatbotId) !== undefined;
    if (ids.length === 0 || !this.keywordScoresNow().lookup(`qa ${chatbotId}`, holdsQa)) return new Map();
    return new Map(this.qaQuestions.all(JSON.stringify(ids)));
  }

  chunksByIds(ids: number[]): Array<
    ChunkRow & {
      source_name: string;
      source_title: string | null;
      source_url: string | null;
      source_type: SourceRow['type'];
      qa_question: string | null;
      qa_answer: string | null;
    }
  > {
    if (ids.length === 0) return [];
    return this.chunksWithSource.all({ ids: JSON.stringify(ids) });
  }

  /** Chunks of completed sources not yet embedded with `embedderId`, oldest first. */
  chunksToEmbed(embedderId: string, limit: number): ChunkRow[] {
    return this.db
      .select()
      .from(chunks)
      .where(or(isNull(chunks.embedded_with), ne(chunks.embedded_with, embedderId)))
      .orderBy(asc(chunks.id))
      .limit(limit)
      .all();
  }

  /**
   * bm25 over one agent's chunks; `match` is an FTS5 query built by the service. Lower score =
   * better. Summed from each phrase's scores, read once and kept until the index changes
   * (keyword-scores.ts). Runs on this thread; a chat turn normally reads the phrases it lacks
   * in a worker (keyword-searcher.ts).
   */
  keywordSearch(chatbotId: string, match: string, limit: number): KeywordHit[] {
    const phrases = matchPhrases(agentMatch(chatbotId, match));
    if (!phrases)
      return keywordHits(this.keywordHits.all(...KnowledgeRepo.keywordQuery(chatbotId, match, limit).params));
    const cache = this.keywordScoresNow();
    const lists = phrases.map((phrase) => {
      let scores = cache.get(phrase);
      if (!scores) {
        scores = phraseScores(this.phraseScores.all(phrase));
        cache.put(phrase, scores, cache.indexWrites);
      }
      return scores;
    });
    return bestByScore(lists, limit);
  }

  /** How many times the keyword index has changed (migration 0040): what its cached scores are of. */
  keywordIndexChanges(): number {
    return this.keywordIndexWrites.get()!;
  }

  /** The kept scores and look-ups, emptied first if the index changed since they were read. */
  keywordScoresNow(): KeywordScoreCache {
    this.keywordScores.sync(this.keywordIndexChanges());
    return this.keywordScores;
  }

  /** The keyword search as SQL and parameters, for a connection of its own (keyword-searcher.ts): the agent's own terms. */
  static keywordQuery(chatbotId: string, match: string, limit: number): { sql: string; params: [string, number] } {
    return { sql: KEYWORD_SEARCH_SQL, params: [agentMatch(chatbotId, match), limit] };
  }

  /**
   * The keyword index's terms a typo away from `term` (a stem the index does not hold), best
   * first: [] when the index holds it. Candidates share its first two letters (a typo there is
   * rare, and the shared prefix bounds the read to a slice of the terms, at most TYPO_SCAN_LIMIT
   * of them); up to one edit (insertion, deletion, substitution or two letters swapped) for
   * words of up to 5 letters, two for longer ones; the closest, then the most frequent. The
   * agent's own terms (the index's are partitioned by agent, migration 0039).
   */
  nearTerms(chatbotId: string, term: string, max = 2): string[] {
    const word = foldDiacritics(term);
    const key = partitionKey(chatbotId);
    if (word.length < 4) return [];
    return [...this.keywordScoresNow().lookup(`near ${max} ${key}${word}`, () => this.readNearTerms(key, word, max))];
  }

  private readNearTerms(key: string, word: string, max: number): string[] {
    if (this.agentHasTerm.get(`"${key}${word}"`) !== undefined) return [];
    const edits = word.length <= 5 ? 1 : 2;
    const prefix = key + word.slice(0, 2);
    const found: Array<{ term: string; distance: number; docs: number }> = [];
    for (const [indexed, docs] of this.termsNear.all(
      prefix,
      `${prefix}\u{10FFFF}`,
      key.length + word.length - edits,
      key.length + word.length + edits,
    )) {
      const candidate = indexed.slice(key.length);
      const distance = editDistance(word, candidate, edits);
      if (distance <= edits) found.push({ term: candidate, distance, docs });
    }
    return found
      .sort((a, b) => a.distance - b.distance || b.docs - a.docs)
      .slice(0, max)
      .map((f) => f.term);
  }

  /**
   * Whether one agent's passages hold `term` (a stem, as the keyword index holds it): a search
   * for its first passage. (Not the index's term list: fts5vocab counts a term's whole doclist on
   * every read, ~0.4 ms for a common word at 100k passages, and counts deleted passages until the
   * index merges.)
   */
  agentHoldsTerm(chatbotId: string, term: string): boolean {
    const word = foldDiacritics(term);
    if (!/^[\p{L}\p{N}]+$/u.test(word)) return true;
    const phrase = `"${partitionKey(chatbotId)}${word}"`;
    return this.keywordScoresNow().lookup(`holds ${phrase}`, () => this.agentHasTerm.get(phrase) !== undefined);
  }

  countChunks(sourceId: string, upTo?: number): number {
    const where = and(eq(chunks.source_id, sourceId), upTo !== undefined ? lte(chunks.id, upTo) : undefined);
    return this.db.select({ n: sql<number>`count(*)` }).from(chunks).where(where).get()!.n;
  }
}

/** at most this many of the index's terms are read for one word's typo look-up */
const TYPO_SCAN_LIMIT = 4000;

/** Rows [chunk id, bm25 score] of the keyword search as hits. */
export function keywordHits(rows: unknown[][]): KeywordHit[] {
  return rows.map(([chunkId, score]) => ({ chunkId: chunkId as number, score: score as number }));
}
