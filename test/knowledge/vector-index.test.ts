import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signBits } from '../../src/modules/knowledge/binary-codes.js';
import { VectorIndex } from '../../src/modules/knowledge/vector-index.js';
import { openDatabase, type AppDatabase } from '../../src/platform/db/index.js';
import { insertChunks, seedAgent } from '../helpers/seed.js';
import { useTempDirs } from '../helpers/temp.js';
import { cosineDistance } from '../helpers/vectors.js';

/**
 * The vector index on a real SQLite file with sqlite-vec: binary candidates re-ranked exactly
 * must find what an exact search finds, and a database of the earlier float-only layout must be
 * converted without losing a vector or asking the embedder again.
 */

// the dimension of OpenAI's text-embedding-3-small, the default embedder
const DIMS = 1536;
const { tempDir, closeFirst } = useTempDirs('vector-index-');

function open(): AppDatabase {
  return closeFirst(openDatabase(path.join(tempDir(), 'chat-agent.db')));
}

/** A deterministic pseudo-random generator, so a failure reproduces. */
function generator(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Clustered vectors, like passages about a handful of subjects; a query is drawn from the same
 * subjects, as a visitor asks about what the site covers.
 */
function subjects(seed: number) {
  const random = generator(seed);
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: DIMS }, () => random() - 0.5));
  return (count: number): Float32Array[] =>
    Array.from({ length: count }, () => {
      const centre = centres[Math.floor(random() * centres.length)]!;
      return Float32Array.from(centre, (c) => c + (random() - 0.5) * 0.6);
    });
}
const vectors = (count: number, seed: number) => subjects(seed)(count);

/** Vectors close to one random centre (spread: noise per dimension), the first of them a query. */
function sample(spread: () => number, seed: number) {
  const random = generator(seed);
  const centre = Float32Array.from({ length: DIMS }, () => random() - 0.5);
  return (count: number): Float32Array[] =>
    Array.from({ length: count }, () => Float32Array.from(centre, (c) => c + (random() - 0.5) * spread()));
}

/** An account, an agent, a source and `count` chunks; returns the chunk ids. */
const seedChunks = (database: AppDatabase, chatbotId: string, count: number): number[] =>
  seedAgent(
    database.sqlite,
    chatbotId,
    Array.from({ length: count }, (_, i) => `chunk ${i}`),
  );

/** More chunks for an agent that already has its account, agent and source (seedChunks). */
const moreChunks = (database: AppDatabase, chatbotId: string, count: number): number[] =>
  insertChunks(
    database.sqlite,
    chatbotId,
    Array.from({ length: count }, (_, i) => `later chunk ${i}`),
    10_000,
  );

/** A vector index for `embedderId` (ensured) on `database`, with `count` new chunks of agent-a and vectors(count, seed) stored for them. */
function indexWithVectors(database: AppDatabase, embedderId: string, count: number, seed: number) {
  const index = new VectorIndex({ sqlite: database.sqlite, embedderId, dimensions: DIMS });
  index.ensure();
  const ids = seedChunks(database, 'agent-a', count);
  const stored = vectors(count, seed);
  index.store(ids.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: stored[i]! })));
  return { index, ids, stored };
}

