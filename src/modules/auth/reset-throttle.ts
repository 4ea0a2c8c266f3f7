import type { Clock } from '../../platform/clock.js';

/**
 * Counts requests per key in fixed windows, in memory (a restart forgets it, as with the login
 * throttle). Used for reset-link requests per client address: the answer does not depend on the
 * e-mail asked about, so the limit reveals nothing about which accounts exist.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly max: number,
    private readonly windowS: number,
  ) {}

  /** Counts one request; returns 0 when it may proceed, else the seconds until the window ends. */
  hit(key: string): number {
    const now = this.clock.now().getTime();
    if (this.windows.size > 100_000) {
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + this.windowS * 1000 });
      return 0;
    }
    if (w.count >= this.max) return Math.ceil((w.resetAt - now) / 1000);
    w.count++;
    return 0;
  }
}
