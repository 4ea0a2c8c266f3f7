import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../clock.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { jobs, type JobRow } from './tables.js';

export interface JobContext {
  /** aborted when the job is cancelled or the process shuts down: stop at a safe point */
  signal: AbortSignal;
  /** 1 on the first run; counts runs a crash interrupted too */
  attempt: number;
  /** past this the handler should give up and record the failure on its subject */
  maxAttempts: number;
}

export type JobHandler = (job: JobRow, ctx: JobContext) => Promise<void>;

export interface JobQueueOptions {
  /** jobs of all kinds running at once */
  concurrency: number;
  /** a job tried this many times (crashes included) is failed for good */
  maxAttempts: number;
  /** how often queued jobs whose run_after has come are looked for */
  pollMs: number;
  /** the job kinds this queue takes (several queues share the table, each with its own pace) */
  kinds: string[];
  /**
   * jobs of one owner (an account) running at once: with `concurrency` above it, a slot is always
   * left for other accounts, so one account's hour-long crawl never holds up everyone's sources
   */
  perOwner: number;
  /**
   * where the queue's own database errors go (a full disk while claiming or recording a result):
   * reported, never thrown, since they happen on a timer where a throw would end the process
   */
  onError: (what: string, err: unknown) => void;
}

export interface EnqueueOptions {
  payload?: unknown;
  runAfter?: Date;
  /** the account the job is for (fair sharing, per-account caps) */
  owner?: string | null;
}

/**
 * A small durable queue in SQLite. Only the main thread writes; handlers do their work (parsing
 * in workers, fetching) and write through their own feature's repository.
 *
 * A handler that throws is retried with backoff until maxAttempts; `failed` is final. Cancelling
 * (a deleted source) aborts a running handler and drops queued rows of that subject.
 */
