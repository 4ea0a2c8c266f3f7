import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import type { DatabaseCondition } from './condition.js';
import { DB_WORKER_HEAP, resolveDbWorkerFile, threadPoolBase } from '../workers/pool.js';

/** one check a day, and one at start: quick_check reads the whole file, so not more often */
const CHECK_EVERY_MS = 24 * 60 * 60 * 1000;
/** the start's check waits this long: the server answers first, and a process started only for a moment (a test) never pays for a thread */
const FIRST_CHECK_AFTER_MS = 5_000;
/** after a request met a damaged page, at most one extra check in this time */
const EXTRA_CHECK_AT_MOST_EVERY_MS = 10 * 60 * 1000;

/**
 * Damage in the middle of the file shows only when a request reads the damaged page (a transcript
 * answered 500 while health said ok). SQLite's quick_check walks every page and index of the file
 * (not the cross-checks of integrity_check, which take far longer); it runs in a thread of its own
 * seconds after start, then daily, and again soon after a request met damage. The finding goes to the
 * DatabaseCondition that health and the admin status read.
 */
export class IntegrityWatch {
  private readonly pool: Piscina;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastExtraAt = 0;
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly condition: DatabaseCondition,
    private readonly log: FastifyBaseLogger,
  ) {
    const workerFile = resolveDbWorkerFile();
    // the thread (and its connection) goes away soon after a check: nothing held between checks
    this.pool = new Piscina({
      ...threadPoolBase(workerFile),
      name: 'quickCheck',
      resourceLimits: DB_WORKER_HEAP,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 1000,
    });
  }

  /** Checks a few seconds after start, then every day. */
  start(): void {
    this.timer = setTimeout(() => {
      void this.checkNow();
      this.timer = setInterval(() => void this.checkNow(), CHECK_EVERY_MS);
      this.timer.unref();
    }, FIRST_CHECK_AFTER_MS);
    this.timer.unref();
  }

  /** A request met a damaged page: check again, unless that was done a few minutes ago. */
  soon(): void {
    if (Date.now() - this.lastExtraAt < EXTRA_CHECK_AT_MOST_EVERY_MS) return;
    this.lastExtraAt = Date.now();
    void this.checkNow();
  }

  /** One check (joining one in progress); resolves when its finding is recorded. Never rejects. */
  checkNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.check().finally(() => (this.running = null));
    return this.running;
  }

  private async check(): Promise<void> {
    const started = Date.now();
    try {
      const { problems } = (await this.pool.run({ file: this.file }, { name: 'quickCheck' })) as { problems: string[] };
      this.condition.integrityChecked(problems.length === 0 ? null : problems.slice(0, 3).join('; '));
      this.log.info(
        { ms: Date.now() - started, ok: problems.length === 0 },
        'database integrity check (quick_check) done',
      );
    } catch (err) {
      // the thread could not run it (shutting down, say): no finding either way
      if (!this.stopped) this.log.warn({ err }, 'the database integrity check could not run');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer ?? undefined);
    clearInterval(this.timer ?? undefined);
    await this.running;
    await this.pool.destroy();
  }
}
