import type Database from 'better-sqlite3';
import { BinaryCodes, int8Vector, signBits } from './binary-codes.js';
import { ascending } from './ascending.js';

/** What the tables hold; stored in `vector_index_meta.layout` so an older layout is converted at start. */
const LAYOUT = 'binary-codes+int8-copies+candidates+float-rerank';
/** the layouts before `chunk_codes` and before `chunk_int8`: their two tables are kept, codes and copies derived from the floats */
const LAYOUTS_KEEPING_TABLES = [
  'binary-candidates+float-rerank',
  'binary-codes+candidates+float-rerank',
  'binary-codes+int8+candidates+float-rerank',
];
/** binary candidates fetched per result wanted, before the exact re-rank */
const OVERSAMPLE = 8;
const MIN_CANDIDATES = 128;
/**
 * Memory for agents' codes and int8 copies kept between searches (least recently searched dropped
 * first): 128 MB holds both for ~290k chunks of 384 dimensions or ~75k of 1536. An agent whose
 * int8 copies do not fit is re-ranked from the float vectors in the database (slower: ~0.8 ms a
 * search at 100k); one whose codes alone do not fit is searched through the vec0 table.
 */
const VECTORS_BUDGET_BYTES = 128 * 1024 * 1024;

export interface VectorIndexOptions {
  sqlite: Database.Database;
  /** the embedder's id (provider, model, dimensions): another one rebuilds the index */
  embedderId: string;
  dimensions: number;
  /** memory for agents' codes and int8 copies (VECTORS_BUDGET_BYTES unless a test sets a smaller one) */
  vectorsBudgetBytes?: number;
}

/**
 * Chunk vectors of the configured embedder, searched per agent in two steps:
 *
 * 1. `chunk_vectors`, a sqlite-vec table of 1-bit quantized vectors (one bit per dimension: 192
 *    bytes for 1536 dimensions) partitioned by agent, gives the nearest candidates by Hamming
 *    distance: a scan 32 times smaller than over float vectors.
 * 2. The candidates are re-ranked by cosine distance on int8 copies of their vectors held in
 *    memory (binary-codes.ts: the order of the float vectors, a quarter of their size) or, for an
 *    agent whose copies do not fit the memory budget, on the full float32 vectors of
 *    `chunk_embeddings`, a plain table keyed by chunk id.
 *
 * Measured on 1536-dimension vectors (bench/retrieval.ts): a float-only vec0 scan of one agent's
 * 10k chunks took ~30 ms; this takes a few ms with recall@8 against exact search near 1.0 (see
 * bench/RESULTS.md). Candidates are max(128, 8 x k).
 *
 * Its dimension depends on the configured embedder, so the tables are created here at start
 * rather than in a migration; the embedder id is kept in `vector_index_meta`. When the embedder
 * changes, the tables are rebuilt and every chunk is marked for re-embedding
 * (chunks.embedded_with = NULL), which the backfill then does in batches. A database written by
 * the earlier float-only layout is converted in place, without calling the embedder again.
 *
 * Rowids are chunks.id, so a trigger removes a chunk's vectors whenever the chunk goes, including
 * the cascades from deleting a source or an agent.
 *
 * Step 1 normally runs over a copy of the agent's codes in memory (binary-codes.ts), loaded on its
 * first search from `chunk_codes`: the same 1-bit codes, clustered by agent, read in one scan. That
 * takes ~0.1 s for 100k chunks; quantizing the agent's float vectors again, as before, took ~1.3 s,
 * and reading vec0's column row by row is no faster (the main thread is blocked meanwhile).
 * `store` appends to it; deletions are counted per agent by a trigger (`chunk_deletions`,
 * migration 0009) whatever deleted the chunk, and a search that sees the count moved drops the
 * codes of chunks that are gone, so deleted chunks never take candidate places.
 */
export class VectorIndex {
  private statements: {
    candidates: Database.Statement;
    rerank: Database.Statement;
    vector: Database.Statement<[number], Buffer>;
    deletions: Database.Statement<[string], number>;
    codes: Database.Statement<[string], [string, Buffer | null]>;
    int8: Database.Statement<[string], [string, Buffer | null]>;
    chunkIds: Database.Statement<[string], number>;
  } | null = null;
  /** per agent: its codes and the deletion count they were loaded at; Map order = least recently searched first */
  private readonly loaded = new Map<string, { codes: BinaryCodes; deletions: number }>();
  private loadedBytes = 0;

