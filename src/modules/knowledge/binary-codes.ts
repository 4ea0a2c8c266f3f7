/**
 * One agent's 1-bit codes (the sign of each dimension, as sqlite-vec's vec_quantize_binary makes
 * them) held in memory and scanned by Hamming distance, and, when the memory budget allows, an
 * int8 copy of each vector for the re-rank of the candidates (`rerank`).
 *
 * Why not the vec0 table's own KNN: its scan is fast, but its top-k selection grows with k, and
 * the exact re-rank wants 128-160 candidates: for 10k chunks of 1536 dimensions vec0 took ~2.7 ms
 * for 128 candidates (1.2 ms for 16). Here the distances come from a 70-byte WebAssembly loop
 * (64-bit XOR + popcnt: ~0.16 ms for 10k codes; the same loop in JavaScript, without a popcount
 * instruction, took ~1.4 ms), and the selection is linear. The codes are 1/32 of the float
 * vectors: 192 bytes per 1536-dimension chunk.
 *
 * Why the int8 copy: re-ranking the candidates by reading their float vectors from SQLite was
 * two thirds of a search (128 row reads and a blob each per query: ~0.8 ms at 100k chunks of 384
 * dimensions, hnswlib answers in ~0.3 ms). Each vector scaled to -127..127 (its largest
 * component at 127) keeps the cosine to ~1e-4, so the order of the candidates is the float
 * order in practice (recall@5 against the exact search stays 1.0 in bench/retrieval.ts), at a
 * quarter of the floats' memory: 384 bytes per 384-dimension chunk.
 */

import { hammingScanner, PREFIX_HISTOGRAM_EVERY, type HammingScanner, type WasmMemory } from './hamming-scan.js';
import { int8DotScanner, type Int8DotScanner } from './int8-dots.js';
import { ascending } from './ascending.js';

const PAGE = 65536;
/**
 * The scan's first pass reads only a prefix of each code and keeps this many candidates per code
 * wanted (at least PREFIX_MIN_CANDIDATES); the second pass computes their whole distances. At
 * 100k codes of 384 bits the whole codes are 4.8 MB, more than the caches: the scan was bound by
 * memory (~0.47 ms). The prefixes are a third of that and the second pass reads 1% of the rest
 * (each a cache miss: 2048 candidates took twice the time of 1024, for the same recall in
 * bench/retrieval.ts; 512 kept it too, with less margin).
 */
const PREFIX_OVERSAMPLE = 8;
const PREFIX_MIN_CANDIDATES = 1024;
/** the prefix pass is used from this many times its candidates (below, the whole scan is as fast: ~0.05 ms at 10k) */
const PREFIX_FILTERS_FROM = 16;
/** 64-bit words of the prefix: a quarter of the code, at least 128 bits (all of a code of 2 words or fewer) */
const prefixWordsOf = (words: number) => (words <= 2 ? words : Math.max(2, Math.ceil(words / 4)));
/** the standard deviation of a value rounded to the nearest integer: 1 / sqrt(12) */
const ROUNDING_SD = 1 / Math.sqrt(12);

/** A vector as int8 (largest component at 127; all zeros stays zeros), as stored for the re-rank. */
export function int8Vector(vector: Float32Array): Int8Array {
  let largest = 0;
  for (const x of vector) largest = Math.max(largest, Math.abs(x));
  const out = new Int8Array(vector.length);
  if (largest === 0) return out;
  const scale = 127 / largest;
  for (let j = 0; j < vector.length; j++) out[j] = Math.round(vector[j]! * scale);
  return out;
}

/** The sign bits of a vector, as vec_quantize_binary packs them (dimension j: bit j % 8 of byte j / 8). */
export function signBits(vector: Float32Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(vector.length / 8));
  for (let j = 0; j < vector.length; j++) if (vector[j]! > 0) out[j >> 3]! |= 1 << (j & 7);
  return out;
}

