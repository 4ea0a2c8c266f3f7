import type { Config } from '../../config/index.js';
import { EMBEDDERS } from './catalog.js';
import type { Embedder } from './types.js';

export type { Embedder } from './types.js';
export { EMBEDDING_BATCH_SIZE } from './types.js';
export { EMBEDDING_PROVIDERS, EMBEDDINGS_CHOICES, type EmbeddingsName } from './catalog.js';

/** The embedder EMBEDDINGS selects, or null for keyword-only retrieval. */
export function createEmbedder(config: Pick<Config, 'embeddings' | 'providers'>): Embedder | null {
  return config.embeddings === 'none' ? null : EMBEDDERS[config.embeddings](config.providers);
}
