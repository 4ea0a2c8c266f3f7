/**
 * Turns texts into vectors, in batches. `id` names provider, model and dimensions: vectors of
 * different ids are never compared, and a change of id re-embeds the knowledge base.
 */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** one vector per input, same order; throws on failure (the caller falls back to keywords) */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export const EMBEDDING_BATCH_SIZE = 64;
