/**
 * The two loops of a search over 1-bit codes (binary-codes.ts), as WebAssembly assembled here
 * (no build step, no binary file in the tree):
 *
 * - `scan(codes, n, query, out, histogram)`: for each of n codes, popcount(code XOR query) as a
 *   u16 in out[i], and histogram[distance] += 1;
 * - `select(distances, n, cutoff, atCutoff, out)`: the positions whose distance is below
 *   `cutoff`, and the first `atCutoff` of those at it, as u32s in out; returns how many.
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
export const [I32_ADD, I32_SHL, I32_GE_U, I32_LT_U, I32_EQ, I32_NE, I32_AND] = [
  0x6a, 0x74, 0x4f, 0x49, 0x46, 0x47, 0x71,
];
const [I64_XOR, I64_POPCNT, I64_ADD, I32_WRAP_I64, I32_SUB] = [0x85, 0x7b, 0x7c, 0xa7, 0x6b];
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const ELSE = 0x05;
export const END = 0x0b;
export const brIf = (depth: number) => [0x0d, depth];
export const br = (depth: number) => [0x0c, depth];
export const I32 = 0x7f;
const I64 = 0x7e;

function scanBody(words: number): number[] {
  // params 0 codes, 1 n, 2 query, 3 out, 4 histogram; locals 5 i, 6 p, 7 d, 8 a, 9.. the query's words
  const [CODES, N, QUERY, OUT, HIST, I, P, D, A, Q] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const word = (w: number) => [...get(P), ...i64Load(w * 8), ...get(Q + w), I64_XOR, I64_POPCNT];
  return [
    [0x02, 0x04, I32, ...leb(words), I64],
    Array.from({ length: words }, (_, w) => [...get(QUERY), ...i64Load(w * 8), ...set(Q + w)]).flat(),
    [...get(CODES), ...set(P), ...i32(0), ...set(I)],
    [...BLOCK, ...LOOP, ...get(I), ...get(N), I32_GE_U, ...brIf(1)],
    word(0),
    Array.from({ length: words - 1 }, (_, w) => [...word(w + 1), I64_ADD]).flat(),
    [I32_WRAP_I64, ...set(D)],
    [...get(OUT), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...get(D), ...i32Store16], // out[i] = d
    [...get(HIST), ...get(D), ...i32(2), I32_SHL, I32_ADD, ...tee(A)], // histogram[d] += 1
    [...get(A), ...i32Load, ...i32(1), I32_ADD, ...i32Store],
    [...get(P), ...i32(words * 8), I32_ADD, ...set(P)],
    [...get(I), ...i32(1), I32_ADD, ...set(I), ...br(0), END, END, END],
  ].flat();
}

function selectBody(): number[] {
  // params 0 distances, 1 n, 2 cutoff, 3 atCutoff, 4 out; locals 5 i, 6 k, 7 d
  const [DIST, N, CUT, AT, OUT, I, K, D] = [0, 1, 2, 3, 4, 5, 6, 7];
  const keep = [...get(OUT), ...get(K), ...i32(2), I32_SHL, I32_ADD, ...get(I), ...i32Store];
  const next = [...get(K), ...i32(1), I32_ADD, ...set(K)];
  return [
    [0x01, 0x03, I32],
    [...i32(0), ...set(I), ...i32(0), ...set(K)],
    [...BLOCK, ...LOOP, ...get(I), ...get(N), I32_GE_U, ...brIf(1)],
    [...get(DIST), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...i32Load16, ...set(D)],
    [...get(D), ...get(CUT), I32_LT_U, ...IF, ...keep, ...next, ELSE],
    [...get(D), ...get(CUT), I32_EQ, ...get(AT), ...i32(0), I32_NE, I32_AND],
    [...IF, ...keep, ...next, ...get(AT), ...i32(1), I32_SUB, ...set(AT), END, END],
    [...get(I), ...i32(1), I32_ADD, ...set(I), ...br(0), END, END],
    [...get(K), END],
  ].flat();
}

export interface HammingScanner {
  memory: WasmMemory;
  scan: (codes: number, n: number, query: number, out: number, histogram: number) => void;
  select: (distances: number, n: number, cutoff: number, atCutoff: number, out: number) => number;
}

const modules = new Map<number, object>();

/** A scanner for codes of `words` 64-bit words, with its own memory (1 page to start). */
export function hammingScanner(words: number): HammingScanner {
  let module = modules.get(words);
  if (!module) {
    const scan = scanBody(words);
    const select = selectBody();
    const params = [0x05, I32, I32, I32, I32, I32];
    module = new wasm.Module(
      Uint8Array.from([
        ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // magic, version 1
        ...section(1, [0x02, 0x60, ...params, 0x00, 0x60, ...params, 0x01, I32]), // (i32 x 5) -> (), -> i32
        ...section(3, [0x02, 0x00, 0x01]), // two functions of those types
        ...section(5, [0x01, 0x00, 0x01]), // one memory, 1 page to start
        ...section(7, [
          0x03,
          ...name('scan'),
          0x00,
          0x00,
          ...name('select'),
          0x00,
          0x01,
          ...name('memory'),
          0x02,
          0x00,
        ]),
        ...section(10, [0x02, ...leb(scan.length), ...scan, ...leb(select.length), ...select]),
      ]),
    );
    modules.set(words, module);
  }
  const { exports } = new wasm.Instance(module);
  return {
    memory: exports.memory as WasmMemory,
    scan: exports.scan as HammingScanner['scan'],
    select: exports.select as HammingScanner['select'],
  };
}
