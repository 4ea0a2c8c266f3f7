import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { dbWorkerTasksFile, workerTasksFile } from '../assets.js';
// Types only: a value import would pull the parsers into the main bundle.
import type { HtmlReply, HtmlTask } from './html-task.js';
import type { ParseLimits } from './parse-common.js';
import type { TaskWatch } from './task-thread.js';
import type { ParseTask, TextReply, WorkerReply } from './worker-tasks.js';
import {
  DEFAULT_INGEST_MEMORY_MB,
  type HtmlDocument,
  OUT_OF_MEMORY_MESSAGE,
  ParseError,
  type ParsableType,
  type ParsedText,
  type ParseResult,
  type ParserPool,
} from './types.js';

export interface ParserPoolOptions {
  /** worker threads; default 1 (on a 2-core box the main thread needs the other core) */
  maxThreads?: number;
  /** per-document processing time, not counting time waiting for a free thread; default 120 s */
  timeoutMs?: number;
  /** per web page (extractHtml): a page is far less work than a document; default 30 s */
  pageTimeoutMs?: number;
  /** V8 old-generation heap of each worker; default three quarters of maxMemoryMb (parseWorkerHeap) */
  maxOldGenerationSizeMb?: number;
  /**
   * What one task's thread may hold, heap and buffers together (pdf.js's decoded streams are
   * buffers, outside the heap limit); a large buffer that would pass it is refused as it is asked
   * for (memory-guard.ts), and a thread found past it is ended. Either way the document is refused.
   * Default DEFAULT_INGEST_MEMORY_MB.
   */
  maxMemoryMb?: number;
  /** an idle worker exits after this long (the next job starts a new one); default 60 s */
  idleTimeoutMs?: number;
  /**
   * Absolute path of the worker entry. Default: see resolveWorkerFile(). A `.ts` file runs with
   * `--import tsx`; a `.js` file runs under plain node.
   */
  workerFile?: string;
  /** overrides of the parser's limits (DEFAULT_PARSE_LIMITS in parse-common.ts) */
  limits?: Partial<ParseLimits>;
}

export { OUT_OF_MEMORY_MESSAGE };
/** how often the memory of threads running a task is read (while any runs) */
const MEMORY_CHECK_MS = 100;

/**
 * V8 heap limits of a document-reading thread: its old generation is three quarters of the task
 * budget (144 MB of the default 192), so the budget is what normally stops a document, and a
 * larger INGEST_MEMORY_MB gives the parsers' heap room too (V8 itself ends a thread past its heap
 * limit with ERR_WORKER_OUT_OF_MEMORY: the same message); its young generation is kept small.
 * V8 flags are process-wide: under the start script's --max-semi-space-size=1 every thread's
 * young generation is that small (3 MB), whatever resourceLimits ask for.
 */
export function parseWorkerHeap(budgetMb: number): {
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb: number;
} {
  return { maxOldGenerationSizeMb: Math.max(48, Math.round(budgetMb * 0.75)), maxYoungGenerationSizeMb: 8 };
}
/**
 * Heap limits of the database threads (WAL checkpoints, quick_check, keyword searches): their
 * JavaScript is a few statements; SQLite's memory is native and bounded by its page cache.
 */
export const DB_WORKER_HEAP = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } as const;
const POOL_CLOSED = 'The parser pool is closed';

/**
 * The worker entry: dist/worker-tasks.js beside dist/main.js (plain node), worker-tasks.ts from
 * source (under tsx), or the bundle unpacked from the executable; platform/assets.ts decides.
 * Not found: thrown at pool creation, not at the first upload. Every pool of worker threads
 * (documents, checkpoints, integrity checks, keyword searches) runs this one file.
 */
export function resolveWorkerFile(): string {
  return workerTasksFile();
}

/** The worker entry of the pools that only work on the database (platform/assets.ts dbWorkerTasksFile). */
export function resolveDbWorkerFile(): string {
  return dbWorkerTasksFile();
}