  private readonly sqlite: Database.Database;
  readonly embedderId: string;
  readonly dimensions: number;
  private readonly vectorsBudgetBytes: number;

  constructor({ sqlite, embedderId, dimensions, vectorsBudgetBytes = VECTORS_BUDGET_BYTES }: VectorIndexOptions) {
    this.sqlite = sqlite;
    this.embedderId = embedderId;
    this.dimensions = dimensions;
    this.vectorsBudgetBytes = vectorsBudgetBytes;
  }

  /** memory held by the agents' indexes kept between searches */
  get memoryBytes(): number {
    return this.loadedBytes;
  }

  ensure(): void {
    this.statements = null;
    this.loaded.clear();
    this.loadedBytes = 0;
    // the int8 copy of a stored float vector, for converting an earlier layout in SQL
    this.sqlite.function('vector_int8', { deterministic: true }, (blob: unknown) =>
      Buffer.from(int8Vector(floatsOf(blob as Buffer)).buffer),
    );
    const tx = this.sqlite.transaction(() => {
      this.sqlite.exec(
        'CREATE TABLE IF NOT EXISTS vector_index_meta (id INTEGER PRIMARY KEY CHECK (id = 1), embedder_id TEXT NOT NULL, dimensions INTEGER NOT NULL)',
      );
      const columns = this.sqlite.prepare('PRAGMA table_info(vector_index_meta)').all() as Array<{ name: string }>;
      if (!columns.some((c) => c.name === 'layout'))
        this.sqlite.exec('ALTER TABLE vector_index_meta ADD COLUMN layout TEXT');
      const meta = this.sqlite
        .prepare('SELECT embedder_id, dimensions, layout FROM vector_index_meta WHERE id = 1')
        .get() as { embedder_id: string; dimensions: number; layout: string | null } | undefined;
      const tableExists = (name: string) =>
        !!this.sqlite.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name);
      const sameEmbedder = meta?.embedder_id === this.embedderId && meta.dimensions === this.dimensions;
      const bothTables = tableExists('chunk_vectors') && tableExists('chunk_embeddings');
      if (
        sameEmbedder &&
        meta.layout === LAYOUT &&
        bothTables &&
        tableExists('chunk_codes') &&
        tableExists('chunk_int8')
      )
        return;

      this.sqlite.exec('DROP TRIGGER IF EXISTS chunks_vectors_delete');
      // the layout before chunk_codes already holds both tables as they are: only the codes are new
      const keepTables = sameEmbedder && LAYOUTS_KEEPING_TABLES.includes(meta.layout ?? '') && bothTables;
      const convertible = sameEmbedder && meta.layout === null && tableExists('chunk_vectors');
      if (!keepTables) {
        this.sqlite.exec('DROP TABLE IF EXISTS chunk_embeddings');
        this.sqlite.exec('CREATE TABLE chunk_embeddings (chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)');
        // the float-only layout's vectors become the full vectors; the binary ones are derived from them
        if (convertible)
          this.sqlite.exec(
            'INSERT INTO chunk_embeddings (chunk_id, vector) SELECT rowid, embedding FROM chunk_vectors',
          );
        this.sqlite.exec('DROP TABLE IF EXISTS chunk_vectors');
        this.sqlite.exec(
          `CREATE VIRTUAL TABLE chunk_vectors USING vec0(chatbot_id text partition key, embedding bit[${this.dimensions}])`,
        );
        if (convertible) {
          this.sqlite.exec(
            'INSERT INTO chunk_vectors (rowid, chatbot_id, embedding) ' +
              'SELECT e.chunk_id, c.chatbot_id, vec_quantize_binary(e.vector) FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id',
          );
        } else {
          this.sqlite.exec('UPDATE chunks SET embedded_with = NULL WHERE embedded_with IS NOT NULL');
        }
      }
      // WITHOUT ROWID, keyed by agent first: one agent's codes sit together and are read in key
      // order. The int8 copies in a table of their own: eight times the codes' size, they would
      // make reading the codes alone (an agent whose copies do not fit the memory budget) read
      // every copy's pages too.
      this.sqlite.exec('DROP TABLE IF EXISTS chunk_codes');
      this.sqlite.exec('DROP TABLE IF EXISTS chunk_int8');
      for (const [table, column] of [
        ['chunk_codes', 'code'],
        ['chunk_int8', 'int8'],
      ])
        this.sqlite.exec(
          `CREATE TABLE ${table} (chatbot_id TEXT NOT NULL, chunk_id INTEGER NOT NULL, ${column} BLOB NOT NULL, PRIMARY KEY (chatbot_id, chunk_id)) WITHOUT ROWID`,
        );
      if (keepTables || convertible) {
        const from = 'FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id';
        this.sqlite.exec(
          `INSERT INTO chunk_codes (chatbot_id, chunk_id, code) SELECT c.chatbot_id, e.chunk_id, vec_quantize_binary(e.vector) ${from}`,
        );
        this.sqlite.exec(
          `INSERT INTO chunk_int8 (chatbot_id, chunk_id, int8) SELECT c.chatbot_id, e.chunk_id, vector_int8(e.vector) ${from}`,
        );
      }
      this.sqlite.exec(
        'CREATE TRIGGER chunks_vectors_delete AFTER DELETE ON chunks BEGIN ' +
          'DELETE FROM chunk_vectors WHERE rowid = old.id; DELETE FROM chunk_embeddings WHERE chunk_id = old.id; ' +
          'DELETE FROM chunk_codes WHERE chatbot_id = old.chatbot_id AND chunk_id = old.id; ' +
          'DELETE FROM chunk_int8 WHERE chatbot_id = old.chatbot_id AND chunk_id = old.id; END',
      );
      this.sqlite
        .prepare(
          'INSERT INTO vector_index_meta (id, embedder_id, dimensions, layout) VALUES (1, ?, ?, ?) ' +
            'ON CONFLICT(id) DO UPDATE SET embedder_id = excluded.embedder_id, dimensions = excluded.dimensions, layout = excluded.layout',
        )
        .run(this.embedderId, this.dimensions, LAYOUT);
    });
    tx();
  }

  /** Stores vectors for chunks that still exist and marks them embedded; one transaction. */
  store(items: Array<{ chunkId: number; chatbotId: string; vector: Float32Array }>): void {
    const stillThere = this.sqlite.prepare('SELECT 1 FROM chunks WHERE id = ?');
    const delBits = this.sqlite.prepare('DELETE FROM chunk_vectors WHERE rowid = ?');
    const insertBits = this.sqlite.prepare(
      'INSERT INTO chunk_vectors (rowid, chatbot_id, embedding) VALUES (?, ?, vec_bit(?))',
    );
    const upsertFull = this.sqlite.prepare('INSERT OR REPLACE INTO chunk_embeddings (chunk_id, vector) VALUES (?, ?)');
    const upsertCode = this.sqlite.prepare(
      'INSERT OR REPLACE INTO chunk_codes (chatbot_id, chunk_id, code) VALUES (?, ?, ?)',
    );
    const upsertInt8 = this.sqlite.prepare(
      'INSERT OR REPLACE INTO chunk_int8 (chatbot_id, chunk_id, int8) VALUES (?, ?, ?)',
    );
    const mark = this.sqlite.prepare('UPDATE chunks SET embedded_with = ? WHERE id = ?');
    const stored = this.sqlite.transaction(() => {
      const done: Array<{ chunkId: number; chatbotId: string; code: Buffer; int8: Int8Array }> = [];
      for (const item of items) {
        // the source may have been deleted while its embeddings were being computed
        if (!stillThere.get(item.chunkId)) continue;
        // quantized once (the bits vec_quantize_binary makes): the vec0 table, chunk_codes and the codes in memory take the same code
        const code = Buffer.from(signBits(item.vector));
        const int8 = int8Vector(item.vector);
        delBits.run(BigInt(item.chunkId));
        insertBits.run(BigInt(item.chunkId), item.chatbotId, code);
        upsertFull.run(item.chunkId, Buffer.from(item.vector.buffer, item.vector.byteOffset, item.vector.byteLength));
        upsertCode.run(item.chatbotId, item.chunkId, code);
        upsertInt8.run(item.chatbotId, item.chunkId, Buffer.from(int8.buffer));
        mark.run(this.embedderId, item.chunkId);
        done.push({ chunkId: item.chunkId, chatbotId: item.chatbotId, code, int8 });
      }
      return done;
    })();
    // committed: agents whose codes are in memory get the new ones too
    for (const item of stored) {
      const entry = this.loaded.get(item.chatbotId);
      if (!entry) continue;
      const before = entry.codes.bytes;
      entry.codes.add(item.chunkId, item.code, item.int8);
      this.loadedBytes += entry.codes.bytes - before;
    }
  }

  /** The `k` nearest chunks of one agent by cosine distance (binary candidates, exact re-rank). */
  search(chatbotId: string, vector: Float32Array, k: number): Array<{ chunkId: number; distance: number }> {
    const statements = this.prepared();
    const wanted = Math.max(MIN_CANDIDATES, k * OVERSAMPLE);
    const codes = this.codesOf(chatbotId);
    const positions = codes?.nearestPositions(signBits(vector), wanted);
    if (codes?.hasInt8) return this.settled(codes.rerank(vector, positions!), vector, k);
    const candidates = codes
      ? positions!.map((p) => codes.idAt(p))
      : (statements.candidates.all(vector, wanted, chatbotId) as Array<{ rowid: number | bigint }>).map((r) =>
          Number(r.rowid),
        );
    if (candidates.length === 0) return [];
    // equal distances: the newer chunk first (a later upload more likely holds the current answer)
    const rows = statements.rerank.all(vector, JSON.stringify(candidates), k) as Array<{
      chunk_id: number;
      distance: number;
    }>;
    return rows.map((r) => ({ chunkId: r.chunk_id, distance: r.distance }));
  }

  /**
   * The first `k` of candidates ranked on their int8 copies, with the order at the k-th place made
   * exact: candidates whose distance differs from the k-th one's by less than 3 standard
   * deviations of the difference's rounding error are re-ranked on their float vectors. Usually none or a few rows are
   * read; without this, near-ties at the cut swapped places and recall@5 fell to ~0.986.
   */
  private settled(
    ranked: Array<{ chunkId: number; distance: number; uncertainty: number }>,
    vector: Float32Array,
    k: number,
  ): Array<{ chunkId: number; distance: number }> {
    const strip = (r: { chunkId: number; distance: number }) => ({ chunkId: r.chunkId, distance: r.distance });
    if (ranked.length <= k) return ranked.map(strip);
    const cut = ranked[k - 1]!;
    const near = (r: (typeof ranked)[number]) =>
      Math.abs(r.distance - cut.distance) <= 3 * Math.hypot(r.uncertainty, cut.uncertainty);
    if (!near(ranked[k]!)) return ranked.slice(0, k).map(strip);
    const uncertain = ranked.filter(near);
    // a few point reads and the cosine here: the same in one statement over json_each took ~0.19 ms
    const stored = this.prepared().vector;
    const exactDistance = new Map<number, number>();
    for (const r of uncertain) {
      const blob = stored.get(r.chunkId);
      if (blob) exactDistance.set(r.chunkId, cosineDistance(vector, floatsOf(blob)));
    }
    return ranked
      .slice(0, k + uncertain.length)
      .map((r) => ({ chunkId: r.chunkId, distance: exactDistance.get(r.chunkId) ?? r.distance }))
      .sort((a, b) => ascending(a.distance, b.distance) || b.chunkId - a.chunkId)
      .slice(0, k);
  }

  /** The agent's codes in memory: loaded when missing, rid of deleted chunks' codes when the agent lost chunks since; null over the budget. */
  private codesOf(chatbotId: string): BinaryCodes | null {
    const statements = this.prepared();
    const deletions = statements.deletions.get(chatbotId) ?? 0;
    const entry = this.loaded.get(chatbotId);
    if (entry) {
      this.loaded.delete(chatbotId);
      this.loadedBytes -= entry.codes.bytes;
      if (entry.deletions !== deletions) {
        // chunks went since the codes were loaded: drop theirs (the agent's chunk ids are a small
        // read; loading the codes again read every vector: ~1.2 s at 100k chunks). Chunk ids are
        // AUTOINCREMENT, never reused, so an id still present is still the chunk it was.
        const present = new Set(statements.chunkIds.all(chatbotId));
        entry.codes.retain((id) => present.has(id));
        entry.deletions = deletions;
      }
      this.remember(chatbotId, entry);
      return entry.codes;
    }
    const [idsJson, packed] = statements.codes.get(chatbotId)!;
    const ids = JSON.parse(idsJson) as number[];
    const withInt8 = BinaryCodes.bytesFor(this.dimensions, ids.length, true) <= this.vectorsBudgetBytes;
    if (!withInt8 && BinaryCodes.bytesFor(this.dimensions, ids.length, false) > this.vectorsBudgetBytes) return null;
    // the copies in the same key order, and their ids checked to be the codes' (the same writes and
    // deletes keep both tables alike; a difference would put copies beside the wrong codes)
    const [int8Ids, int8] = withInt8 ? statements.int8.get(chatbotId)! : ['', null];
    const sameRows = withInt8 && int8Ids === idsJson;
    const codes = new BinaryCodes(this.dimensions, ids.length, sameRows);
    codes.addPacked(ids, packed ?? new Uint8Array(0), this.dimensions / 8, sameRows ? (int8 ?? undefined) : undefined);
    this.remember(chatbotId, { codes, deletions });
    return codes;
  }

  private remember(chatbotId: string, entry: { codes: BinaryCodes; deletions: number }): void {
    this.loaded.set(chatbotId, entry);
    this.loadedBytes += entry.codes.bytes;
    for (const [id, other] of this.loaded) {
      if (this.loadedBytes <= this.vectorsBudgetBytes || id === chatbotId) break;
      this.loaded.delete(id);
      this.loadedBytes -= other.codes.bytes;
    }
  }

  private prepared() {
    this.statements ??= {
      candidates: this.sqlite.prepare(
        'SELECT rowid FROM chunk_vectors WHERE embedding MATCH vec_quantize_binary(?) AND k = ? AND chatbot_id = ?',
      ),
      rerank: this.sqlite.prepare(
        'SELECT chunk_id, vec_distance_cosine(vector, ?) AS distance FROM chunk_embeddings ' +
          'WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY distance, chunk_id DESC LIMIT ?',
      ),
      vector: this.sqlite.prepare<[number], Buffer>('SELECT vector FROM chunk_embeddings WHERE chunk_id = ?').pluck(),
      deletions: this.sqlite
        .prepare<[string], number>('SELECT deleted FROM chunk_deletions WHERE chatbot_id = ?')
        .pluck(),
      // An agent's ids and codes in one scan, as a JSON array and one blob: a blob per row costs
      // better-sqlite3 a Buffer each (~3.5 us; 100k rows ~400 ms, this ~100 ms). Both aggregates
      // take the rows in the same sequence, so the nth id owns the nth code (no ORDER BY: it
      // sorted the rows again, +70 ms at 100k; the scan follows the key anyway). group_concat
      // passes a blob's bytes through unchanged in a UTF-8 database (ours: SQLite's default), and
      // addPacked checks the length.
      codes: this.sqlite
        .prepare<[string], [string, Buffer | null]>(
          "SELECT json_group_array(chunk_id), CAST(group_concat(code, x'') AS BLOB) FROM chunk_codes WHERE chatbot_id = ?",
        )
        .raw(),
      int8: this.sqlite
        .prepare<[string], [string, Buffer | null]>(
          "SELECT json_group_array(chunk_id), CAST(group_concat(int8, x'') AS BLOB) FROM chunk_int8 WHERE chatbot_id = ?",
        )
        .raw(),
      chunkIds: this.sqlite.prepare<[string], number>('SELECT id FROM chunks WHERE chatbot_id = ?').pluck(),
    };
    return this.statements;
  }
}

/** A stored float32 blob as floats: a view where it is aligned (a blob this size has a buffer of its own), else a copy. */
function floatsOf(blob: Uint8Array): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(blob.slice().buffer);
}

/** cosine distance as sqlite-vec's vec_distance_cosine gives it; 1 for a zero vector, as the int8 re-rank gives it (sqlite-vec answers null) */
function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let j = 0; j < a.length; j++) {
    dot += a[j]! * b[j]!;
    aa += a[j]! * a[j]!;
    bb += b[j]! * b[j]!;
  }
  return aa === 0 || bb === 0 ? 1 : 1 - dot / Math.sqrt(aa * bb);
}
