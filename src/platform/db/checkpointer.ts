import type Database from 'better-sqlite3';
import { stat } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import type { CheckpointRefusal, CheckpointResult } from '../workers/db-tasks.js';
import { DB_WORKER_HEAP, resolveDbWorkerFile, threadPoolBase } from '../workers/pool.js';

/** checkpoint once the WAL holds this much (SQLite's own default is 1000 pages, ~4 MB) */
const WAL_BYTES_BEFORE_CHECKPOINT = 4 * 1024 * 1024;
const CHECK_EVERY_MS = 1000;

/**
 * WAL checkpoints off the main thread. SQLite's automatic checkpoint runs inside the commit that
 * crosses the threshold: it copies the WAL into the database file and fsyncs both, which held the
 * event loop 30-70 ms every few MB during a large ingestion (bench/ingest-event-loop.ts). The main
 * connection turns it off (`wal_autocheckpoint=0`) and this runs PASSIVE checkpoints from a
 * connection in a worker thread whenever the WAL has grown past ~4 MB. If the worker cannot
 * checkpoint (it fails to start, say), the main connection's automatic checkpoint comes back, so
 * the WAL never grows without bound.
 */
export class WalCheckpointer {
  private readonly pool: Piscina;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private fallenBack = false;
  /** stop() began: the pool is going and the database closes next, so nothing more may start */
  private stopped = false;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly file: string,
    private readonly log: FastifyBaseLogger,
    /** a checkpoint SQLite refused (a full disk): the WAL keeps the pages and a later checkpoint copies them */
    private readonly onRefused: (err: unknown) => void = (err) =>
      log.warn({ err }, 'WAL checkpoint refused; will try again'),
  ) {
    const workerFile = resolveDbWorkerFile();
    this.pool = new Piscina({
      ...threadPoolBase(workerFile),
      name: 'checkpoint',
      resourceLimits: DB_WORKER_HEAP,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 60_000,
    });
  }

  start(): void {
    this.sqlite.pragma('wal_autocheckpoint = 0');
    // after a checkpoint lets the WAL start over, its file is cut back to this size
    this.sqlite.pragma(`journal_size_limit = ${16 * 1024 * 1024}`);
    this.timer = setInterval(() => void this.checkpointIfLarge(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** One checkpoint if the WAL is past the threshold (exported for tests through `checkpointNow`). */
  async checkpointIfLarge(): Promise<void> {
    if (this.running || this.fallenBack) return;
    let size: number;
    try {
      size = (await stat(`${this.file}-wal`)).size;
    } catch {
      return; // no WAL file (nothing written yet)
    }
    // the stat above awaited: stop() may have run meanwhile (its pool gone, the database closing)
    if (size >= WAL_BYTES_BEFORE_CHECKPOINT && !this.stopped) await this.checkpointNow();
  }

  /** A PASSIVE checkpoint in the worker; resolves with its result, or null when it failed. */
  async checkpointNow(): Promise<CheckpointResult | null> {
    if (this.stopped) return null;
    let result: CheckpointResult | null = null;
    const run = (async () => {
      try {
        const outcome = (await this.pool.run({ file: this.file }, { name: 'checkpoint' })) as
          | CheckpointResult
          | CheckpointRefusal;
        if ('refused' in outcome)
          this.onRefused(Object.assign(new Error(outcome.refused.message), { code: outcome.refused.code }));
        else result = outcome;
      } catch (err) {
        if (this.stopped) return; // the pool was destroyed on purpose, and the connection may be closed
        this.log.error({ err }, 'WAL checkpoint in the worker failed; checkpoints go back to the main thread');
        this.fallenBack = true;
        this.sqlite.pragma('wal_autocheckpoint = 1000');
      }
    })();
    this.running = run;
    await run;
    this.running = null;
    return result;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.pool.destroy();
  }
}
