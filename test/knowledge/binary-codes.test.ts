import { describe, expect, it } from 'vitest';
import { BinaryCodes, int8Vector, signBits } from '../../src/modules/knowledge/binary-codes.js';
import { cosineDistance } from '../helpers/vectors.js';

/** A deterministic pseudo-random generator, so a failure reproduces. */
function generator(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const randomCode = (random: () => number, bytes: number) =>
  Uint8Array.from({ length: bytes }, () => Math.floor(random() * 256));

function hamming(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    let x = a[i]! ^ b[i]!;
    while (x) {
      d += x & 1;
      x >>= 1;
    }
  }
  return d;
}

/** The reference: every distance computed bit by bit, sorted (stable, so ties keep insertion order). */
function reference(codes: Uint8Array[], ids: number[], query: Uint8Array, wanted: number): number[] {
  return codes
    .map((code, i) => ({ id: ids[i]!, d: hamming(code, query) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, wanted)
    .map((r) => r.id);
}

describe('BinaryCodes (the WebAssembly Hamming scan)', () => {
  it.each([1536, 768, 96, 8])('finds the same nearest codes as a bit-by-bit reference, %i dimensions', (dims) => {
    const random = generator(dims);
    const bytes = dims / 8;
    const codes = Array.from({ length: 3000 }, () => randomCode(random, bytes));
    const ids = codes.map((_, i) => 10_000 + i * 3);
    const index = new BinaryCodes(dims, 10); // grows while adding
    codes.forEach((code, i) => index.add(ids[i]!, code));
    expect(index.count).toBe(3000);
    for (let q = 0; q < 20; q++) {
      const query = randomCode(random, bytes);
      for (const wanted of [1, 8, 128]) {
        const found = index.nearest(query, wanted);
        const expected = reference(codes, ids, query, wanted);
        // same set; within it the order is by position, not distance (the caller re-ranks)
        expect([...found].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      }
    }
  });

  // From 16k codes (for 128 wanted) the scan keeps 1024 candidates by each code's prefix, then
  // ranks them on the whole code: not exact, so it is held to codes that cluster as passages'
  // vectors do (random codes are all about equally far) and to what the re-rank needs.
  it.each([384, 1536])(
    'from 16k codes, a prefix pass then the whole codes: near-exact on clustered codes, %i dimensions',
    (dims) => {
      const random = generator(dims + 7);
      const bytes = dims / 8;
      const flip = (code: Uint8Array, share: number) =>
        code.map((byte) => {
          let out = byte;
          for (let bit = 0; bit < 8; bit++) if (random() < share) out ^= 1 << bit;
          return out;
        });
      const centres = Array.from({ length: 150 }, () => randomCode(random, bytes));
      const codes = Array.from({ length: 20_000 }, (_, i) => flip(centres[i % centres.length]!, 0.2));
      const ids = codes.map((_, i) => i + 1);
      const index = new BinaryCodes(dims, 1000); // grows while adding: the rests move up each time
      index.addPacked(ids.slice(0, 5000), Buffer.concat(codes.slice(0, 5000)), bytes);
      codes.slice(5000).forEach((code, i) => index.add(ids[5000 + i]!, code));
      let overlap = 0;
      for (let q = 0; q < 4; q++) {
        const query = flip(centres[q * 7]!, 0.2);
        const planted = flip(query, 0.01); // one code a few bits from the question
        index.add(50_000 + q, planted);
        codes.push(planted);
        ids.push(50_000 + q);
        const found = index.nearest(query, 128);
        const expected = reference(codes, ids, query, 128);
        expect(found).toHaveLength(128);
        expect(found).toContain(50_000 + q);
        expect(new Set(found).size).toBe(128);
        overlap += found.filter((id) => expected.includes(id)).length;
      }
      expect(overlap / (4 * 128)).toBeGreaterThanOrEqual(0.95);
    },
  );

  it.each([1536, 72])(
    'addPacked (codes back to back, as read in one blob) equals adding them one by one, %i dimensions',
    (dims) => {
      const random = generator(dims + 1);
      const bytes = dims / 8;
      const codes = Array.from({ length: 700 }, () => randomCode(random, bytes));
      const ids = codes.map((_, i) => 5 + i * 2);
      const oneByOne = new BinaryCodes(dims, 10);
      codes.forEach((code, i) => oneByOne.add(ids[i]!, code));
      const packed = new BinaryCodes(dims, 10); // grows to fit
      packed.add(1, codes[0]!);
      packed.addPacked(ids.slice(1), Buffer.concat(codes.slice(1)), bytes);
      expect(packed.count).toBe(700);
      for (let q = 0; q < 10; q++) {
        const query = randomCode(random, bytes);
        const expected = oneByOne.nearest(query, 64).map((id) => (id === ids[0] ? 1 : id));
        expect(packed.nearest(query, 64)).toEqual(expected);
      }
      expect(() => packed.addPacked([1, 2], new Uint8Array(bytes), bytes)).toThrow(/bytes for 2 codes/);
    },
  );

  it('keeps the earlier added at a tied cut-off, and returns everything when fewer codes than wanted', () => {
    const index = new BinaryCodes(64, 4);
    const zero = new Uint8Array(8);
    const one = Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0]);
    index.add(1, one);
    index.add(2, zero);
    index.add(3, one);
    index.add(4, one);
    expect(index.nearest(zero, 2)).toEqual([1, 2]); // distance 0: id 2; then the first of the ties at 1
    expect(index.nearest(zero, 10).sort()).toEqual([1, 2, 3, 4]);
    expect(new BinaryCodes(64, 4).nearest(zero, 5)).toEqual([]);
  });

  it('retain drops the codes of the ids it is told to, keeping the others, their order, and later additions working', () => {
    const random = generator(7);
    const codes = Array.from({ length: 1000 }, () => randomCode(random, 192));
    const ids = codes.map((_, i) => i + 1);
    const index = new BinaryCodes(1536, 1000);
    codes.forEach((code, i) => index.add(ids[i]!, code));
    const gone = (id: number) => id % 3 === 0 || (id > 400 && id < 600);
    expect(index.retain((id) => !gone(id))).toBe(ids.filter(gone).length);
    const left = ids.flatMap((id, i) => (gone(id) ? [] : [{ id, code: codes[i]! }]));
    expect(index.count).toBe(left.length);
    const late = randomCode(random, 192);
    index.add(5000, late);
    left.push({ id: 5000, code: late });
    for (let q = 0; q < 10; q++) {
      const query = randomCode(random, 192);
      const found = index.nearest(query, 64);
      const expected = reference(
        left.map((l) => l.code),
        left.map((l) => l.id),
        query,
        64,
      );
      expect([...found].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
    }
    expect(index.nearest(late, 1)).toEqual([5000]);
  });

  // 72 and 1000: lengths that are no multiple of the SIMD step (16), padded with zeros; 3072: the
  // largest common embedding, where the query's int16 scale is bounded by the i32 sums
  it.each([72, 384, 1000, 3072])(
    're-ranks candidates on their int8 copies to within the stated uncertainty of the exact cosine, %i dimensions',
    (dims) => {
      const random = generator(dims);
      const vectors = Array.from({ length: 300 }, () => Float32Array.from({ length: dims }, () => random() - 0.5));
      const index = new BinaryCodes(dims, 8, true); // grows while adding
      vectors.forEach((v, i) => index.add(i + 1, signBits(v), int8Vector(v)));
      index.retain((id) => id % 7 !== 0); // and after the rows moved
      const kept = vectors.map((v, i) => ({ id: i + 1, v })).filter(({ id }) => id % 7 !== 0);
      const query = Float32Array.from({ length: dims }, () => (random() - 0.5) * 3);
      const ranked = index.rerank(
        query,
        Array.from({ length: kept.length }, (_, i) => i),
      );
      expect(ranked).toHaveLength(kept.length);
      for (const r of ranked) {
        const exact = cosineDistance(query, kept.find((k) => k.id === r.chunkId)!.v);
        expect(Math.abs(r.distance - exact)).toBeLessThan(5 * r.uncertainty);
        expect(r.uncertainty).toBeLessThan(0.01);
      }
      const distances = ranked.map((r) => r.distance);
      expect(distances).toEqual([...distances].sort((a, b) => a - b));
    },
  );
});
