import { getHeapStatistics } from 'node:v8';

/**
 * The per-task memory budget (INGEST_MEMORY_MB), enforced inside the worker at the moment a large
 * buffer is asked for. The pool's watch (pool.ts MemoryWatch) reads each thread's memory every
 * 100 ms, which is too late for pdf.js: it decodes a stream into one Uint8Array that it doubles
 * as it fills (DecodeStream.ensureBuffer), so between two readings a 1 GiB-expanding PDF went from
 * a 256 MB buffer to a 512 MB one plus its 512 MB copy, and the process to 1.1 GB. Here every
 * typed array or ArrayBuffer of at least 1 MB that code in this thread creates through the global
 * constructors (pdf.js, mammoth, exceljs, JSZip do) is checked first: when this thread's heap and
 * buffers plus the new one would pass the budget, the constructor throws instead of allocating,
 * and the task's reply is the out-of-memory refusal (worker-tasks.ts). Node's own buffers
 * (Buffer.alloc, fs reads) use constructors captured at start-up and are not checked: those are
 * sized by limits checked before (ParseLimits.maxInputBytes).
 *
 * The constructors become Proxies of themselves: `instanceof`, statics and subclassing behave as
 * before; only `X === globalThis.Uint8Array` comparisons against the original would differ, which
 * none of the libraries make.
 */

const MIN_CHECKED_BYTES = 1024 * 1024;

let budgetBytes = 0;
let tripped = false;

/** Starts a task's budget (0 = none) and forgets a refusal of the task before. */
export function setTaskMemoryBudget(bytes: number): void {
  // only a task run by the pool has a budget: a caller running a task in its own thread (a bench,
  // a test) keeps its constructors as they are
  if (bytes > 0) installOnce();
  budgetBytes = Math.max(bytes, 0);
  tripped = false;
}

/** Whether the running task was refused an allocation (its error, whatever a library made of it, is then this). */
export function memoryBudgetExceeded(): boolean {
  return tripped;
}

export class MemoryBudgetError extends RangeError {
  override name = 'MemoryBudgetError';
}

function check(bytes: number): void {
  if (budgetBytes === 0 || !(bytes >= MIN_CHECKED_BYTES)) return;
  const stats = getHeapStatistics();
  if (stats.used_heap_size + stats.external_memory + bytes > budgetBytes) {
    tripped = true;
    throw new MemoryBudgetError(
      `an allocation of ${Math.round(bytes / 2 ** 20)} MB would pass the task's memory budget`,
    );
  }
}

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const;

let installed = false;

function installOnce(): void {
  if (installed) return;
  installed = true;
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of TYPED_ARRAYS) {
    const Original = global[name] as { BYTES_PER_ELEMENT: number } & (new (...args: unknown[]) => object);
    global[name] = new Proxy(Original, {
      construct(target, args, newTarget) {
        // new X(length): the only form that allocates from a number (the others copy what exists)
        if (typeof args[0] === 'number') check(args[0] * target.BYTES_PER_ELEMENT);
        return Reflect.construct(target, args, newTarget === global[name] ? target : newTarget);
      },
    });
  }
  const OriginalArrayBuffer = ArrayBuffer;
  global.ArrayBuffer = new Proxy(OriginalArrayBuffer, {
    construct(target, args, newTarget) {
      if (typeof args[0] === 'number') check(args[0]);
      return Reflect.construct(target, args, newTarget === global.ArrayBuffer ? target : newTarget);
    },
  });
}
