import type { Clock } from '../../platform/clock.js';
import type { CounterRow, LimitsRepo } from './repo.js';

export interface RateWindow {
  /** window length in seconds */
  seconds: number;
  /** requests allowed in one window */
  max: number;
}

export interface RateDecision {
  allowed: boolean;
  /** the limit of the window that is closest to running out (RateLimit-Limit) */
  limit: number;
  /** requests left in that window after this one (RateLimit-Remaining) */
  remaining: number;
  /** seconds until that window resets (RateLimit-Reset) */
  resetS: number;
  /** when refused: seconds until every exhausted window has reset (Retry-After) */
  retryAfterS: number;
}

interface Counter {
  windowS: number;
  windowStart: number;
  count: number;
  dirty: boolean;
}

export interface RateLimiterDeps {
  repo: LimitsRepo;
  clock: Clock;
  /** a flush that could not write; the counts are kept and written by a later flush */
  onFlushError?: (err: unknown) => void;
  flushIntervalMs?: number;
}

/**
 * Fixed-window request counters, several windows per key (a minute and an hour for the plans).
 *
 * Counting happens in memory: a write transaction (and its fsync) per request would cost more
 * than the request itself. Changed counters are written to SQLite every `flushIntervalMs` and at
 * shutdown, and read back at start, so a restart resumes the current windows. A crash can lose
 * at most the last interval's counts.
 *
 * A refused request is not counted, and a request is counted in every window only when all of
 * them allow it, so a burst that the minute window refuses does not also use up the hour.
 */
export class RateLimiter {
  /** per key, one counter per window length (a key is counted on every request: no strings built per hit) */
  private readonly counters = new Map<string, Counter[]>();
  private timer: NodeJS.Timeout | null = null;

  private readonly repo: LimitsRepo;
  private readonly clock: Clock;
  private readonly onFlushError: (err: unknown) => void;
  private readonly flushIntervalMs: number;

  constructor({ repo, clock, onFlushError = () => undefined, flushIntervalMs = 2000 }: RateLimiterDeps) {
    this.repo = repo;
    this.clock = clock;
    this.onFlushError = onFlushError;
    this.flushIntervalMs = flushIntervalMs;
  }

  /** Loads the windows still running from the database and starts the periodic flush. */
  start(): void {
    for (const row of this.repo.liveCounters(this.nowS())) {
      const counters = this.counters.get(row.key) ?? [];
      counters.push({ windowS: row.window_s, windowStart: row.window_start, count: row.count, dirty: false });
      this.counters.set(row.key, counters);
    }
    this.timer = setInterval(() => this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush();
  }

  hit(key: string, windows: readonly RateWindow[]): RateDecision {
    const now = this.nowS();
    let counters = this.counters.get(key);
    if (!counters) this.counters.set(key, (counters = []));
    let allowed = true;
    let retryAfterS = 0;
    for (const w of windows) {
      const counter = currentCounter(counters, w.seconds, now);
      if (counter.count >= w.max) {
        allowed = false;
        retryAfterS = Math.max(retryAfterS, counter.windowStart + w.seconds - now);
      }
    }
    // count the request in every window, or in none; report the window with the fewest requests
    // left (on a tie, the one resetting first)
    let limit = 0;
    let remaining = Infinity;
    let resetS = Infinity;
    for (const w of windows) {
      const counter = currentCounter(counters, w.seconds, now);
      if (allowed) {
        counter.count += 1;
        counter.dirty = true;
      }
      const left = w.max - counter.count;
      const reset = counter.windowStart + w.seconds - now;
      if (left < remaining || (left === remaining && reset < resetS)) {
        limit = w.max;
        remaining = left;
        resetS = reset;
      }
    }
    return { allowed, limit, remaining: Math.max(0, remaining), resetS, retryAfterS };
  }

  /** Writes changed counters and forgets ended windows (so memory follows recent traffic only). */
  flush(): void {
    const now = this.nowS();
    const changed: CounterRow[] = [];
    let ended = false;
    for (const [key, counters] of this.counters) {
      for (let i = counters.length - 1; i >= 0; i--) {
        const counter = counters[i]!;
        if (counter.windowStart + counter.windowS <= now) {
          counters.splice(i, 1);
          ended = true;
          continue;
        }
        if (!counter.dirty) continue;
        changed.push({ key, window_s: counter.windowS, window_start: counter.windowStart, count: counter.count });
      }
      if (counters.length === 0) this.counters.delete(key);
    }
    if (changed.length === 0 && !ended) return;
    try {
      this.repo.saveCounters(changed, now);
    } catch (err) {
      // A full disk (or a busy file): the counts stay in memory, still marked changed, and the
      // next flush writes them. Throwing from the timer would end the process.
      this.onFlushError(err);
      return;
    }
    for (const row of changed) {
      const counter = this.counters
        .get(row.key)
        ?.find((c) => c.windowS === row.window_s && c.windowStart === row.window_start);
      if (counter?.count === row.count) counter.dirty = false;
    }
  }

  private nowS(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}

/** The key's counter for the window of this length that contains `now` (started afresh when the last one ended). */
function currentCounter(counters: Counter[], windowS: number, now: number): Counter {
  const windowStart = Math.floor(now / windowS) * windowS;
  for (const counter of counters) {
    if (counter.windowS !== windowS) continue;
    if (counter.windowStart !== windowStart) {
      counter.windowStart = windowStart;
      counter.count = 0;
      counter.dirty = true;
    }
    return counter;
  }
  const counter = { windowS, windowStart, count: 0, dirty: true };
  counters.push(counter);
  return counter;
}
