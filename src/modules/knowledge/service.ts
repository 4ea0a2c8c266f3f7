import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { EMBEDDING_BATCH_SIZE, type Embedder } from '../../providers/embeddings/index.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import { chunkText, estimateTokens } from './chunker.js';
import { websiteOptions } from './website-options.js';
import type { KeywordSearch } from './keyword-searcher.js';
import { type Passage, sourceLabel } from './passage.js';
import type { KnowledgeRepo } from './repo.js';
import { fusedRanking, keepFirsts } from './search-fusion.js';
import { ftsQuery, qaMatches, unknownWords } from './search-query.js';
import type { StorageQuota } from './storage-quota.js';
import type { ChunkRow, SourceRow } from './tables.js';
import type { VectorIndex } from './vector-index.js';

/** a qa source's question and answer (the routes answer 400 over them) */
export const MAX_QA_QUESTION_CHARS = FIELD_MAX.source.qa_question;
export const MAX_QA_ANSWER_CHARS = FIELD_MAX.source.qa_answer;

/** A qa source's one passage: the question and the answer, so both searches find it by the question. */
export function qaPassage(question: string, answer: string): string {
  return `Q: ${question}\nA: ${answer}`;
}

/** candidates taken from each index before fusion */
const CANDIDATES = 20;
/** a text source's content is capped (the route answers 413 over it) */
export const MAX_TEXT_SOURCE_CHARS = 2_000_000;

export interface KnowledgeServiceDeps {
  repo: KnowledgeRepo;
  agents: AgentsService;
  /** null without embeddings (keyword search only) */
  embedder: Embedder | null;
  vectors: VectorIndex | null;
  clock: Clock;
  log: FastifyBaseLogger;
  /** where a chat turn's keyword search runs: a worker in the app (keyword-searcher.ts), this thread by default */
  keywordSearch?: KeywordSearch;
  /** the plans' storage limit (none in tests that only search) */
  storage?: StorageQuota | null;
  /** where `knowledge.changed` goes (none in tests that only search) */
  events?: AppEvents;
}

export class KnowledgeService {
  private backfillRunning: Promise<void> | null = null;
  private readonly repo: KnowledgeRepo;
  private readonly agents: AgentsService;
  private readonly embedder: Embedder | null;
  private readonly vectors: VectorIndex | null;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly keywordSearch: KeywordSearch;
  readonly storage: StorageQuota | null;
  private readonly events: AppEvents | undefined;

  constructor(deps: KnowledgeServiceDeps) {
    const { repo } = deps;
    this.repo = repo;
    this.agents = deps.agents;
    this.embedder = deps.embedder;
    this.vectors = deps.vectors;
    this.clock = deps.clock;
    this.log = deps.log;
    this.keywordSearch =
      deps.keywordSearch ?? ((chatbotId, match, limit) => repo.keywordSearch(chatbotId, match, limit));
    this.storage = deps.storage ?? null;
    this.events = deps.events;
  }

  /** Tells `knowledge.changed` listeners (the agent's tests) about a source: call in the transaction that changed it. */
  sourceChanged(chatbotId: string, sourceId: string, change: 'added' | 'updated' | 'deleted'): void {
    const agent = this.agents.findById(chatbotId);
    if (agent)
      this.events?.emit('knowledge.changed', {
        account_id: agent.user_id,
        chatbot_id: chatbotId,
        source_id: sourceId,
        change,
      });
  }

  listSources(user: AuthUser, chatbotId: string): SourceRow[] {
    const agent = this.agents.get(user, chatbotId);
    return this.repo.listSources(agent.id);
  }

  /** One of the caller's sources; another account's source is 404 with the same detail as a missing one (docs/API.md "Errors"). */
  ownedSource(user: AuthUser, sourceId: string): SourceRow {
    const source = this.repo.findSource(sourceId);
    if (!source || !this.agents.holding(user, source)) throw notFound('Source');
    return source;
  }

  /**
   * One page of a source's passages, as stored: what the owner reads to see what the agent knows
   * from it. Another account's source is 404 like a missing one.
   */
  passages(
    user: AuthUser,
    sourceId: string,
    page: { offset: number; limit: number },
  ): { source: SourceRow; total: number; passages: ChunkRow[] } {
    const source = this.ownedSource(user, sourceId);
    // while a re-crawl runs, the passages of the crawl before (website-options.ts `replaces`)
    const replaces =
      source.status === 'processing' && source.type === 'website' ? websiteOptions(source).replaces : undefined;
    const upTo = typeof replaces === 'number' ? replaces : undefined;
    return {
      source,
      total: this.repo.countChunks(source.id, upTo),
      passages: this.repo.listChunks(source.id, page.offset, page.limit, upTo),
    };
  }

  /** A text source is completed at once: chunked, keyword-indexed and (when possible) embedded before it is returned. */
  async addTextSource(user: AuthUser, chatbotId: string, input: { name: string; content: string }): Promise<SourceRow> {
    const agent = this.agents.get(user, chatbotId);
    const parts = chunkText(input.content);
    if (parts.length === 0) throw badRequest('content: must contain some text');
    return this.addCompletedSource(agent, { type: 'text', name: input.name }, parts);
  }