export class BinaryCodes {
  /** bytes of one code in memory: whole 64-bit words (zero padding past dimensions/8) */
  readonly bytesPerCode: number;
  private readonly words64: number;
  /** the codes are held in two arrays: the prefixes back to back from 0, then the rests */
  private readonly prefixBytes: number;
  private readonly restBytes: number;
  private readonly wasm: HammingScanner;
  private ids: Float64Array;
  /** the int8 copies in WebAssembly memory from 0, `stride` bytes each, in the codes' order (null: re-ranked elsewhere) */
  private readonly int8: Int8DotScanner | null;
  /** bytes of one int8 copy: dimensions rounded up to 16 (zero padding), one SIMD load a step */
  private readonly stride: number;
  /** 1 / the length of each int8 copy (0 for a zero vector) */
  private inverseNorms: Float32Array | null;
  private size = 0;

  constructor(
    readonly dimensions: number,
    capacity: number,
    withInt8 = false,
  ) {
    this.words64 = Math.max(1, Math.ceil(dimensions / 64));
    this.bytesPerCode = this.words64 * 8;
    const prefixWords = prefixWordsOf(this.words64);
    this.prefixBytes = prefixWords * 8;
    this.restBytes = this.bytesPerCode - this.prefixBytes;
    this.wasm = hammingScanner(prefixWords, this.words64 - prefixWords);
    this.ids = new Float64Array(Math.max(16, capacity));
    this.stride = Math.ceil(dimensions / 16) * 16;
    this.int8 = withInt8 ? int8DotScanner() : null;
    this.inverseNorms = withInt8 ? new Float32Array(this.ids.length) : null;
    this.reserve(this.ids.length);
  }

  get count(): number {
    return this.size;
  }

  /** the id of the code at `position` (from nearestPositions) */
  idAt(position: number): number {
    return this.ids[position]!;
  }

  /** whether `rerank` can order candidates (the int8 copies are held) */
  get hasInt8(): boolean {
    return this.int8 !== null;
  }

  /** memory held, for the cache's budget */
  get bytes(): number {
    return (
      this.ids.byteLength +
      this.wasm.memory.buffer.byteLength +
      (this.int8?.memory.buffer.byteLength ?? 0) +
      (this.inverseNorms?.byteLength ?? 0)
    );
  }

  /** memory for `count` chunks of `dimensions` (to decide before loading whether the int8 copies fit) */
  static bytesFor(dimensions: number, count: number, withInt8: boolean): number {
    const perCode = Math.max(1, Math.ceil(dimensions / 64)) * 8;
    // id, code, search scratch (two u16 distances and two u32 positions), int8 copy and its norm
    return count * (8 + perCode + 12 + (withInt8 ? dimensions + 4 : 0));
  }

  /** Appends a code (a blob from vec_quantize_binary: dimensions/8 bytes) and, when int8 copies are held, its int8 copy. */
  add(id: number, code: Uint8Array, int8?: Int8Array): void {
    this.makeRoom(1);
    const padded = new Uint8Array(this.bytesPerCode);
    padded.set(code.subarray(0, this.bytesPerCode));
    this.setCode(this.size, padded);
    this.ids[this.size] = id;
    this.setInt8(this.size, int8 ?? null);
    this.size += 1;
  }

