import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { threadId } from 'node:worker_threads';
import { setTaskMemoryBudget } from './memory-guard.js';

// What every worker task does as it starts on its thread (worker-tasks.ts): say which thread runs
// it, and lower the thread's priority when the task is background work.

/**
 * Where the worker writes its thread id as it starts a task, so the pool's memory watch knows
 * which task a thread's memory belongs to (pool.ts): `cells` is shared with the pool.
 */
export interface TaskWatch {
  cells: Int32Array;
  slot: number;
  /** the task's memory budget, heap and buffers (INGEST_MEMORY_MB), also checked at each large allocation (memory-guard.ts) */
  budgetBytes?: number;
}

export function announceThread(watch: TaskWatch | undefined): void {
  if (watch) Atomics.store(watch.cells, watch.slot, threadId);
  setTaskMemoryBudget(watch?.budgetBytes ?? 0);
}

/** how much nicer than the process a thread doing background work (parsing, checkpoints) is; 19 is the lowest priority */
const BACKGROUND_NICENESS = 10;
let backgroundPriority = false;

/**
 * Parsing and WAL checkpoints are background work: on a small box (2 cores) their thread would
 * otherwise take the CPU from the event loop answering visitors. The thread running them lowers
 * its own priority once (Linux: setpriority on the thread's id; each pool has its own threads).
 * Read queries keep the normal priority: a visitor waits on a chat turn's keyword search.
 * Measured with sequential chats while a 600-page PDF was parsed: p90 25-30 ms instead of 33,
 * 10-30% more turns served meanwhile, the PDF done in the same time (~12 s).
 */
export function runInBackground(): void {
  if (backgroundPriority) return;
  backgroundPriority = true;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0)
      setPriority(threadId, Math.min(19, getPriority(threadId) + BACKGROUND_NICENESS));
  } catch {
    // not Linux, or not permitted: the thread keeps the normal priority
  }
}