/**
 * What every pool of worker threads is created with: the file, the Node flags it needs (tsx for a
 * `.ts` file) and no timing histograms. Piscina records run and wait times in two histograms per
 * pool by default, about 0.34 MB each (2.75 MB of the idle server's 4 pools) that nothing reads.
 */
export function threadPoolBase(workerFile: string): { filename: string; execArgv: string[]; recordTiming: false } {
  return { filename: workerFile, execArgv: workerExecArgv(workerFile), recordTiming: false };
}

function workerExecArgv(workerFile: string): string[] {
  if (!workerFile.endsWith('.ts')) return [];
  // An absolute URL, so the worker finds tsx whatever the current directory is.
  const tsx = createRequire(import.meta.url).resolve('tsx');
  return ['--import', pathToFileURL(tsx).href];
}

export function createParserPool(opts: ParserPoolOptions = {}): ParserPool {
  const maxThreads = Math.max(1, Math.floor(opts.maxThreads ?? 1));
  const timeoutMs = Math.max(1, opts.timeoutMs ?? 120_000);
  const pageTimeoutMs = Math.max(1, Math.min(opts.pageTimeoutMs ?? 30_000, timeoutMs));
  const timeoutText = (ms: number) => `Processing took longer than ${+(ms / 1000).toFixed(1)} s`;
  const workerFile = opts.workerFile ?? resolveWorkerFile();
  const budgetMb = opts.maxMemoryMb ?? DEFAULT_INGEST_MEMORY_MB;
  if (!existsSync(workerFile)) throw new Error(`parser worker not found: ${workerFile}`);

  const piscina = new Piscina<ParseTask | HtmlTask, WorkerReply | TextReply | HtmlReply>({
    ...threadPoolBase(workerFile),
    minThreads: 0,
    maxThreads,
    idleTimeout: opts.idleTimeoutMs ?? 60_000,
    resourceLimits: {
      ...parseWorkerHeap(budgetMb),
      ...(opts.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: opts.maxOldGenerationSizeMb } : {}),
    },
  });
  // A worker that fails with no task running would otherwise be an unhandled 'error' event.
  piscina.on('error', () => undefined);

  // Jobs wait here, not in piscina's queue: at most maxThreads tasks reach piscina, so each
  // timeout counts processing (and a worker's start), not time spent waiting for a thread.
  const slots = new Slots(maxThreads);
  const running = new Set<AbortController>();
  let closed = false;
  const memory = new MemoryWatch(piscina, maxThreads, budgetMb * MB);

  const fileTask = (filePath: string, type: ParsableType): ParseTask => ({
    path: filePath,
    type,
    ...(opts.limits ? { limits: opts.limits } : {}),
  });

  async function parse(filePath: string, type: ParsableType, signal?: AbortSignal): Promise<ParseResult> {
    return run<WorkerReply>('default', fileTask(filePath, type), signal);
  }

  /** A web page's blocks, read off the main thread: its cost, whatever the page, never stalls requests. */
  async function extractHtml(html: string, url: string, signal?: AbortSignal): Promise<HtmlDocument> {
    return run<HtmlReply>('extractHtml', { html, url } satisfies HtmlTask, signal, pageTimeoutMs);
  }

  async function parseText(filePath: string, type: ParsableType, signal?: AbortSignal): Promise<ParsedText> {
    const reply = await run<TextReply>('parseText', fileTask(filePath, type), signal);
    if ('fileFrom' in reply) return { ...reply, marks: [] };
    const { utf8, units, title, marks } = reply;
    return {
      utf8: Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength),
      bytes: utf8.byteLength,
      units,
      marks: marks ?? [],
      ...(title ? { title } : {}),
    };
  }

  /** One task of the worker file (`name` is its export), with the pool's slots, timeout and abort. */
  async function run<R extends object>(
    name: string,
    task: ParseTask | HtmlTask,
    signal?: AbortSignal,
    limitMs = timeoutMs,
  ): Promise<Exclude<R, { error: string }>> {
    if (closed) throw new Error(POOL_CLOSED);
    signal?.throwIfAborted();
    await slots.acquire(signal);
    const job = new AbortController();
    running.add(job);
    const watched = memory.watch(job);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      job.abort();
    }, limitMs);
    try {
      if (closed) throw new Error(POOL_CLOSED);
      let reply: R;
      try {
        // On abort piscina rejects at once and terminates the worker running the task.
        reply = (await piscina.run(
          { ...task, watch: watched.watch },
          { name, signal: signal ? AbortSignal.any([signal, job.signal]) : job.signal },
        )) as R;
      } catch (err) {
        if (watched.overBudget()) throw new ParseError(OUT_OF_MEMORY_MESSAGE);
        if (timedOut) throw new ParseError(timeoutText(limitMs));
        if (signal?.aborted) throw signal.reason;
        if (closed) throw new Error(POOL_CLOSED);
        if ((err as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY')
          throw new ParseError(OUT_OF_MEMORY_MESSAGE);
        throw err;
      }
      if ('error' in reply) throw new ParseError(String(reply.error));
      return reply as Exclude<R, { error: string }>;
    } finally {
      clearTimeout(timer);
      watched.end();
      running.delete(job);
      slots.release();
    }
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    slots.cancelWaiting(new Error(POOL_CLOSED));
    // piscina.destroy() never settles running tasks: abort them first (terminates their workers).
    for (const job of running) job.abort();
    memory.stop();
    await piscina.destroy();
  }

  return { parse, parseText, extractHtml, close };
}