export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<
    string,
    { controller: AbortController; done: Promise<void>; subjectId: string; owner: string | null }
  >();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly options: JobQueueOptions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    options: Partial<JobQueueOptions> = {},
  ) {
    this.options = {
      concurrency: 1,
      maxAttempts: 3,
      pollMs: 1000,
      kinds: [],
      perOwner: Number.POSITIVE_INFINITY,
      onError: (what, err) => log.error({ err }, `${what} failed`),
      ...options,
    };
    if (this.options.kinds.length === 0) throw new Error('a JobQueue needs the kinds it takes');
  }

  register(kind: string, handler: JobHandler): void {
    if (!this.options.kinds.includes(kind)) throw new Error(`this queue does not take ${kind} jobs`);
    this.handlers.set(kind, handler);
  }

  /** Adds a job; call inside the transaction that creates its subject so both exist or neither. */
  enqueue(kind: string, subjectId: string, options: EnqueueOptions = {}): string {
    const now = isoNow(this.clock);
    const id = newId();
    this.db
      .insert(jobs)
      .values({
        id,
        kind,
        subject_id: subjectId,
        owner: options.owner ?? null,
        payload: JSON.stringify(options.payload ?? {}),
        status: 'queued',
        attempts: 0,
        run_after: (options.runAfter ?? this.clock.now()).toISOString(),
        created_at: now,
        updated_at: now,
      })
      .run();
    queueMicrotask(() => this.kick());
    return id;
  }

  /** Requeues jobs a crashed process left running, then starts taking work. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const now = isoNow(this.clock);
    try {
      const requeued = this.db
        .update(jobs)
        .set({ status: 'queued', updated_at: now })
        .where(and(eq(jobs.status, 'running'), inArray(jobs.kind, this.options.kinds)))
        .run().changes;
      if (requeued > 0) this.log.info({ requeued }, 'jobs left running by a previous process are queued again');
    } catch (err) {
      // a start on a full disk: those jobs wait for the next start, the rest of the queue runs
      this.options.onError('queueing again the jobs a previous process left running', err);
    }
    this.kick();
  }

  /** Stops taking work, aborts running handlers and waits for them to reach a safe point. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const r of this.running.values()) r.controller.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Drops queued jobs of a subject and aborts its running one; resolves when it has stopped. */
  async cancelSubject(subjectId: string): Promise<void> {
    this.db
      .delete(jobs)
      .where(and(eq(jobs.subject_id, subjectId), inArray(jobs.status, ['queued', 'running'])))
      .run();
    const waits: Promise<void>[] = [];
    for (const r of this.running.values()) {
      if (r.subjectId === subjectId) {
        r.controller.abort();
        waits.push(r.done);
      }
    }
    await Promise.allSettled(waits);
  }

  /** Jobs of this queue an owner has queued or running (a feature's per-account cap). */
  activeCount(owner: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(jobs)
      .where(
        and(eq(jobs.owner, owner), inArray(jobs.status, ['queued', 'running']), inArray(jobs.kind, this.options.kinds)),
      )
      .get()!.n;
  }

  /**
   * Resolves when no job is running or due (tests and shutdown use it). A stopped queue runs no
   * due job, so there it resolves once nothing runs: waiting for one would never end.
   */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.running.values()].map((r) => r.done);
      if (running.length === 0 && (this.stopped || !this.nextDue())) return;
      if (running.length === 0) this.kick();
      await Promise.race([Promise.allSettled(running), new Promise((r) => setImmediate(r))]);
    }
  }

  /**
   * The next due job, oldest first, of an owner below its share of running jobs (`perOwner`):
   * with the other slots taken by one account, another account's job is the next one run.
   */
  private nextDue(): JobRow | undefined {
    const running = new Map<string, number>();
    for (const r of this.running.values()) if (r.owner !== null) running.set(r.owner, (running.get(r.owner) ?? 0) + 1);
    const full = [...running].filter(([, n]) => n >= this.options.perOwner).map(([owner]) => owner);
    return this.db
      .select()
      .from(jobs)
      .where(
        and(
          eq(jobs.status, 'queued'),
          inArray(jobs.kind, this.options.kinds),
          lte(jobs.run_after, isoNow(this.clock)),
          full.length > 0
            ? sql`(${jobs.owner} IS NULL OR ${jobs.owner} NOT IN (SELECT value FROM json_each(${JSON.stringify(full)})))`
            : undefined,
        ),
      )
      .orderBy(asc(jobs.run_after), asc(jobs.id))
      .limit(1)
      .get();
  }

  private kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    try {
      while (this.running.size < this.options.concurrency) {
        const job = this.claim();
        if (!job) break;
        this.run(job);
      }
    } catch (err) {
      // the claim could not be written (a full disk): the job stays queued, the next poll tries again
      this.options.onError('claiming a job', err);
    }
    this.timer = setTimeout(() => this.kick(), this.options.pollMs);
    this.timer.unref();
  }

  /** Marks the next due job running; returns it (one synchronous transaction, so no double claim). */
  private claim(): JobRow | undefined {
    return this.db.transaction(() => {
      const job = this.nextDue();
      if (!job) return undefined;
      const now = isoNow(this.clock);
      return this.db
        .update(jobs)
        .set({ status: 'running', attempts: sql`${jobs.attempts} + 1`, updated_at: now })
        .where(eq(jobs.id, job.id))
        .returning()
        .get();
    });
  }

  private run(job: JobRow): void {
    const controller = new AbortController();
    const handler = this.handlers.get(job.kind);
    const done = (async () => {
      try {
        if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
        await handler(job, { signal: controller.signal, attempt: job.attempts, maxAttempts: this.options.maxAttempts });
        this.finish(job, 'done', null);
      } catch (err) {
        try {
          this.recordFailure(job, err, controller.signal.aborted);
        } catch (recordErr) {
          // the row stays `running`; the next start queues it again
          this.options.onError(`recording the end of job ${job.id}`, recordErr);
        }
      } finally {
        this.running.delete(job.id);
        if (!this.stopped) queueMicrotask(() => this.kick());
      }
    })();
    this.running.set(job.id, { controller, done, subjectId: job.subject_id, owner: job.owner });
  }

  /** A handler threw: cancelled, stopped for a shutdown, retried later, or failed for good. */
  private recordFailure(job: JobRow, err: unknown, aborted: boolean): void {
    if (aborted) {
      // Cancelled: the row is already gone. Shutting down: the job goes back to the queue
      // without the attempt it was on, since a stop is no failure of the job (three restarts
      // during a long ingestion used to end it failed). A crash still counts the attempt.
      if (this.stopped) {
        this.db
          .update(jobs)
          .set({ status: 'queued', attempts: sql`max(0, ${jobs.attempts} - 1)`, updated_at: isoNow(this.clock) })
          .where(and(eq(jobs.id, job.id), eq(jobs.status, 'running')))
          .run();
      }
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    if (job.attempts >= this.options.maxAttempts) {
      this.finish(job, 'failed', message);
      this.log.warn({ jobId: job.id, kind: job.kind, err }, 'job failed for good');
    } else {
      const backoffMs = Math.min(60_000, 2000 * 2 ** (job.attempts - 1));
      this.db
        .update(jobs)
        .set({
          status: 'queued',
          last_error: message,
          run_after: new Date(this.clock.now().getTime() + backoffMs).toISOString(),
          updated_at: isoNow(this.clock),
        })
        .where(eq(jobs.id, job.id))
        .run();
    }
  }

  private finish(job: JobRow, status: 'done' | 'failed', error: string | null): void {
    // done jobs are deleted: the queue is not a log, and the subject's row says what happened
    if (status === 'done') this.db.delete(jobs).where(eq(jobs.id, job.id)).run();
    else
      this.db
        .update(jobs)
        .set({ status, last_error: error, updated_at: isoNow(this.clock) })
        .where(eq(jobs.id, job.id))
        .run();
  }
}