  /**
   * Appends many codes at once: `packed` holds `ids.length` codes of `codeBytes` bytes each, back to
   * back (as an agent's codes are read from the database in one blob); `int8` their int8 copies,
   * back to back, when held.
   */
  addPacked(ids: ArrayLike<number>, packed: Uint8Array, codeBytes: number, int8?: Uint8Array): void {
    if (packed.length !== ids.length * codeBytes)
      throw new Error(`${packed.length} bytes for ${ids.length} codes of ${codeBytes}`);
    if (this.int8 && int8?.length !== ids.length * this.dimensions)
      throw new Error(`${int8?.length ?? 0} int8 bytes for ${ids.length} vectors of ${this.dimensions}`);
    this.makeRoom(ids.length);
    const padded = new Uint8Array(this.bytesPerCode);
    const memory = new Uint8Array(this.wasm.memory.buffer);
    for (let i = 0; i < ids.length; i++) {
      padded.set(packed.subarray(i * codeBytes, (i + 1) * codeBytes));
      this.setCode(this.size + i, padded, memory);
    }
    const copies = this.int8 && int8 ? new Int8Array(int8.buffer, int8.byteOffset, int8.length) : null;
    const rows = this.rows();
    for (let i = 0; i < ids.length; i++) {
      this.ids[this.size + i] = ids[i]!;
      if (copies) this.setInt8(this.size + i, copies.subarray(i * this.dimensions, (i + 1) * this.dimensions), rows);
    }
    this.size += ids.length;
  }

  /**
   * Ids of the `wanted` codes nearest to `query` by Hamming distance (ties: the earlier added
   * first).
   */
  nearest(query: Uint8Array, wanted: number): number[] {
    return this.nearestPositions(query, wanted).map((p) => this.ids[p]!);
  }

  /**
   * The candidates at `positions` (from nearestPositions) by cosine distance to `query`, nearest
   * first, computed on the int8 copies; equal distances: the larger id (the newer chunk) first.
   * `uncertainty` is the standard deviation of a distance's rounding error (the int8 copy's
   * rounding, uniform within half a step in each component: (1/sqrt 12) / its length).
   */
  rerank(query: Float32Array, positions: number[]): Array<{ chunkId: number; distance: number; uncertainty: number }> {
    const scanner = this.int8!;
    const inverseNorms = this.inverseNorms!;
    const dims = this.dimensions;
    const n = positions.length;
    // scratch after the rows: the query as int16, the positions, the dot products
    const queryAt = this.ids.length * this.stride;
    const positionsAt = queryAt + this.stride * 2;
    const outAt = positionsAt + n * 4;
    growTo(scanner.memory, outAt + n * 4);
    let queryNorm = 0;
    let largest = 0;
    for (let j = 0; j < dims; j++) {
      queryNorm += query[j]! * query[j]!;
      largest = Math.max(largest, Math.abs(query[j]!));
    }
    const inverseQueryNorm = queryNorm > 0 ? 1 / Math.sqrt(queryNorm) : 0;
    // the query as int16, as large as the i32 sums allow (|sum| <= 127 * scale * stride < 2^31)
    const scale = largest > 0 ? Math.min(32767, Math.floor(2 ** 31 / (127 * this.stride)) - 1) / largest : 0;
    const buffer = scanner.memory.buffer;
    const query16 = new Int16Array(buffer, queryAt, this.stride);
    query16.fill(0);
    for (let j = 0; j < dims; j++) query16[j] = Math.round(query[j]! * scale);
    new Uint32Array(buffer, positionsAt, n).set(positions);
    scanner.dots(0, this.stride, positionsAt, n, queryAt, this.stride / 16, outAt);
    const dots = new Int32Array(buffer, outAt, n);
    // the query's rounding adds its own (much smaller) error: (1/sqrt 12) / (scale * its length)
    const queryUncertainty = scale > 0 ? (ROUNDING_SD * inverseQueryNorm) / scale : 0;
    const toDistance = scale > 0 ? inverseQueryNorm / scale : 0;
    const queryVariance = queryUncertainty * queryUncertainty;
    const scored: Array<{ chunkId: number; distance: number; uncertainty: number }> = new Array(n);
    for (let i = 0; i < n; i++) {
      const p = positions[i]!;
      const inverseNorm = inverseNorms[p]!;
      const own = ROUNDING_SD * inverseNorm;
      // a zero vector is as far as sqlite-vec makes it (cosine distance 1)
      scored[i] = {
        chunkId: this.ids[p]!,
        distance: 1 - dots[i]! * toDistance * inverseNorm,
        uncertainty: Math.sqrt(own * own + queryVariance),
      };
    }
    return scored.sort((a, b) => ascending(a.distance, b.distance) || b.chunkId - a.chunkId);
  }