const MB = 1024 * 1024;

/**
 * Holds each task's thread to a memory budget that covers buffers too: V8's heap limit does not
 * count ArrayBuffers, so a 1.5 MB PDF whose streams expand to 1 GiB took the process to 2.3 GB.
 * The worker checks its large allocations against the same budget (memory-guard.ts); this watch
 * catches what grows in small pieces. While tasks run, each thread's heap statistics (read by V8
 * even while the thread is busy) are checked every 100 ms; a thread past the budget has its task
 * aborted, which ends the thread.
 * A task's worker writes its thread id into a shared cell as it starts (worker-tasks.ts
 * TaskWatch), which is how a thread's memory is tied to its task.
 */
class MemoryWatch {
  private readonly cells: Int32Array;
  private readonly jobs: Array<{ job: AbortController; over: boolean } | null>;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly piscina: Piscina,
    size: number,
    private readonly budgetBytes: number,
  ) {
    this.cells = new Int32Array(new SharedArrayBuffer(4 * size));
    this.jobs = new Array(size).fill(null);
  }

  watch(job: AbortController): { watch: TaskWatch; overBudget: () => boolean; end: () => void } {
    const slot = this.jobs.indexOf(null);
    const entry = { job, over: false };
    this.jobs[slot] = entry;
    Atomics.store(this.cells, slot, 0);
    this.timer ??= setInterval(() => void this.check(), MEMORY_CHECK_MS);
    return {
      watch: { cells: this.cells, slot, budgetBytes: this.budgetBytes },
      overBudget: () => entry.over,
      end: () => {
        this.jobs[slot] = null;
        Atomics.store(this.cells, slot, 0);
        if (this.jobs.every((j) => j === null)) this.stop();
      },
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await Promise.all(
        this.piscina.threads.map(async (thread) => {
          const slot = Array.prototype.indexOf.call(this.cells, thread.threadId);
          const entry = slot >= 0 ? this.jobs[slot] : null;
          if (!entry || entry.over) return;
          const stats = await thread.getHeapStatistics().catch(() => null); // the thread may have just ended
          if (stats && stats.used_heap_size + stats.external_memory > this.budgetBytes && this.jobs[slot] === entry) {
            entry.over = true;
            entry.job.abort(); // piscina ends the thread running it
          }
        }),
      );
    } finally {
      this.checking = false;
    }
  }
}

/** A counting semaphore with a FIFO of waiters that can give up (abort) while waiting. */
class Slots {
  private free: number;
  private readonly waiters: Array<{ grant: () => void; fail: (err: unknown) => void }> = [];

  constructor(size: number) {
    this.free = size;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (err: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.free++;
  }

  cancelWaiting(err: Error): void {
    for (const w of this.waiters.splice(0)) w.fail(err);
  }
}