  /** A qa source: the owner's answer to a question, one passage, completed at once. */
  async addQaSource(
    user: AuthUser,
    chatbotId: string,
    input: { question: string; answer: string },
  ): Promise<SourceRow> {
    const agent = this.agents.get(user, chatbotId);
    const question = input.question.trim();
    const answer = input.answer.trim();
    if (!question) throw badRequest('question: must not be empty');
    if (!answer) throw badRequest('answer: must not be empty');
    const content = qaPassage(question, answer);
    return this.addCompletedSource(
      agent,
      { type: 'qa', qa_question: question, qa_answer: answer, name: question.slice(0, 200) },
      [{ content, tokenCount: estimateTokens(content) }],
    );
  }

  /** Stores a source that needs no ingestion (text, qa) with its passages in one transaction, then embeds them. */
  private async addCompletedSource(
    agent: { id: string; user_id: string },
    fields: { type: 'text' | 'qa'; name: string; qa_question?: string; qa_answer?: string },
    parts: Array<{ content: string; tokenCount: number }>,
  ): Promise<SourceRow> {
    const now = isoNow(this.clock);
    const { source, stored } = this.repo.transaction(() => {
      this.storage?.assertRoom(
        agent.user_id,
        parts.reduce((sum, p) => sum + Buffer.byteLength(p.content), 0),
      );
      const source = this.repo.insertSource({
        id: newId(),
        chatbot_id: agent.id,
        ...fields,
        url: null,
        file_type: null,
        file_size: null,
        status: 'completed',
        error_message: null,
        progress: 1,
        created_at: now,
        updated_at: now,
      });
      const stored = this.repo.insertChunks(agent.id, source.id, parts);
      this.sourceChanged(agent.id, source.id, 'added');
      return { source, stored };
    });
    await this.embedQuietly(stored, source.id);
    return this.repo.findSource(source.id) ?? source;
  }

  /** Edits a qa source's question or answer; its passage is stored (and embedded) again. 404 for another account's or a non-qa source. */
  async updateQaSource(
    user: AuthUser,
    sourceId: string,
    input: { question?: string; answer?: string },
  ): Promise<SourceRow> {
    const current = this.ownedSource(user, sourceId);
    if (current.type !== 'qa') throw notFound('Source');
    const question = (input.question ?? current.qa_question ?? '').trim();
    const answer = (input.answer ?? current.qa_answer ?? '').trim();
    if (!question) throw badRequest('question: must not be empty');
    if (!answer) throw badRequest('answer: must not be empty');
    const content = qaPassage(question, answer);
    const owner = this.agents.findById(current.chatbot_id)!.user_id;
    const stored = this.repo.transaction(() => {
      this.storage?.assertRoom(owner, Buffer.byteLength(content) - current.passage_bytes);
      this.repo.deleteChunksOf(current.id);
      this.repo.updateSource(current.id, {
        qa_question: question,
        qa_answer: answer,
        name: question.slice(0, 200),
        // the owner has looked at it again: nothing left to check
        check_reason: null,
        updated_at: isoNow(this.clock),
      });
      this.sourceChanged(current.chatbot_id, current.id, 'updated');
      return this.repo.insertChunks(current.chatbot_id, current.id, [{ content, tokenCount: estimateTokens(content) }]);
    });
    await this.embedQuietly(stored, current.id);
    return this.repo.findSource(current.id)!;
  }

  private async embedQuietly(rows: ChunkRow[], sourceId: string): Promise<void> {
    await this.embedChunks(rows).catch((err) => {
      this.log.warn({ err, sourceId }, 'embedding failed; the source is keyword-searchable and will be embedded later');
      this.scheduleBackfill();
    });
  }

