/** Seeded randomness for the fuzz run (test/security/fuzz.test.ts): the same seed gives the same choices. */

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  float(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)]!;
  }
  /** one of the options, by weight */
  weighted<T>(options: ReadonlyArray<readonly [number, T]>): T {
    const total = options.reduce((s, [w]) => s + w, 0);
    let x = this.float() * total;
    for (const [w, v] of options) {
      x -= w;
      if (x < 0) return v;
    }
    return options[options.length - 1]![1];
  }
  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.'): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.float() * alphabet.length)];
    return s;
  }
  bytes(length: number): Buffer {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = Math.floor(this.float() * 256);
    return b;
  }
}
