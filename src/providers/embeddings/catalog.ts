import { GoogleEmbedder, OllamaEmbedder, OpenAiEmbedder } from './embedders.js';
import type { Embedder } from './types.js';

/**
 * What the embedders are made from: the providers' connections as config reads them (the same
 * shape as Config['providers'], written here so config can import this catalog without a circle).
 */
export interface EmbedderConnections {
  openai: { apiKey?: string; baseURL?: string };
  google: { apiKey?: string; baseURL?: string };
  ollama: { host?: string };
}

/** The embedders EMBEDDINGS may name (besides `none`), by name; config and the status schemas derive their lists from it. */
export const EMBEDDERS = {
  openai: (providers: EmbedderConnections): Embedder => new OpenAiEmbedder(providers.openai),
  google: (providers: EmbedderConnections): Embedder => new GoogleEmbedder(providers.google),
  ollama: (providers: EmbedderConnections): Embedder =>
    new OllamaEmbedder(providers.ollama.host ?? 'http://127.0.0.1:11434'),
} as const;

export type EmbeddingsName = keyof typeof EMBEDDERS;
export const EMBEDDING_PROVIDERS = Object.keys(EMBEDDERS) as EmbeddingsName[];
/** EMBEDDINGS' values: an embedder, or none (keyword search only). */
export const EMBEDDINGS_CHOICES = [...EMBEDDING_PROVIDERS, 'none'] as unknown as [
  EmbeddingsName | 'none',
  ...Array<EmbeddingsName | 'none'>,
];