  /**
   * Positions of about the `wanted` codes nearest to `query` by Hamming distance (ties: the
   * earlier added first). Two linear passes: the prefixes' distances and a histogram of them
   * keep the nearest `wanted * PREFIX_OVERSAMPLE` by prefix (everything below the cut-off
   * distance and as many at it as still fit); their whole distances, the same way, keep `wanted`.
   * Below PREFIX_FILTERS_FROM times the first pass's candidates (16k codes for 128 wanted) the
   * whole codes are scanned in one pass, exactly. Beyond, a code far on its prefix but near on the
   * whole is missed, which the candidates' number makes rare (recall@5 after the re-rank stays
   * 1.0 in bench/retrieval.ts).
   */
  nearestPositions(query: Uint8Array, wanted: number): number[] {
    const n = this.size;
    if (n === 0) return [];
    if (wanted >= n) return Array.from({ length: n }, (_, i) => i);
    const { queryAt, distancesAt, histogramAt, positionsAt, refinedAt, chosenAt } = this.scratch(this.ids.length);
    const buffer = this.wasm.memory.buffer;
    const scratch = new Uint8Array(buffer, queryAt, this.bytesPerCode);
    scratch.fill(0);
    scratch.set(query.subarray(0, this.bytesPerCode));
    const histogram = new Uint32Array(buffer, histogramAt, this.words64 * 64 + 1);
    /** select's cut-off distance and how many at it to keep `keep` codes, from the histogram (counting one code in `every`) */
    const cut = (keep: number, every = 1) => {
      let cutoff = 0;
      let below = 0;
      while (below + every * histogram[cutoff]! < keep) below += every * histogram[cutoff++]!;
      return [cutoff, keep - below] as const;
    };
    histogram.fill(0);
    const restsAt = this.restsAt();
    const firstPass = Math.max(wanted * PREFIX_OVERSAMPLE, PREFIX_MIN_CANDIDATES);
    if (this.restBytes === 0 || n < firstPass * PREFIX_FILTERS_FROM) {
      this.wasm.scanWhole(0, restsAt, n, queryAt, distancesAt, histogramAt);
      const found = this.wasm.select(distancesAt, n, ...cut(wanted), positionsAt);
      return Array.from(new Uint32Array(buffer, positionsAt, found));
    }
    this.wasm.scanPrefixes(0, restsAt, n, queryAt, distancesAt, histogramAt);
    const m = this.wasm.select(distancesAt, n, ...cut(firstPass, PREFIX_HISTOGRAM_EVERY), positionsAt);
    histogram.fill(0);
    this.wasm.refine(restsAt, positionsAt, m, queryAt + this.prefixBytes, distancesAt, refinedAt, histogramAt);
    const found = this.wasm.select(refinedAt, m, ...cut(wanted), chosenAt);
    const positions = new Uint32Array(buffer, positionsAt, m);
    return Array.from(new Uint32Array(buffer, chosenAt, found), (j) => positions[j]!);
  }

  /**
   * where a search's scratch space starts, after the codes' capacity: the query, a u16 prefix
   * distance per code, the histogram, a u32 position per code (the first pass's), a u16 whole
   * distance per kept code, a u32 index per chosen code
   */
  private scratch(capacity: number) {
    const align8 = (n: number) => Math.ceil(n / 8) * 8;
    const queryAt = capacity * this.bytesPerCode;
    const distancesAt = queryAt + this.bytesPerCode;
    const histogramAt = align8(distancesAt + capacity * 2);
    const positionsAt = align8(histogramAt + (this.words64 * 64 + 1) * 4);
    const refinedAt = positionsAt + capacity * 4;
    const chosenAt = align8(refinedAt + capacity * 2);
    return { queryAt, distancesAt, histogramAt, positionsAt, refinedAt, chosenAt, end: chosenAt + capacity * 4 };
  }

