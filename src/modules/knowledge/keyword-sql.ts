// The keyword search statement, shared by the repo (main thread) and the worker task that runs it
// off the main thread (knowledge/keyword-searcher.ts). Kept free of imports: the worker bundle
// takes it in.

/**
 * The agent's own token AND the words (migration 0010): FTS5 intersects the doclists, so other
 * agents' chunks cost nothing; bm25 weighs the words only (the agent column has weight 0).
 * Rows are [chunk id, score], lower score first.
 */
export const KEYWORD_SEARCH_SQL = `
  SELECT rowid AS id, bm25(chunks_fts, 1.0, 0.0) AS score
    FROM chunks_fts
   WHERE chunks_fts MATCH ?
   ORDER BY score
   LIMIT ?`;

/** The MATCH expression for one agent's chunks: `match` is an ftsQuery() result (quoted words). */
export function agentMatch(chatbotId: string, match: string): string {
  const agentToken = `a${Buffer.from(chatbotId, 'utf8').toString('hex')}`;
  return `agent : "${agentToken}" AND (${match})`;
}
