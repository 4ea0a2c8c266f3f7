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
  windowStart: number;
  count: number;
  dirty: boolean;
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
  private readonly counters = new Map<string, Counter>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repo: LimitsRepo,
    private readonly clock: Clock,
    private readonly flushIntervalMs = 2000,
  ) {}

  /** Loads the windows still running from the database and starts the periodic flush. */
  start(): void {
    for (const row of this.repo.liveCounters(this.nowS())) {
      this.counters.set(counterKey(row.key, row.window_s), { windowStart: row.window_start, count: row.count, dirty: false });
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
    const states = windows.map((w) => {
      const windowStart = Math.floor(now / w.seconds) * w.seconds;
      const id = counterKey(key, w.seconds);
      let counter = this.counters.get(id);
      if (!counter || counter.windowStart !== windowStart) {
        counter = { windowStart, count: 0, dirty: true };
        this.counters.set(id, counter);
      }
      return { window: w, counter, resetS: windowStart + w.seconds - now };
    });
    const exhausted = states.filter((s) => s.counter.count >= s.window.max);
    const allowed = exhausted.length === 0;
    if (allowed) {
      for (const s of states) {
        s.counter.count += 1;
        s.counter.dirty = true;
      }
    }
    // report the window with the fewest requests left (on a tie, the one resetting first)
    const tightest = states.reduce((a, b) => {
      const left = (s: typeof a) => s.window.max - s.counter.count;
      return left(b) < left(a) || (left(b) === left(a) && b.resetS < a.resetS) ? b : a;
    });
    return {
      allowed,
      limit: tightest.window.max,
      remaining: Math.max(0, tightest.window.max - tightest.counter.count),
      resetS: tightest.resetS,
      retryAfterS: allowed ? 0 : Math.max(...exhausted.map((s) => s.resetS)),
    };
  }

  /** Writes changed counters and forgets ended windows (so memory follows recent traffic only). */
  flush(): void {
    const now = this.nowS();
    const changed: CounterRow[] = [];
    let ended = false;
    for (const [id, counter] of this.counters) {
      const { key, windowS } = splitCounterKey(id);
      if (counter.windowStart + windowS <= now) {
        this.counters.delete(id);
        ended = true;
        continue;
      }
      if (!counter.dirty) continue;
      counter.dirty = false;
      changed.push({ key, window_s: windowS, window_start: counter.windowStart, count: counter.count });
    }
    if (changed.length > 0 || ended) this.repo.saveCounters(changed, now);
  }

  private nowS(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}

const counterKey = (key: string, windowS: number) => `${windowS}|${key}`;
function splitCounterKey(id: string): { key: string; windowS: number } {
  const bar = id.indexOf('|');
  return { windowS: Number(id.slice(0, bar)), key: id.slice(bar + 1) };
}
