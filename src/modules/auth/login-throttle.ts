import type { Clock } from '../../platform/clock.js';

interface Window {
  failures: number;
  resetAt: number;
}

/**
 * Counts failed logins in fixed windows, per client address, per (address, account) pair and per
 * account across all addresses. Over a limit the next attempt gets 429 until the window ends, so
 * a guesser is slowed down but the real owner is never locked out for good: the lock lifts on
 * its own, a correct password from an unblocked pair clears that pair's count, and an address
 * that logged into the account recently is exempt from the per-account limit, so a distributed
 * attack on one account cannot keep its owner out from their usual address.
 *
 * Kept in memory: a restart forgets it, which costs an attacker a restart they cannot cause.
 */
export class LoginThrottle {
  private readonly windows = new Map<string, Window>();
  /** account -> addresses that logged in successfully, with the time; bounded per account */
  private readonly trusted = new Map<string, Map<string, number>>();
  private static readonly TRUST_MS = 30 * 86400 * 1000;
  private static readonly TRUSTED_PER_ACCOUNT = 20;

  constructor(
    private readonly clock: Clock,
    private readonly limits = { perAddress: 30, perPair: 5, perAccount: 50, windowS: 15 * 60 },
  ) {}

  /** Seconds until the caller may try again, or 0 when the attempt may proceed. */
  retryAfter(address: string, email: string): number {
    const now = this.clock.now().getTime();
    let wait = 0;
    const trusted = this.isTrusted(address, email, now);
    for (const [key, max] of this.keys(address, email)) {
      if (trusted && key.startsWith('acct:')) continue;
      const w = this.windows.get(key);
      if (w && w.resetAt > now && w.failures >= max) wait = Math.max(wait, Math.ceil((w.resetAt - now) / 1000));
    }
    return wait;
  }

  /**
   * Checks the limits and, when the attempt may proceed, counts it as a failure at once, before
   * the password is verified: otherwise many attempts sent together would all pass the check
   * while their verifications are still running. `recordSuccess` refunds a correct attempt.
   * Returns seconds to wait, or 0 when the attempt may proceed.
   */
  begin(address: string, email: string): number {
    const wait = this.retryAfter(address, email);
    if (wait === 0) this.recordFailure(address, email);
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

  /** A correct password: clears the pair's count and refunds the attempt `begin` counted. */
  recordSuccess(address: string, email: string): void {
    this.windows.delete(`pair:${address}:${email}`);
    for (const key of [`addr:${address}`, `acct:${email}`]) {
      const w = this.windows.get(key);
      if (w && w.failures > 0) w.failures--;
    }
    const addresses = this.trusted.get(email) ?? new Map<string, number>();
    addresses.delete(address);
    addresses.set(address, this.clock.now().getTime());
    if (addresses.size > LoginThrottle.TRUSTED_PER_ACCOUNT) addresses.delete(addresses.keys().next().value!);
    this.trusted.set(email, addresses);
  }

  private isTrusted(address: string, email: string, now: number): boolean {
    const at = this.trusted.get(email)?.get(address);
    return at !== undefined && now - at < LoginThrottle.TRUST_MS;
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
