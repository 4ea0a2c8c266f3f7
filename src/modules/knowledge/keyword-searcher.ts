import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import { DB_WORKER_HEAP, resolveDbWorkerFile, threadPoolBase } from '../../platform/workers/pool.js';
import type { ReadQueryTask } from '../../platform/workers/db-tasks.js';
import { keywordHits, KnowledgeRepo, type KeywordHit } from './repo.js';

export type KeywordSearch = (chatbotId: string, match: string, limit: number) => KeywordHit[] | Promise<KeywordHit[]>;

/**
 * A chat turn's keyword search on a worker thread with its own read-only connection (the
 * `readQuery` task of platform/workers/db-tasks.ts, running the repo's statement). Its bm25
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

  readonly search: KeywordSearch = async (chatbotId, match, limit) => {
    const task: ReadQueryTask = { file: this.databaseFile, ...KnowledgeRepo.keywordQuery(chatbotId, match, limit) };
    try {
      return keywordHits((await this.pool.run(task, { name: 'readQuery' })) as unknown[][]);
    } catch (err) {
      this.log.warn({ err }, 'keyword search in the worker failed; searching on the main thread');
      return this.repo.keywordSearch(chatbotId, match, limit);
    }
  };

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
