import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import { resolveWorkerFile, workerExecArgv } from '../../platform/workers/pool.js';
import type { KeywordSearchTask } from '../../platform/workers/parse-worker.js';
import type { KeywordHit } from './repo.js';

export type KeywordSearch = (chatbotId: string, match: string, limit: number) => KeywordHit[] | Promise<KeywordHit[]>;

/**
 * A chat turn's keyword search on a worker thread with its own read-only connection (the task is
 * `keywordSearch` in platform/workers/parse-worker.ts). Its bm25 ranking was the largest piece of
 * main-thread CPU in a turn; in the worker it runs on the other core while the main thread sends
 * the question to the embedder and serves other requests. The worker sees every committed write
 * (WAL), so a passage stored a moment ago is found.
 *
 * One thread, started on the first search and stopped after 5 idle minutes (idle RSS stays that
 * of the main thread). If a search fails in the worker, that search runs on the main thread.
 */
export class KeywordSearcher {
  private readonly pool: Piscina;

  constructor(
    private readonly databaseFile: string,
    private readonly onThisThread: KeywordSearch,
    private readonly log: FastifyBaseLogger,
  ) {
    const workerFile = resolveWorkerFile();
    this.pool = new Piscina({ filename: workerFile, name: 'keywordSearch', execArgv: workerExecArgv(workerFile), minThreads: 0, maxThreads: 1, idleTimeout: 5 * 60_000 });
  }

  readonly search: KeywordSearch = async (chatbotId, match, limit) => {
    const task: KeywordSearchTask = { file: this.databaseFile, chatbotId, match, limit };
    try {
      const rows = (await this.pool.run(task, { name: 'keywordSearch' })) as Array<[number, number]>;
      return rows.map(([chunkId, score]) => ({ chunkId, score }));
    } catch (err) {
      this.log.warn({ err }, 'keyword search in the worker failed; searching on the main thread');
      return this.onThisThread(chatbotId, match, limit);
    }
  };

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
