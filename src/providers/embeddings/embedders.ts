/** The embedders, one class per provider; catalog.ts names them, index.ts makes the configured one. */
import type { GoogleGenAI } from '@google/genai';
import type { Ollama } from 'ollama';
import type OpenAI from 'openai';
import { lazy } from '../../platform/lazy.js';
import { lightFetch } from '../light-fetch.js';
import type { Embedder } from './types.js';

const TIMEOUT_MS = 30_000;

// SDKs and clients are made at the first embed(), not at start (see platform/lazy.ts)
const openAiSdk = lazy(() => import('openai'));
const googleSdk = lazy(() => import('@google/genai'));
const ollamaSdk = lazy(() => import('ollama'));

export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  private client: OpenAI | undefined;
  constructor(
    private readonly settings: { apiKey?: string; baseURL?: string },
    private readonly model = 'text-embedding-3-small',
    readonly dimensions = 1536,
  ) {
    this.id = `openai:${model}:${dimensions}`;
  }
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { OpenAI } = await openAiSdk();
    this.client ??= new OpenAI({
      apiKey: this.settings.apiKey,
      baseURL: this.settings.baseURL,
      timeout: TIMEOUT_MS,
      maxRetries: 1,
      fetch: lightFetch,
    });
    // base64 (what the SDK asks for by default too), decoded here straight into a Float32Array:
    // left to the SDK it becomes a number[] first. A server that ignores the format sends numbers.
    const res = await this.client.embeddings.create(
      { model: this.model, input: texts, dimensions: this.dimensions, encoding_format: 'base64' },
      { signal },
    );
    return [...res.data]
      .sort((a, b) => a.index - b.index)
      .map((d) => checkDims(decodeEmbedding(d.embedding as unknown), this.dimensions));
  }
}

export class GoogleEmbedder implements Embedder {
  readonly id: string;
  private client: GoogleGenAI | undefined;
  constructor(
    private readonly settings: { apiKey?: string; baseURL?: string },
    private readonly model = 'gemini-embedding-001',
    readonly dimensions = 768,
  ) {
    this.id = `google:${model}:${dimensions}`;
  }
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { GoogleGenAI } = await googleSdk();
    this.client ??= new GoogleGenAI({
      // explicit, as in the chat provider: GOOGLE_GENAI_USE_VERTEXAI must not switch the backend
      vertexai: false,
      apiKey: this.settings.apiKey,
      httpOptions: {
        baseUrl: this.settings.baseURL,
        timeout: TIMEOUT_MS,
        fetch: lightFetch,
        retryOptions: { attempts: 2, initialDelay: 0.5 },
      },
    });
    const res = await this.client.models.embedContent({
      model: this.model,
      contents: texts,
      config: { outputDimensionality: this.dimensions, abortSignal: signal },
    });
    const vectors = res.embeddings ?? [];
    if (vectors.length !== texts.length)
      throw new Error(`google embeddings: expected ${texts.length} vectors, got ${vectors.length}`);
    return vectors.map((e) => checkDims(normalise(Float32Array.from(e.values ?? [])), this.dimensions));
  }
}

export class OllamaEmbedder implements Embedder {
  readonly id: string;
  private client: Ollama | undefined;
  constructor(
    private readonly host: string,
    private readonly model = 'nomic-embed-text',
    readonly dimensions = 768,
  ) {
    this.id = `ollama:${model}:${dimensions}`;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    const { Ollama } = await ollamaSdk();
    this.client ??= new Ollama({ host: this.host, fetch: lightFetch });
    const res = await this.client.embed({ model: this.model, input: texts });
    return res.embeddings.map((v) => checkDims(Float32Array.from(v), this.dimensions));
  }
}

/** An OpenAI embedding as float32: base64 of little-endian float32s, or (servers that ignore encoding_format) numbers. */
function decodeEmbedding(embedding: unknown): Float32Array {
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[]);
  if (typeof embedding !== 'string') throw new Error('embedding is neither base64 nor a list of numbers');
  const bytes = Buffer.from(embedding, 'base64');
  if (bytes.byteLength % 4 !== 0) throw new Error('base64 embedding is not a whole number of float32 values');
  // a copy: the decoded bytes may sit at an offset of a shared pool that a Float32Array cannot view
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

function checkDims(v: Float32Array, dims: number): Float32Array {
  if (v.length !== dims) throw new Error(`embedding has ${v.length} dimensions, expected ${dims}`);
  return v;
}

/** Truncated outputs of gemini-embedding are not unit length; cosine does not mind, but keep them tidy. */
function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const n = Math.sqrt(sum) || 1;
  return v.map((x) => x / n);
}
