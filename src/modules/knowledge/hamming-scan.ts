/**
 * The loops of a search over 1-bit codes (binary-codes.ts), as WebAssembly assembled here
 * (no build step, no binary file in the tree). Each code is held in two parts, its first
 * `prefixWords` 64-bit words among the prefixes and the rest among the rests:
 *
 * - `scanWhole(prefixes, rests, n, query, out, histogram)`: for each of n codes,
 *   popcount(code XOR query) as a u16 in out[i], and histogram[distance] += 1;
 * - `scanPrefixes(prefixes, rests, n, query, out, histogram)`: the same over the prefixes alone,
 *   the histogram counting one code in PREFIX_HISTOGRAM_EVERY (it only sizes the first of two passes: ~a third
 *   of the scan's time went to counting, codes at one distance waiting on each other's store);
 * - `select(distances, n, cutoff, atCutoff, out)`: the positions whose distance is below
 *   `cutoff`, and the first `atCutoff` of those at it, as u32s in out; returns how many;
 * - `refine(rests, positions, m, queryRest, prefixDistances, out, histogram)`: for each of m
 *   positions (u32s), the distance over the whole code: its prefix distance (from
 *   `scanPrefixes`) plus popcount(rest XOR queryRest), as a u16 in out[i], and
 *   histogram[distance] += 1.
 *
 * The module is specialised for one code length: the query's words sit in locals and each code's
 * words are read at fixed offsets, no inner loop (a generic loop over the words took ~7 ns per
 * 384-bit code, this ~1.5 ns). The histogram is counted in the same pass, and the selection runs
 * here too: both were JavaScript loops over every code, as long as the scan itself.
 */

// The project's TypeScript setup (Node types, no DOM lib) declares no WebAssembly values; the
// little used here, typed by hand.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** LEB128 of an unsigned integer, as the WebAssembly binary format writes sizes and offsets */
export const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
/** signed LEB128 of a non-negative integer, as i32.const takes it */
export const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if (n === 0 && (byte & 0x40) === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
};
export const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
export const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

// The instructions used (opcodes from the binary format's spec).
export const get = (local: number) => [0x20, ...leb(local)];
export const set = (local: number) => [0x21, ...leb(local)];
export const tee = (local: number) => [0x22, ...leb(local)];
export const i32 = (n: number) => [0x41, ...sleb(n)];
const i64Load = (offset: number) => [0x29, 0x03, ...leb(offset)]; // align 8
export const i32Load = [0x28, 0x02, 0x00];
const i32Load16 = [0x2f, 0x01, 0x00]; // unsigned
export const i32Store = [0x36, 0x02, 0x00];
const i32Store16 = [0x3b, 0x01, 0x00];
export const [I32_ADD, I32_SHL, I32_GE_U, I32_LT_U, I32_EQ, I32_NE, I32_AND, I32_OR] = [
  0x6a, 0x74, 0x4f, 0x49, 0x46, 0x47, 0x71, 0x72,
];
const IF = [0x04, 0x40];
const ELSE = 0x05;
const [I32_EQZ, I32_CTZ] = [0x45, 0x68];
// SIMD (prefix 0xfd): v128.load (alignment 2 bytes, offset 0), i16x8.splat, i16x8.le_u, i16x8.bitmask
const V128_LOAD_ALIGN2 = [0xfd, 0x00, 0x01, 0x00];
const I16X8_SPLAT = [0xfd, 0x10];
const I16X8_LE_U = [0xfd, 0x34];
const I16X8_BITMASK = [0xfd, 0x84, 0x01];
const [I64_XOR, I64_POPCNT, I64_ADD, I32_WRAP_I64, I32_SUB, I32_MUL] = [0x85, 0x7b, 0x7c, 0xa7, 0x6b, 0x6c];
const I64_EXTEND_I32_U = 0xad;
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const END = 0x0b;
export const brIf = (depth: number) => [0x0d, depth];
export const br = (depth: number) => [0x0c, depth];
export const I32 = 0x7f;
const I64 = 0x7e;

/** `scanPrefixes` counts one code in this many in its histogram (a power of two) */
export const PREFIX_HISTOGRAM_EVERY = 4;

