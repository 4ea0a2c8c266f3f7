/**
 * One agent's 1-bit codes (the sign of each dimension, as sqlite-vec's vec_quantize_binary makes
 * them) held in memory and scanned by Hamming distance.
 *
 * Why not the vec0 table's own KNN: its scan is fast, but its top-k selection grows with k, and
 * the exact re-rank wants 128-160 candidates: for 10k chunks of 1536 dimensions vec0 took ~2.7 ms
 * for 128 candidates (1.2 ms for 16). Here the distances come from a 70-byte WebAssembly loop
 * (64-bit XOR + popcnt: ~0.16 ms for 10k codes; the same loop in JavaScript, without a popcount
 * instruction, took ~1.4 ms), and the selection is linear. The codes are 1/32 of the float
 * vectors: 192 bytes per 1536-dimension chunk.
 */

const PAGE = 65536;

// The project's TypeScript setup (Node types, no DOM lib) declares no WebAssembly values; the
// little used here, typed by hand.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** LEB128 of an unsigned integer, as the WebAssembly binary format writes sizes */
const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

// The few WebAssembly instructions the scan uses (opcodes from the binary format's spec).
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const i32 = (n: number) => [0x41, n]; // i32.const, n < 64
const i64Zero = [0x42, 0x00];
const [I32_ADD, I32_SHL, I32_GE_U, I32_LT_U, I64_XOR, I64_POPCNT, I64_ADD, I32_WRAP_I64] = [
  0x6a, 0x74, 0x4f, 0x49, 0x85, 0x7b, 0x7c, 0xa7,
];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = 0x0b;
const brIf = (depth: number) => [0x0d, depth];
const i64Load = [0x29, 0x03, 0x00]; // align 8, offset 0
const i32Store16 = [0x3b, 0x01, 0x00]; // align 2, offset 0

/**
 * scan(codes, n, words, query, out): for each of n codes of `words` 64-bit words starting at
 * `codes`, writes popcount(code XOR query) as a u16 to out[i]. Params 0-4; locals 5 i, 6 w, 7 p
 * (address of the current code), 8 s (the running count).
 */
const [CODES, N, WORDS, QUERY, OUT, I, W, P, S] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const scanBody = [
  [0x02, 0x03, 0x7f, 0x01, 0x7e], // locals: 3 x i32 (i, w, p), 1 x i64 (s)
  [...get(CODES), ...set(P)], // p = codes
  [...i32(0), ...set(I)], // i = 0
  [...BLOCK, ...LOOP], // one code per turn
  [...get(I), ...get(N), I32_GE_U, ...brIf(1)], // leave the block when i >= n
  [...i64Zero, ...set(S)], // s = 0
  [...i32(0), ...set(W)], // w = 0
  LOOP, // one 64-bit word per turn
  [...get(S)],
  [...get(P), ...get(W), ...i32(3), I32_SHL, I32_ADD, ...i64Load], // code word p[w]
  [...get(QUERY), ...get(W), ...i32(3), I32_SHL, I32_ADD, ...i64Load], // query word q[w]
  [I64_XOR, I64_POPCNT, I64_ADD, ...set(S)], // s += popcnt(code word XOR query word)
  [...get(W), ...i32(1), I32_ADD, ...tee(W), ...get(WORDS), I32_LT_U, ...brIf(0), END], // w += 1; again while w < words
  [...get(OUT), ...get(I), ...i32(1), I32_SHL, I32_ADD, ...get(S), I32_WRAP_I64, ...i32Store16], // out[i] = s
  [...get(P), ...get(WORDS), ...i32(3), I32_SHL, I32_ADD, ...set(P)], // p += words*8
  [...get(I), ...i32(1), I32_ADD, ...set(I)], // i += 1
  [0x0c, 0x00, END, END, END], // br loop; end loop, block, function
].flat();

let compiled: object | null = null;
function scanModule(): object {
  compiled ??= new wasm.Module(
    Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // magic, version 1
      ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type: (i32 x 5) -> ()
      ...section(3, [0x01, 0x00]), // one function of that type
      ...section(5, [0x01, 0x00, 0x01]), // one memory, 1 page to start
      ...section(7, [0x02, ...name('scan'), 0x00, 0x00, ...name('memory'), 0x02, 0x00]), // exports
      ...section(10, [0x01, ...leb(scanBody.length), ...scanBody]),
    ]),
  );
  return compiled;
}

export class BinaryCodes {
  /** bytes of one code in memory: whole 64-bit words (zero padding past dimensions/8) */
  readonly bytesPerCode: number;
  private readonly words64: number;
  private readonly memory: WasmMemory;
  private readonly scan: (codes: number, n: number, words: number, query: number, out: number) => void;
  private ids: Float64Array;
  private size = 0;