  /**
   * Hybrid retrieval: bm25 keyword search and (with an embedder) vector search over one agent's
   * chunks, fused by reciprocal rank. A failing embedder degrades to keyword-only. The keyword
   * query stems the question in the agent's language and adds the owner's synonyms and the
   * index's terms near a misspelt word (search-query.ts ftsQuery).
   */
  async search(chatbotId: string, query: string, limit = 5): Promise<Passage[]> {
    const embedding =
      this.embedder && this.vectors
        ? this.embedder.embed([query.slice(0, 8000)]).then(
            ([vector]) => vector!,
            (err: unknown) => {
              this.log.warn({ err }, 'query embedding failed; keyword search only');
              return null;
            },
          )
        : null;
    // The keyword search (in a worker in the app) runs while the query is embedded and, once the
    // vector arrives, while the vector search runs on this thread: whichever of the two paths is
    // longer sets the wait, not their sum.
    const agent = this.agents.findById(chatbotId);
    const match = ftsQuery(query, {
      language: agent?.language,
      synonyms: agent?.synonyms,
      nearTerms: (stem) => this.repo.nearTerms(chatbotId, stem),
    });
    const vectorSearch = embedding?.then((vector) => (vector ? this.searchVectors(chatbotId, vector) : [])) ?? [];
    const [keywordHits, vectorHits] = await Promise.all([
      match ? this.keywordSearch(chatbotId, match, CANDIDATES) : [],
      vectorSearch,
    ]);

    const ranked = fusedRanking(keywordHits, vectorHits);
    // Q&A first: a qa passage among the candidates whose question matches the query (qaMatches)
    // goes ahead of every other passage, in fused order among themselves. Only the Q&A
    // questions of the candidates are read for that; the passages returned are read whole after.
    const qaQuestions = this.repo.qaQuestionsOf(
      chatbotId,
      ranked.map(([id]) => id),
    );
    const qaFirst = (id: number) => {
      const question = qaQuestions.get(id);
      return question !== undefined && qaMatches(question, query, agent?.language) ? 0 : 1;
    };
    const top = keepFirsts(
      ranked.map((entry, i) => ({ entry, i, qa: qaFirst(entry[0]) })).sort((a, b) => a.qa - b.qa || a.i - b.i),
      // the first of each index, then the second of each
      [0, 1].flatMap((i) => [keywordHits[i]?.chunkId, vectorHits[i]?.chunkId]),
      limit,
    );
    const rows = new Map(this.repo.chunksByIds(top.map(({ entry: [id] }) => id)).map((r) => [r.id, r]));
    return top.flatMap(({ entry: [id, f], qa }) => {
      const row = rows.get(id);
      if (!row) return [];
      return [
        {
          chunkId: id,
          sourceId: row.source_id,
          sourceName: sourceLabel(row.source_type, row.source_name, row.source_title),
          sourceUrl: row.source_url,
          content: row.content,
          title: row.title,
          pageUrl: row.page_url,
          page: row.page,
          heading: row.heading,
          ...f,
          qaAnswer: qa === 0 ? row.qa_answer : null,
          qa: row.source_type === 'qa' ? { question: row.qa_question ?? '', answer: row.qa_answer ?? '' } : null,
        },
      ];
    });
  }

  /**
   * The question's words the agent's knowledge holds nowhere, typos and the owner's synonyms
   * aside (search-query.ts unknownWords): for the answer quoted without a model.
   */
  unknownWords(chatbotId: string, query: string): Set<string> {
    const agent = this.agents.findById(chatbotId);
    return unknownWords(query, {
      language: agent?.language,
      synonyms: agent?.synonyms,
      nearTerms: (stem) => this.repo.nearTerms(chatbotId, stem),
      holds: (stem) => this.repo.agentHoldsTerm(chatbotId, stem),
    });
  }

  private searchVectors(chatbotId: string, vector: Float32Array): Array<{ chunkId: number; distance: number }> {
    try {
      return this.vectors!.search(chatbotId, vector, CANDIDATES);
    } catch (err) {
      this.log.warn({ err }, 'vector search failed; keyword search only');
      return [];
    }
  }

  /** Embeds chunks that have no vector for the current embedder (after an outage or an embedder change). */
  scheduleBackfill(): Promise<void> {
    if (!this.embedder || !this.vectors) return Promise.resolve();
    if (!this.backfillRunning) {
      // Cleared when the run settles, not inside it: a run with nothing to do finishes before
      // `runBackfill()` even returns, and clearing inside it would leave the settled promise
      // stored for good, so no later call would ever run a backfill again.
      const run = this.runBackfill();
      this.backfillRunning = run;
      void run.then(() => {
        if (this.backfillRunning === run) this.backfillRunning = null;
      });
    }
    return this.backfillRunning;
  }

  private async runBackfill(): Promise<void> {
    try {
      for (;;) {
        const batch = this.repo.chunksToEmbed(this.embedder!.id, EMBEDDING_BATCH_SIZE);
        if (batch.length === 0) break;
        await this.embedChunks(batch);
      }
    } catch (err) {
      this.log.warn({ err }, 'embedding backfill stopped; it runs again at the next start or new source');
    }
  }

  /** Embeds and stores vectors for these chunks (batched); throws when the embedder fails. */
  async embedChunks(rows: ChunkRow[]): Promise<void> {
    if (!this.embedder || !this.vectors || rows.length === 0) return;
    for (let i = 0; i < rows.length; i += EMBEDDING_BATCH_SIZE) {
      const batch = rows.slice(i, i + EMBEDDING_BATCH_SIZE);
      const vectors = await this.embedder.embed(batch.map(embeddingText));
      this.vectors.store(batch.map((r, j) => ({ chunkId: r.id, chatbotId: r.chatbot_id, vector: vectors[j]! })));
    }
  }
}

/**
 * What is embedded for a passage: its page title and headings, then its text, so that a passage
 * is found by what its page or section is about even when its own words do not say it (as the
 * keyword index does with its context column, migration 0012).
 */
function embeddingText(row: ChunkRow): string {
  const context = [row.title, row.heading].filter(Boolean).join(' — ');
  return context ? `${context}\n\n${row.content}` : row.content;
}