function scanBody(prefixWords: number, restWords: number, sampled = false): number[] {
  // params 0 prefixes, 1 rests, 2 n, 3 query, 4 out, 5 histogram; locals 6 i, 7 p, 8 r, 9 d, 10 a,
  // 11.. the query's words (its prefix words, then its rest words)
  const [PREFIXES, RESTS, N, QUERY, OUT, HIST, I, P, R, D, A, Q] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const words = prefixWords + restWords;
  const word = (w: number) => [
    ...(w < prefixWords ? [...get(P), ...i64Load(w * 8)] : [...get(R), ...i64Load((w - prefixWords) * 8)]),
    ...get(Q + w),
    I64_XOR,
    I64_POPCNT,
  ];
  return [
    [0x02, 0x05, I32, ...leb(words), I64],
    Array.from({ length: words }, (_, w) => [...get(QUERY), ...i64Load(w * 8), ...set(Q + w)]).flat(),
    [...get(PREFIXES), ...set(P), ...get(RESTS), ...set(R), ...i32(0), ...set(I)],
    [...BLOCK, ...LOOP, ...get(I), ...get(N), I32_GE_U, ...brIf(1)],
    word(0),
    Array.from({ length: words - 1 }, (_, w) => [...word(w + 1), I64_ADD]).flat(),
    [I32_WRAP_I64, ...set(D)],
    [...get(OUT), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...get(D), ...i32Store16], // out[i] = d
    sampled ? [...get(I), ...i32(PREFIX_HISTOGRAM_EVERY - 1), I32_AND, I32_EQZ, ...IF] : [], // one code in PREFIX_HISTOGRAM_EVERY
    [...get(HIST), ...get(D), ...i32(2), I32_SHL, I32_ADD, ...tee(A)], // histogram[d] += 1
    [...get(A), ...i32Load, ...i32(1), I32_ADD, ...i32Store],
    sampled ? [END] : [],
    [...get(P), ...i32(prefixWords * 8), I32_ADD, ...set(P)],
    restWords ? [...get(R), ...i32(restWords * 8), I32_ADD, ...set(R)] : [],
    [...get(I), ...i32(1), I32_ADD, ...set(I), ...br(0), END, END, END],
  ].flat();
}

function selectBody(): number[] {
  // params 0 distances, 1 n, 2 cutoff, 3 atCutoff, 4 out; locals 5 i, 6 k, 7 d, 8 mask, 9 j
  // Most distances are past the cut-off: eight at a time are compared (SIMD) into a bit mask,
  // and only the set bits are looked at, in order. The last eight may reach past n: their bits
  // past n are cleared (the memory read there is the next scratch array).
  const [DIST, N, CUT, AT, OUT, I, K, D, MASK, J] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const keep = [...get(OUT), ...get(K), ...i32(2), I32_SHL, I32_ADD, ...get(J), ...i32Store];
  const next = [...get(K), ...i32(1), I32_ADD, ...set(K)];
  return [
    [0x01, 0x05, I32],
    [...i32(0), ...set(I), ...i32(0), ...set(K)],
    [...BLOCK, ...LOOP, ...get(I), ...get(N), I32_GE_U, ...brIf(1)],
    // mask = bits of distances[i..i+8] <= cutoff, those at or past n cleared
    [...get(DIST), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...V128_LOAD_ALIGN2],
    [...get(CUT), ...I16X8_SPLAT, ...I16X8_LE_U, ...I16X8_BITMASK, ...set(MASK)],
    [...get(N), ...get(I), I32_SUB, ...i32(8), I32_LT_U, ...IF],
    [...get(MASK), ...i32(1), ...get(N), ...get(I), I32_SUB, I32_SHL, ...i32(1), I32_SUB, I32_AND, ...set(MASK), END],
    // each set bit j (lowest first): position i + j
    [...BLOCK, ...LOOP, ...get(MASK), I32_EQZ, ...brIf(1)],
    [...get(I), ...get(MASK), I32_CTZ, I32_ADD, ...set(J)],
    [...get(DIST), ...get(J), ...i32(1), I32_SHL, I32_ADD, ...i32Load16, ...set(D)],
    [...get(D), ...get(CUT), I32_LT_U, ...IF, ...keep, ...next, ELSE],
    [...get(D), ...get(CUT), I32_EQ, ...get(AT), ...i32(0), I32_NE, I32_AND],
    [...IF, ...keep, ...next, ...get(AT), ...i32(1), I32_SUB, ...set(AT), END, END],
    [...get(MASK), ...get(MASK), ...i32(1), I32_SUB, I32_AND, ...set(MASK), ...br(0), END, END],
    [...get(I), ...i32(8), I32_ADD, ...set(I), ...br(0), END, END],
    [...get(K), END],
  ].flat();
}

