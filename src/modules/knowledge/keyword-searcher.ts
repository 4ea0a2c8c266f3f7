import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import { DB_WORKER_HEAP, resolveDbWorkerFile, threadPoolBase } from '../../platform/workers/pool.js';
import type { ReadColumnsTask, ReadQueryTask } from '../../platform/workers/db-tasks.js';
import { agentMatch } from './keyword-query.js';
import {
  bestByScore,
  compactIds,
  KEYWORD_INDEX_WRITES_SQL,
  matchPhrases,
  PHRASE_SCORES_SQL,
  type PhraseScores,
} from './keyword-scores.js';
import { keywordHits, KnowledgeRepo, type KeywordHit } from './repo.js';

export type KeywordSearch = (chatbotId: string, match: string, limit: number) => KeywordHit[] | Promise<KeywordHit[]>;

/**
 * A chat turn's keyword search: the bm25 scores of the question's phrases the repo does not hold
 * (keyword-scores.ts) are read on a worker thread with its own read-only connection (the
 * `readColumns` task of platform/workers/db-tasks.ts; `readQuery` for a whole query). bm25
 * ranking was the largest piece of main-thread CPU in a turn; in the worker it runs on the other
 * core while the main thread sends the question to the embedder and serves other requests. The
 * worker sees every committed write (WAL), so a passage stored a moment ago is found.
 *
 * One thread, started on the first search and stopped after 5 idle minutes (idle RSS stays that
 * of the main thread). If a search fails in the worker, that search runs on the main thread.
 */
export class KeywordSearcher {
  private readonly pool: Piscina;

  constructor(
    private readonly databaseFile: string,
    private readonly repo: KnowledgeRepo,
    private readonly log: FastifyBaseLogger,
  ) {
    const workerFile = resolveDbWorkerFile();
    // stricterFIFO: piscina's default puts a task it cannot hand over at once back at the tail of
    // its queue; under sustained load (100 chats at once on 100k chunks) some searches lost their
    // place again and again and their visitors waited over 10 s while the rest took ~2 s.
    this.pool = new Piscina({
      ...threadPoolBase(workerFile),
      name: 'readQuery',
      resourceLimits: DB_WORKER_HEAP,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 5 * 60_000,
      stricterFIFO: true,
    });
  }

  /**
   * From the repo's score cache when it holds every phrase of the question (a point read and
   * ~0.2 ms of summing on this thread); otherwise the worker reads the phrases it lacks, with the
   * index's change count in the same snapshot, and they are kept. When the index changed while
   * the worker read, it runs the whole query instead: scores of two states are never summed.
   */
  readonly search: KeywordSearch = async (chatbotId, match, limit) => {
    try {
      const phrases = matchPhrases(agentMatch(chatbotId, match));
      if (!phrases) return await this.searchWhole(chatbotId, match, limit);
      const cache = this.repo.keywordScoresNow();
      const lists = phrases.map((phrase) => cache.get(phrase));
      const missing = phrases.filter((_, i) => !lists[i]);
      if (missing.length > 0) {
        const task: ReadColumnsTask = {
          file: this.databaseFile,
          queries: [
            { sql: KEYWORD_INDEX_WRITES_SQL, params: [] },
            ...missing.map((phrase) => ({ sql: PHRASE_SCORES_SQL, params: [phrase] })),
          ],
        };
        const heldAt = cache.indexWrites;
        const [writes, ...read] = (await this.pool.run(task, { name: 'readColumns' })) as Float64Array[][];
        if (writes![0]![0] !== heldAt || this.repo.keywordScoresNow().indexWrites !== heldAt) {
          return await this.searchWhole(chatbotId, match, limit);
        }
        const readNow = new Map<string, PhraseScores>();
        missing.forEach((phrase, i) => {
          const [ids, scores] = read[i]!;
          readNow.set(phrase, { ids: compactIds(ids!), scores: scores! });
          cache.put(phrase, readNow.get(phrase)!, heldAt);
        });
        lists.forEach((held, i) => {
          lists[i] = held ?? readNow.get(phrases[i]!);
        });
      }
      return bestByScore(lists as PhraseScores[], limit);
    } catch (err) {
      this.log.warn({ err }, 'keyword search in the worker failed; searching on the main thread');
      return this.repo.keywordSearch(chatbotId, match, limit);
    }
  };

  private async searchWhole(chatbotId: string, match: string, limit: number): Promise<KeywordHit[]> {
    const task: ReadQueryTask = { file: this.databaseFile, ...KnowledgeRepo.keywordQuery(chatbotId, match, limit) };
    return keywordHits((await this.pool.run(task, { name: 'readQuery' })) as unknown[][]);
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
