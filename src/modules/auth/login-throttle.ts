import type { Clock } from '../../platform/clock.js';

interface Window {
  failures: number;
  resetAt: number;
}

/**
 * Counts failed logins in fixed windows, per client address, per (address, account) pair and per
 * account across all addresses. Over a limit the next attempt gets 429 until the window ends, so
 * a guesser is slowed down but the real owner is never locked out for good: the lock lifts on
 * its own, and a correct password from an unblocked pair clears that pair's count.
 *
 * Kept in memory: a restart forgets it, which costs an attacker a restart they cannot cause.
 */
export class LoginThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly limits = { perAddress: 30, perPair: 5, perAccount: 50, windowS: 15 * 60 },
  ) {}

  /** Seconds until the caller may try again, or 0 when the attempt may proceed. */
  retryAfter(address: string, email: string): number {
    const now = this.clock.now().getTime();
    let wait = 0;
    for (const [key, max] of this.keys(address, email)) {
      const w = this.windows.get(key);
      if (w && w.resetAt > now && w.failures >= max) wait = Math.max(wait, Math.ceil((w.resetAt - now) / 1000));
    }
    return wait;
  }

  recordFailure(address: string, email: string): void {
    const now = this.clock.now().getTime();
    if (this.windows.size > 100_000) this.sweep(now);
    for (const [key] of this.keys(address, email)) {
      const w = this.windows.get(key);
      if (!w || w.resetAt <= now) this.windows.set(key, { failures: 1, resetAt: now + this.limits.windowS * 1000 });
      else w.failures++;
    }
  }

  recordSuccess(address: string, email: string): void {
    this.windows.delete(`pair:${address}:${email}`);
  }

  private keys(address: string, email: string): Array<[string, number]> {
    return [
      [`addr:${address}`, this.limits.perAddress],
      [`pair:${address}:${email}`, this.limits.perPair],
      [`acct:${email}`, this.limits.perAccount],
    ];
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