describe('VectorIndex', () => {
  // codes in memory (the normal case), and through the vec0 table (an agent over the memory budget)
  it.each([
    ['codes and int8 copies in memory', undefined],
    // room for the codes of 1500 chunks, not for their int8 copies: floats re-ranked from the database
    ['codes in memory, floats from the database', 400_000],
    ['vec0 table', 0],
  ])(
    'binary candidates re-ranked exactly give the same top 8 as an exact search (recall >= 0.95), within one agent only: %s',
    async (_, budget) => {
      const database = open();
      const index = new VectorIndex({
        sqlite: database.sqlite,
        embedderId: 'fake:test',
        dimensions: DIMS,
        vectorsBudgetBytes: budget,
      });
      index.ensure();
      const mine = seedChunks(database, 'agent-a', 1500);
      const theirs = seedChunks(database, 'agent-b', 300);
      const sample = subjects(1);
      const mineVectors = sample(mine.length);
      index.store(mine.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: mineVectors[i]! })));
      const theirVectors = vectors(theirs.length, 2);
      index.store(theirs.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-b', vector: theirVectors[i]! })));

      let found = 0;
      const queries = sample(40);
      for (const query of queries) {
        const exact = mine
          .map((chunkId, i) => ({ chunkId, distance: cosineDistance(query, mineVectors[i]!) }))
          .sort((a, b) => a.distance - b.distance)
          .slice(0, 8)
          .map((r) => r.chunkId);
        const result = index.search('agent-a', query, 8);
        expect(result).toHaveLength(8);
        expect(result.every((r) => mine.includes(r.chunkId))).toBe(true);
        const distances = result.map((r) => r.distance);
        expect(distances).toEqual([...distances].sort((a, b) => a - b));
        found += result.filter((r) => exact.includes(r.chunkId)).length;
      }
      console.log(JSON.stringify({ recall_at_8: found / (queries.length * 8) }));
      expect(found / (queries.length * 8)).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('the int8 re-rank orders candidates as the float vectors do, its distances within 1e-3, and the query code is the stored one', () => {
    const database = open();
    const ids = seedChunks(database, 'agent-a', 600);
    const stored = subjects(21)(ids.length);
    const inMemory = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    inMemory.ensure();
    inMemory.store(ids.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: stored[i]! })));
    const fromFloats = new VectorIndex({
      sqlite: database.sqlite,
      embedderId: 'fake:test',
      dimensions: DIMS,
      vectorsBudgetBytes: 200_000,
    });
    fromFloats.ensure();
    for (const query of subjects(21)(20)) {
      const fast = inMemory.search('agent-a', query, 10);
      const exact = fromFloats.search('agent-a', query, 10);
      // the same passages; two within ~1e-4 of each other may swap places
      const exactDistance = new Map(exact.map((r) => [r.chunkId, r.distance]));
      const shared = fast.filter((r) => exactDistance.has(r.chunkId));
      expect(shared.length).toBeGreaterThanOrEqual(9);
      for (const r of shared) expect(Math.abs(r.distance - exactDistance.get(r.chunkId)!)).toBeLessThan(1e-3);
      fast.forEach((r, i) => expect(Math.abs(r.distance - exact[i]!.distance)).toBeLessThan(1e-3));
      const stmt = database.sqlite.prepare('SELECT vec_quantize_binary(?) AS code');
      expect(Buffer.from(signBits(query))).toEqual((stmt.get(query) as { code: Buffer }).code);
    }
    // zero and negative components, and a length not a multiple of 64
    const odd = Float32Array.from({ length: 72 }, (_, i) => (i % 3 === 0 ? 0 : i % 2 ? -0.5 : 0.25));
    const code = database.sqlite.prepare('SELECT vec_quantize_binary(?) AS code').get(odd) as { code: Buffer };
    expect(Buffer.from(signBits(odd))).toEqual(code.code);
  });

  it('a search after chunks were deleted does not spend its candidates on them (the codes of deleted chunks are dropped)', () => {
    const database = open();
    const index = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const ids = seedChunks(database, 'agent-a', 300);
    const near = sample(() => 0.02, 7); // 200 vectors next to the query
    const far = vectors(100, 8);
    const query = near(1)[0]!;
    const stored = [...near(200), ...far];
    index.store(ids.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: stored[i]! })));
    const nearIds = new Set(ids.slice(0, 200));
    expect(index.search('agent-a', query, 8).every((r) => nearIds.has(r.chunkId))).toBe(true);

    // every near chunk goes (as when their source is deleted): the 128 candidates of stale codes
    // would all be deleted chunks, and the search would come back empty
    database.sqlite.prepare('DELETE FROM chunks WHERE id <= ?').run(ids[199]);
    const after = index.search('agent-a', query, 8);
    expect(after).toHaveLength(8);
    expect(after.every((r) => ids.slice(200).includes(r.chunkId))).toBe(true);
  });

  it('after deletions, a search over the codes in memory finds what an index loaded afresh finds', () => {
    const database = open();
    const index = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const ids = seedChunks(database, 'agent-a', 1200);
    const sample = subjects(9);
    const stored = sample(ids.length);
    index.store(ids.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: stored[i]! })));
    const queries = sample(15);
    for (const query of queries) index.search('agent-a', query, 8); // codes in memory

    // a scattered third of the chunks goes, then new ones arrive
    database.sqlite.prepare('DELETE FROM chunks WHERE id % 3 = 0 OR id BETWEEN ? AND ?').run(ids[100], ids[300]);
    const more = moreChunks(database, 'agent-a', 200);
    const moreVectors = sample(more.length);
    index.store(more.map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: moreVectors[i]! })));

    const fresh = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    const remaining = new Set(
      database.sqlite.prepare("SELECT id FROM chunks WHERE chatbot_id = 'agent-a'").pluck().all() as number[],
    );
    for (const query of queries) {
      const result = index.search('agent-a', query, 8);
      expect(result.every((r) => remaining.has(r.chunkId))).toBe(true);
      expect(result).toEqual(fresh.search('agent-a', query, 8));
    }
  });

  it('finds vectors stored after the agent was first searched', () => {
    const database = open();
    const index = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const ids = seedChunks(database, 'agent-a', 200);
    const far = vectors(150, 8);
    index.store(ids.slice(0, 150).map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: far[i]! })));
    const near = sample(() => 0.02, 7);
    const query = near(1)[0]!;
    expect(index.search('agent-a', query, 8)).toHaveLength(8); // codes now in memory
    const late = near(50);
    index.store(ids.slice(150).map((chunkId, i) => ({ chunkId, chatbotId: 'agent-a', vector: late[i]! })));
    expect(index.search('agent-a', query, 8).every((r) => ids.slice(150).includes(r.chunkId))).toBe(true);
  });

  it("an agent whose int8 copies are not its codes' rows is re-ranked from the float vectors, never beside the wrong copies", () => {
    const database = open();
    const { ids, stored } = indexWithVectors(database, 'fake:test', 40, 14);
    // a copy gone that the codes still have (no write path does this; the check guards the pairing)
    database.sqlite.prepare('DELETE FROM chunk_int8 WHERE chunk_id = ?').run(ids[0]);
    const index = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const found = index.search('agent-a', stored[5]!, 3);
    expect(found[0]!.chunkId).toBe(ids[5]);
    expect(found[0]!.distance).toBeCloseTo(0, 5); // exact: the float vectors
  });

  it('deleting chunks removes both their binary and full vectors', () => {
    const database = open();
    const { ids } = indexWithVectors(database, 'fake:test', 10, 4);
    database.sqlite.prepare('DELETE FROM chunks WHERE id IN (?, ?)').run(ids[0], ids[1]);
    const count = (sql: string) => (database.sqlite.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM chunk_vectors')).toBe(8);
    expect(count('SELECT count(*) AS n FROM chunk_embeddings')).toBe(8);
    expect(count('SELECT count(*) AS n FROM chunk_codes')).toBe(8);
    expect(count('SELECT count(*) AS n FROM chunk_int8')).toBe(8);
  });

  it('converts a database of the layout before chunk_codes: codes derived from the stored vectors, nothing to re-embed', () => {
    const database = open();
    const { sqlite } = database;
    const before = new VectorIndex({ sqlite, embedderId: 'fake:test', dimensions: DIMS });
    before.ensure();
    const ids = [...seedChunks(database, 'agent-a', 40), ...seedChunks(database, 'agent-b', 10)];
    const stored = vectors(50, 10);
    before.store(ids.map((chunkId, i) => ({ chunkId, chatbotId: i < 40 ? 'agent-a' : 'agent-b', vector: stored[i]! })));
    const expected = before.search('agent-a', stored[3]!, 8);
    // what that layout held: the same two tables and trigger, no chunk_codes
    sqlite.exec('DROP TRIGGER chunks_vectors_delete; DROP TABLE chunk_codes');
    sqlite.exec(
      'CREATE TRIGGER chunks_vectors_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunk_vectors WHERE rowid = old.id; DELETE FROM chunk_embeddings WHERE chunk_id = old.id; END',
    );
    sqlite.exec("UPDATE vector_index_meta SET layout = 'binary-candidates+float-rerank'");

    const index = new VectorIndex({ sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const count = (sql: string, ...args: unknown[]) => (sqlite.prepare(sql).get(...args) as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL')).toBe(0);
    expect(count("SELECT count(*) AS n FROM chunk_codes WHERE chatbot_id = 'agent-a'")).toBe(40);
    expect(count("SELECT count(*) AS n FROM chunk_codes WHERE chatbot_id = 'agent-b'")).toBe(10);
    expect(
      count(
        'SELECT count(*) AS n FROM chunk_codes c JOIN chunk_embeddings e ON e.chunk_id = c.chunk_id WHERE c.code = vec_quantize_binary(e.vector)',
      ),
    ).toBe(50);
    expect(index.search('agent-a', stored[3]!, 8)).toEqual(expected);
    // the trigger now removes codes too
    sqlite.prepare('DELETE FROM chunks WHERE id = ?').run(ids[3]);
    expect(count('SELECT count(*) AS n FROM chunk_codes WHERE chunk_id = ?', ids[3])).toBe(0);
    index.ensure(); // a second start changes nothing
    expect(count('SELECT count(*) AS n FROM chunk_codes')).toBe(49);
  });

  it('converts a database of the layout before the int8 copies: copies derived from the stored vectors, same results', () => {
    const database = open();
    const { sqlite } = database;
    const { index: before, ids, stored } = indexWithVectors(database, 'fake:test', 40, 12);
    const expected = before.search('agent-a', stored[5]!, 8);
    // what that layout held: chunk_codes without its int8 column
    sqlite.exec('DROP TABLE chunk_codes');
    sqlite.exec(
      'CREATE TABLE chunk_codes (chatbot_id TEXT NOT NULL, chunk_id INTEGER NOT NULL, code BLOB NOT NULL, PRIMARY KEY (chatbot_id, chunk_id)) WITHOUT ROWID',
    );
    sqlite.exec(
      "INSERT INTO chunk_codes SELECT 'agent-a', chunk_id, vec_quantize_binary(vector) FROM chunk_embeddings",
    );
    sqlite.exec("UPDATE vector_index_meta SET layout = 'binary-codes+candidates+float-rerank'");

    const index = new VectorIndex({ sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const count = (sql: string) => (sqlite.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL')).toBe(0);
    expect(count(`SELECT count(*) AS n FROM chunk_int8 WHERE length(int8) = ${DIMS}`)).toBe(ids.length);
    const found = index.search('agent-a', stored[5]!, 8);
    expect(found.map((r) => r.chunkId)).toEqual(expected.map((r) => r.chunkId));
    found.forEach((r, i) => expect(r.distance).toBeCloseTo(expected[i]!.distance, 6));
  });

  it('converts a database of the earlier float-only layout in place: same vectors, nothing to re-embed', () => {
    const database = open();
    const { sqlite } = database;
    const ids = seedChunks(database, 'agent-a', 30);
    const stored = vectors(30, 5);
    // the layout written before binary candidates existed
    sqlite.exec(
      'CREATE TABLE vector_index_meta (id INTEGER PRIMARY KEY CHECK (id = 1), embedder_id TEXT NOT NULL, dimensions INTEGER NOT NULL)',
    );
    sqlite.exec(
      `CREATE VIRTUAL TABLE chunk_vectors USING vec0(chatbot_id text partition key, embedding float[${DIMS}] distance_metric=cosine)`,
    );
    sqlite.prepare("INSERT INTO vector_index_meta (id, embedder_id, dimensions) VALUES (1, 'fake:test', ?)").run(DIMS);
    const insert = sqlite.prepare('INSERT INTO chunk_vectors (rowid, chatbot_id, embedding) VALUES (?, ?, ?)');
    ids.forEach((id, i) => insert.run(BigInt(id), 'agent-a', stored[i]!));
    sqlite.prepare("UPDATE chunks SET embedded_with = 'fake:test'").run();

    const index = new VectorIndex({ sqlite, embedderId: 'fake:test', dimensions: DIMS });
    index.ensure();
    const pending = (
      sqlite.prepare('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL').get() as { n: number }
    ).n;
    expect(pending).toBe(0);
    const nearest = index.search('agent-a', stored[7]!, 1);
    expect(nearest[0]!.chunkId).toBe(ids[7]);
    // the re-rank's int8 copies give the cosine to ~1e-4
    expect(nearest[0]!.distance).toBeCloseTo(0, 3);
    expect(
      (
        sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'chunk_vectors_float_only'").get() as {
          n: number;
        }
      ).n,
    ).toBe(0);
    expect((sqlite.prepare('SELECT count(*) AS n FROM chunk_codes').get() as { n: number }).n).toBe(30);
    // a second start finds the new layout and changes nothing
    index.ensure();
    expect(index.search('agent-a', stored[7]!, 1)[0]!.chunkId).toBe(ids[7]);
  });

  it('a different embedder rebuilds the tables and marks every chunk for re-embedding', () => {
    const database = open();
    indexWithVectors(database, 'fake:one', 5, 6);
    const second = new VectorIndex({ sqlite: database.sqlite, embedderId: 'fake:two', dimensions: 32 });
    second.ensure();
    expect(
      (database.sqlite.prepare('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL').get() as { n: number })
        .n,
    ).toBe(5);
    expect((database.sqlite.prepare('SELECT count(*) AS n FROM chunk_embeddings').get() as { n: number }).n).toBe(0);
    expect((database.sqlite.prepare('SELECT count(*) AS n FROM chunk_codes').get() as { n: number }).n).toBe(0);
  });
});