  /** where the rests start: after the prefixes of `capacity` codes */
  private restsAt(capacity = this.ids.length): number {
    return capacity * this.prefixBytes;
  }

  /** writes a whole code (bytesPerCode bytes) at `position`: its prefix among the prefixes, the rest among the rests */
  private setCode(position: number, code: Uint8Array, memory = new Uint8Array(this.wasm.memory.buffer)): void {
    memory.set(code.subarray(0, this.prefixBytes), position * this.prefixBytes);
    if (this.restBytes > 0) memory.set(code.subarray(this.prefixBytes), this.restsAt() + position * this.restBytes);
  }

  /**
   * Keeps only the codes whose id passes `keep`, in their order (after chunks were deleted: far
   * cheaper than loading the agent's codes again). Returns how many were dropped.
   */
  retain(keep: (id: number) => boolean): number {
    const bytes = new Uint8Array(this.wasm.memory.buffer);
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const id = this.ids[i]!;
      if (!keep(id)) continue;
      if (kept !== i) {
        bytes.copyWithin(kept * this.prefixBytes, i * this.prefixBytes, (i + 1) * this.prefixBytes);
        const restAt = this.restsAt();
        bytes.copyWithin(
          restAt + kept * this.restBytes,
          restAt + i * this.restBytes,
          restAt + (i + 1) * this.restBytes,
        );
        this.ids[kept] = id;
        this.rows()?.copyWithin(kept * this.stride, i * this.stride, (i + 1) * this.stride);
        if (this.inverseNorms) this.inverseNorms[kept] = this.inverseNorms[i]!;
      }
      kept += 1;
    }
    const dropped = this.size - kept;
    this.size = kept;
    return dropped;
  }

  private setInt8(position: number, int8: Int8Array | null, rows = this.rows()): void {
    if (!rows || !this.inverseNorms) return;
    if (!int8 || int8.length !== this.dimensions)
      throw new Error(`an int8 copy of ${this.dimensions} values is needed`);
    // the padding too: the row may lie where a search's scratch was before the memory grew
    rows.fill(0, position * this.stride, (position + 1) * this.stride);
    rows.set(int8, position * this.stride);
    let norm = 0;
    for (let j = 0; j < int8.length; j++) norm += int8[j]! * int8[j]!;
    this.inverseNorms[position] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }

  /** capacity for `more` codes past the current ones (doubling, so appending one at a time stays linear) */
  private makeRoom(more: number): void {
    let capacity = this.ids.length;
    while (capacity < this.size + more) capacity *= 2;
    if (capacity === this.ids.length) return;
    const restWas = this.restsAt();
    const grown = new Float64Array(capacity);
    grown.set(this.ids.subarray(0, this.size));
    this.ids = grown;
    if (this.int8 && this.inverseNorms) {
      const norms = new Float32Array(capacity);
      norms.set(this.inverseNorms.subarray(0, this.size));
      this.inverseNorms = norms;
    }
    this.reserve(capacity);
    // the rests start after the prefixes' capacity: moved up (an overlapping copy, as memmove)
    new Uint8Array(this.wasm.memory.buffer).copyWithin(
      this.restsAt(capacity),
      restWas,
      restWas + this.size * this.restBytes,
    );
  }

  /** the int8 copies (a view: WebAssembly memory's buffer changes when it grows) */
  private rows(): Int8Array | null {
    return this.int8 ? new Int8Array(this.int8.memory.buffer, 0, this.ids.length * this.stride) : null;
  }

  /** memory for `capacity` codes (and int8 copies) plus the scratch space of a search */
  private reserve(capacity: number): void {
    if (this.int8) growTo(this.int8.memory, capacity * this.stride);
    const needed = this.scratch(capacity).end;
    growTo(this.wasm.memory, needed);
  }
}

/** grows a WebAssembly memory to hold at least `bytes` */
function growTo(memory: WasmMemory, bytes: number): void {
  const pages = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
  if (pages > 0) memory.grow(pages);
}
