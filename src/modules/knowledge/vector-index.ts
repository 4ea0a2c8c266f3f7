import type Database from 'better-sqlite3';

/**
 * The sqlite-vec table of chunk vectors, partitioned by agent (STACK-NOTES: 2.6 ms for a
 * partitioned KNN against 28 ms with a plain column). Its dimension depends on the configured
 * embedder, so it is created here at start rather than in a migration; the embedder id is kept in
 * `vector_index_meta`. When the embedder changes, the table is rebuilt and every chunk is marked
 * for re-embedding (chunks.embedded_with = NULL), which the backfill then does in batches.
 *
 * Rowids are chunks.id, so a trigger removes a chunk's vector whenever the chunk goes, including
 * the cascades from deleting a source or an agent.
 */
export class VectorIndex {
  constructor(
    private readonly sqlite: Database.Database,
    readonly embedderId: string,
    readonly dimensions: number,
  ) {}

  ensure(): void {
    const tx = this.sqlite.transaction(() => {
      this.sqlite.exec('CREATE TABLE IF NOT EXISTS vector_index_meta (id INTEGER PRIMARY KEY CHECK (id = 1), embedder_id TEXT NOT NULL, dimensions INTEGER NOT NULL)');
      const meta = this.sqlite.prepare('SELECT embedder_id, dimensions FROM vector_index_meta WHERE id = 1').get() as
        | { embedder_id: string; dimensions: number }
        | undefined;
      const tableExists = !!this.sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'").get();
      if (meta && meta.embedder_id === this.embedderId && tableExists) return;
      this.sqlite.exec('DROP TRIGGER IF EXISTS chunks_vectors_delete');
      this.sqlite.exec('DROP TABLE IF EXISTS chunk_vectors');
      this.sqlite.exec(
        `CREATE VIRTUAL TABLE chunk_vectors USING vec0(chatbot_id text partition key, embedding float[${this.dimensions}] distance_metric=cosine)`,
      );
      this.sqlite.exec('CREATE TRIGGER chunks_vectors_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunk_vectors WHERE rowid = old.id; END');
      this.sqlite.exec('UPDATE chunks SET embedded_with = NULL WHERE embedded_with IS NOT NULL');
      this.sqlite
        .prepare('INSERT INTO vector_index_meta (id, embedder_id, dimensions) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET embedder_id = excluded.embedder_id, dimensions = excluded.dimensions')
        .run(this.embedderId, this.dimensions);
    });
    tx();
  }

  /** Stores vectors for chunks that still exist and marks them embedded; one transaction. */
  store(items: Array<{ chunkId: number; chatbotId: string; vector: Float32Array }>): void {
    const stillThere = this.sqlite.prepare('SELECT 1 FROM chunks WHERE id = ?');
    const del = this.sqlite.prepare('DELETE FROM chunk_vectors WHERE rowid = ?');
    const insert = this.sqlite.prepare('INSERT INTO chunk_vectors (rowid, chatbot_id, embedding) VALUES (?, ?, ?)');
    const mark = this.sqlite.prepare('UPDATE chunks SET embedded_with = ? WHERE id = ?');
    this.sqlite.transaction(() => {
      for (const item of items) {
        // the source may have been deleted while its embeddings were being computed
        if (!stillThere.get(item.chunkId)) continue;
        del.run(BigInt(item.chunkId));
        insert.run(BigInt(item.chunkId), item.chatbotId, item.vector);
        mark.run(this.embedderId, item.chunkId);
      }
    })();
  }

  /** Nearest chunks of one agent by cosine distance. */
  search(chatbotId: string, vector: Float32Array, k: number): Array<{ chunkId: number; distance: number }> {
    const rows = this.sqlite
      .prepare('SELECT rowid, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? AND chatbot_id = ?')
      .all(vector, k, chatbotId) as Array<{ rowid: number | bigint; distance: number }>;
    return rows.map((r) => ({ chunkId: Number(r.rowid), distance: r.distance }));
  }
}