function refineBody(restWords: number): number[] {
  // params 0 rests, 1 positions, 2 m, 3 queryRest, 4 prefixDistances, 5 out, 6 histogram;
  // locals 7 i, 8 p, 9 d (i64), 10 a, 11.. the query's remaining words
  const [REST, POSITIONS, M, QUERY, PREFIX, OUT, HIST, I, P, D, A, Q] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const word = (w: number) => [...get(P), ...i64Load(w * 8), ...get(Q + w), I64_XOR, I64_POPCNT];
  return [
    // local groups: 2 i32 (i, p), 1 i64 (d), 1 i32 (a), restWords i64
    restWords
      ? [0x04, 0x02, I32, 0x01, I64, 0x01, I32, ...leb(restWords), I64]
      : [0x03, 0x02, I32, 0x01, I64, 0x01, I32],
    Array.from({ length: restWords }, (_, w) => [...get(QUERY), ...i64Load(w * 8), ...set(Q + w)]).flat(),
    [...i32(0), ...set(I)],
    [...BLOCK, ...LOOP, ...get(I), ...get(M), I32_GE_U, ...brIf(1)],
    // p = positions[i]; d = prefixDistances[p]
    [...get(POSITIONS), ...get(I), ...i32(2), I32_SHL, I32_ADD, ...i32Load, ...set(P)],
    [...get(PREFIX), ...get(P), ...i32(1), I32_SHL, I32_ADD, ...i32Load16, I64_EXTEND_I32_U, ...set(D)],
    [...get(REST), ...get(P), ...i32(restWords * 8), I32_MUL, I32_ADD, ...set(P)],
    Array.from({ length: restWords }, (_, w) => [...get(D), ...word(w), I64_ADD, ...set(D)]).flat(),
    [...get(OUT), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...get(D), I32_WRAP_I64, ...i32Store16], // out[i] = d
    [...get(HIST), ...get(D), I32_WRAP_I64, ...i32(2), I32_SHL, I32_ADD, ...tee(A)], // histogram[d] += 1
    [...get(A), ...i32Load, ...i32(1), I32_ADD, ...i32Store],
    [...get(I), ...i32(1), I32_ADD, ...set(I), ...br(0), END, END, END],
  ].flat();
}

type Scan = (prefixes: number, rests: number, n: number, query: number, out: number, histogram: number) => void;

export interface HammingScanner {
  memory: WasmMemory;
  scanWhole: Scan;
  scanPrefixes: Scan;
  select: (distances: number, n: number, cutoff: number, atCutoff: number, out: number) => number;
  refine: (
    rests: number,
    positions: number,
    m: number,
    queryRest: number,
    prefixDistances: number,
    out: number,
    histogram: number,
  ) => void;
}

const modules = new Map<string, object>();

/** A scanner for codes of `prefixWords` + `restWords` 64-bit words, with its own memory (1 page to start). */
export function hammingScanner(prefixWords: number, restWords = 0): HammingScanner {
  const key = `${prefixWords}+${restWords}`;
  let module = modules.get(key);
  if (!module) {
    const scanPrefixes = scanBody(prefixWords, 0, true);
    const scanWhole = scanBody(prefixWords, restWords);
    const select = selectBody();
    const refine = refineBody(restWords);
    const params = (n: number) => [n, ...Array(n).fill(I32)];
    const body = (code: number[]) => [...leb(code.length), ...code];
    module = new wasm.Module(
      Uint8Array.from([
        ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // magic, version 1
        // types: (i32 x 6) -> (), (i32 x 5) -> i32, (i32 x 7) -> ()
        ...section(1, [0x03, 0x60, ...params(6), 0x00, 0x60, ...params(5), 0x01, I32, 0x60, ...params(7), 0x00]),
        ...section(3, [0x04, 0x00, 0x00, 0x01, 0x02]), // four functions of those types
        ...section(5, [0x01, 0x00, 0x01]), // one memory, 1 page to start
        ...section(7, [
          0x05,
          ...[...name('scanWhole'), 0x00, 0x00],
          ...[...name('scanPrefixes'), 0x00, 0x01],
          ...[...name('select'), 0x00, 0x02],
          ...[...name('refine'), 0x00, 0x03],
          ...[...name('memory'), 0x02, 0x00],
        ]),
        ...section(10, [0x04, ...body(scanWhole), ...body(scanPrefixes), ...body(select), ...body(refine)]),
      ]),
    );
    modules.set(key, module);
  }
  const { exports } = new wasm.Instance(module);
  return {
    memory: exports.memory as WasmMemory,
    scanWhole: exports.scanWhole as Scan,
    scanPrefixes: exports.scanPrefixes as Scan,
    select: exports.select as HammingScanner['select'],
    refine: exports.refine as HammingScanner['refine'],
  };
}