  constructor(
    readonly dimensions: number,
    capacity: number,
  ) {
    this.words64 = Math.max(1, Math.ceil(dimensions / 64));
    this.bytesPerCode = this.words64 * 8;
    const instance = new wasm.Instance(scanModule());
    this.memory = instance.exports.memory as WasmMemory;
    this.scan = instance.exports.scan as BinaryCodes['scan'];
    this.ids = new Float64Array(Math.max(16, capacity));
    this.reserve(this.ids.length);
  }

  get count(): number {
    return this.size;
  }

  /** memory held, for the cache's budget */
  get bytes(): number {
    return this.ids.byteLength + this.memory.buffer.byteLength;
  }

  /** Appends a code (a blob from vec_quantize_binary: dimensions/8 bytes). */
  add(id: number, code: Uint8Array): void {
    this.makeRoom(1);
    new Uint8Array(this.memory.buffer, this.size * this.bytesPerCode, this.bytesPerCode).set(
      code.subarray(0, this.bytesPerCode),
    );
    this.ids[this.size] = id;
    this.size += 1;
  }

  /**
   * Appends many codes at once: `packed` holds `ids.length` codes of `codeBytes` bytes each, back to
   * back (as an agent's codes are read from the database in one blob).
   */
  addPacked(ids: ArrayLike<number>, packed: Uint8Array, codeBytes: number): void {
    if (packed.length !== ids.length * codeBytes)
      throw new Error(`${packed.length} bytes for ${ids.length} codes of ${codeBytes}`);
    this.makeRoom(ids.length);
    const memory = new Uint8Array(this.memory.buffer);
    if (codeBytes === this.bytesPerCode) memory.set(packed, this.size * this.bytesPerCode);
    else
      for (let i = 0; i < ids.length; i++)
        memory.set(packed.subarray(i * codeBytes, (i + 1) * codeBytes), (this.size + i) * this.bytesPerCode);
    for (let i = 0; i < ids.length; i++) this.ids[this.size + i] = ids[i]!;
    this.size += ids.length;
  }

  /**
   * Ids of the `wanted` codes nearest to `query` by Hamming distance (ties: the earlier added
   * first). Linear: the distances, a histogram of them, then one pass that keeps everything
   * below the cut-off distance and as many at it as still fit.
   */
  nearest(query: Uint8Array, wanted: number): number[] {
    const n = this.size;
    if (n === 0) return [];
    if (wanted >= n) return Array.from(this.ids.subarray(0, n));
    // scratch space after the codes' capacity: the query, then one u16 distance per code
    const queryAt = this.ids.length * this.bytesPerCode;
    const distancesAt = queryAt + this.bytesPerCode;
    const scratch = new Uint8Array(this.memory.buffer, queryAt, this.bytesPerCode);
    scratch.fill(0);
    scratch.set(query.subarray(0, this.bytesPerCode));
    this.scan(0, n, this.words64, queryAt, distancesAt);
    const distances = new Uint16Array(this.memory.buffer, distancesAt, n);
    const histogram = new Uint32Array(this.words64 * 64 + 1);
    for (let i = 0; i < n; i++) histogram[distances[i]!]! += 1;
    let cutoff = 0;
    let below = 0;
    while (below + histogram[cutoff]! < wanted) below += histogram[cutoff++]!;
    let atCutoff = wanted - below;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const d = distances[i]!;
      if (d < cutoff) out.push(this.ids[i]!);
      else if (d === cutoff && atCutoff > 0) {
        out.push(this.ids[i]!);
        atCutoff -= 1;
      }
    }
    return out;
  }

  /**
   * Keeps only the codes whose id passes `keep`, in their order (after chunks were deleted: far
   * cheaper than loading the agent's codes again). Returns how many were dropped.
   */
  retain(keep: (id: number) => boolean): number {
    const bytes = new Uint8Array(this.memory.buffer);
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const id = this.ids[i]!;
      if (!keep(id)) continue;
      if (kept !== i) {
        bytes.copyWithin(kept * this.bytesPerCode, i * this.bytesPerCode, (i + 1) * this.bytesPerCode);
        this.ids[kept] = id;
      }
      kept += 1;
    }
    const dropped = this.size - kept;
    this.size = kept;
    return dropped;
  }

  /** capacity for `more` codes past the current ones (doubling, so appending one at a time stays linear) */
  private makeRoom(more: number): void {
    let capacity = this.ids.length;
    while (capacity < this.size + more) capacity *= 2;
    if (capacity === this.ids.length) return;
    const grown = new Float64Array(capacity);
    grown.set(this.ids.subarray(0, this.size));
    this.ids = grown;
    this.reserve(capacity);
  }

  /** memory for `capacity` codes plus the scratch space of a search */
  private reserve(capacity: number): void {
    const needed = capacity * this.bytesPerCode + this.bytesPerCode + capacity * 2;
    const pages = Math.ceil(needed / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
  }
}
