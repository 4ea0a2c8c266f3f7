import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../src/providers/embeddings/index.js';
import {
  createLlmProvider,
  type ProviderError,
  type ChatRequest,
  type LlmProvider,
  type ProviderName,
} from '../../src/providers/llm/index.js';
import { startFakeLlm, type FakeBehaviour, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.js';
import { fakeEmbedding } from '../helpers/fake-llm-embeddings.js';
import { providerError } from '../helpers/llm-errors.js';

const KEY = 'sk-test-SECRET-key-0123456789';
const REPLY = 'The sky is green in this test, friend.';

const HISTORY: ChatRequest['messages'] = [
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
  { role: 'user', content: 'second question' },
];
const SYSTEM = 'You are a test bot.\n\nReference: the sky is green.';

interface Case {
  name: ProviderName;
  model: string;
  /** checks the fake's recorded request for `request()` below */
  check(req: RecordedRequest, stream: boolean): void;
}

/** temperature 0.3, max_tokens 321 and `stream` as the openai and anthropic bodies carry them */
function expectSampling(req: RecordedRequest, stream: boolean): void {
  expect(req.body.temperature).toBe(0.3);
  expect(req.body.max_tokens).toBe(321);
  expect(req.body.stream).toBe(stream);
}

const cases: Case[] = [
  {
    name: 'openai',
    model: 'gpt-test',
    check(req, stream) {
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(req.body.model).toBe('gpt-test');
      expect(req.body.messages).toEqual([{ role: 'system', content: SYSTEM }, ...HISTORY]);
      expectSampling(req, stream);
    },
  },
  {
    name: 'anthropic',
    model: 'claude-test',
    check(req, stream) {
      expect(req.path).toBe('/v1/messages');
      // @anthropic-ai/sdk 1.x sends the API key as a bearer token (0.x sent x-api-key)
      expect(req.headers.authorization ?? req.headers['x-api-key']).toBe(
        req.headers.authorization ? `Bearer ${KEY}` : KEY,
      );
      expect(req.headers['anthropic-version']).toBeTruthy();
      expect(req.body.model).toBe('claude-test');
      expect(req.body.system).toBe(SYSTEM);
      expect(req.body.messages).toEqual(HISTORY);
      expectSampling(req, stream);
    },
  },
  {
    name: 'google',
    model: 'gemini-test',
    check(req, stream) {
      expect(req.path).toBe(`/v1beta/models/gemini-test:${stream ? 'streamGenerateContent' : 'generateContent'}`);
      if (stream) expect(req.query.alt).toBe('sse');
      expect(req.headers['x-goog-api-key']).toBe(KEY);
      expect(req.body.systemInstruction).toEqual({ parts: [{ text: SYSTEM }] });
      expect(req.body.contents).toEqual([
        { role: 'user', parts: [{ text: 'first question' }] },
        { role: 'model', parts: [{ text: 'first answer' }] },
        { role: 'user', parts: [{ text: 'second question' }] },
      ]);
      expect(req.body.generationConfig).toMatchObject({ temperature: 0.3, maxOutputTokens: 321 });
    },
  },
  {
    name: 'ollama',
    model: 'llama-test',
    check(req, stream) {
      expect(req.path).toBe('/api/chat');
      expect(req.headers.authorization).toBeUndefined();
      expect(req.body.model).toBe('llama-test');
      expect(req.body.messages).toEqual([{ role: 'system', content: SYSTEM }, ...HISTORY]);
      expect(req.body.options).toEqual({ temperature: 0.3, num_predict: 321 });
      expect(req.body.stream).toBe(stream);
    },
  },
];

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

function expectSafeMessage(err: ProviderError, fake?: FakeLlm): void {
  expect(err.message).toContain(err.provider);
  expect(err.message).not.toContain(KEY);
  expect(err.message).not.toContain('127.0.0.1');
  if (fake) expect(err.message).not.toContain(fake.url);
  expect(err.message).not.toMatch(/\n\s+at /);
}

describe.each(cases)('$name adapter against its fake server', ({ name, model, check }) => {
  let fake: FakeLlm;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  function provider(timeoutMs = 5_000, baseURL = fake.baseURL): LlmProvider {
    return createLlmProvider(name, { apiKey: name === 'ollama' ? undefined : KEY, baseURL, host: baseURL, timeoutMs });
  }

  function request(extra: Partial<ChatRequest> = {}): ChatRequest {
    return { model, system: SYSTEM, messages: HISTORY, temperature: 0.3, maxTokens: 321, ...extra };
  }

  async function start(behaviour: Partial<FakeBehaviour> = {}): Promise<FakeLlm> {
    fake = await startFakeLlm(name, { reply: REPLY, chunks: 4, ...behaviour });
    return fake;
  }

  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  }, 30_000);

  afterEach(async () => {
    await fake?.close();
    fake = undefined as unknown as FakeLlm;
    // give a stray rejection the chance to surface before checking
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  }, 60_000);

  it('complete: returns the reply and sends system, history, model, temperature and max tokens', async () => {
    await start();
    const p = provider();
    expect(p.name).toBe(name);
    await expect(p.complete(request())).resolves.toBe(REPLY);
    expect(fake.requests).toHaveLength(1);
    check(fake.requests[0]!, false);
  });

  it('stream: yields the reply in several deltas and sends the same request with streaming on', async () => {
    await start();
    const deltas = await collect(provider().stream(request()));
    expect(deltas.join('')).toBe(REPLY);
    expect(deltas.length).toBe(4);
    expect(fake.requests).toHaveLength(1);
    check(fake.requests[0]!, true);
  });

  it('stream: nothing is sent until the stream is iterated', async () => {
    await start();
    provider().stream(request());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.requests).toHaveLength(0);
  });

  /** a fake failing once with `failStatus`: complete gives the reply on the second request */
  async function expectOneRetry(failStatus: number): Promise<void> {
    await start({ failTimes: 1, failStatus });
    await expect(provider().complete(request())).resolves.toBe(REPLY);
    expect(fake.requests).toHaveLength(2);
  }

  it('a 500 once then success: one retry gives the reply (complete and stream)', async () => {
    await expectOneRetry(500);

    fake.setBehaviour({ failTimes: 1 });
    expect((await collect(provider().stream(request()))).join('')).toBe(REPLY);
    expect(fake.requests).toHaveLength(4);
  });

  it('a 500 twice: ProviderError http 500 naming the provider, without the key, after exactly two attempts', async () => {
    await start({ failTimes: 2, failStatus: 500 });
    const err = await providerError(provider().complete(request()));
    expect(err.provider).toBe(name);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(500);
    expectSafeMessage(err, fake);
    expect(fake.requests).toHaveLength(2);

    fake.setBehaviour({ failTimes: 2 });
    const streamErr = await providerError(collect(provider().stream(request())));
    expect(streamErr).toMatchObject({ kind: 'http', status: 500 });
    expect(fake.requests).toHaveLength(4);
  });

  it('a 429 once is retried; a 429 twice gives ProviderError http 429', async () => {
    await expectOneRetry(429);

    fake.setBehaviour({ failTimes: 2 });
    const err = await providerError(provider().complete(request()));
    expect(err).toMatchObject({ provider: name, kind: 'http', status: 429 });
    expectSafeMessage(err, fake);
    expect(fake.requests).toHaveLength(4);
  });

  it('a 400 is not retried', async () => {
    await start({ failTimes: 1, failStatus: 400 });
    const err = await providerError(provider().complete(request()));
    expect(err).toMatchObject({ kind: 'http', status: 400 });
    expect(fake.requests).toHaveLength(1);
  });

  it('a server that never answers: ProviderError timeout (complete and stream)', async () => {
    await start({ hang: true });
    const started = Date.now();
    const err = await providerError(provider(300).complete(request()));
    expect(err.kind).toBe('timeout');
    expectSafeMessage(err, fake);
    const streamErr = await providerError(collect(provider(300).stream(request())));
    expect(streamErr.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    // the adapter hung up on the request it gave up on
    await fake.waitForDisconnect(2);
  });

  it('a stream that stalls after its first delta: ProviderError timeout, no retry after text', async () => {
    await start({ pauseAfterChunks: 1 });
    const deltas: string[] = [];
    // 2 s, not less: the first delta must arrive within it on a loaded machine too (a 300 ms
    // budget missed it once, beside another CPU-heavy process); the stall after it is endless
    const err = await providerError(
      (async () => {
        for await (const delta of provider(2_000).stream(request())) deltas.push(delta);
      })(),
    );
    expect(err.kind).toBe('timeout');
    expect(deltas).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    const gone = await fake.waitForDisconnect();
    expect(gone.chunksSent).toBe(1);
    fake.release();
  });

  it('a connection dropped mid-stream: ProviderError, no retry after text', async () => {
    await start({ dropAfterChunks: 2 });
    const deltas: string[] = [];
    const err = await providerError(
      (async () => {
        for await (const delta of provider().stream(request())) deltas.push(delta);
      })(),
    );
    expect(err.kind).toBe('unreachable');
    expect(deltas.join('')).toBe(REPLY.slice(0, deltas.join('').length));
    expect(deltas).toHaveLength(2);
    expect(fake.requests).toHaveLength(1);
  });

  it('a refused connection: ProviderError unreachable (complete and stream)', async () => {
    const port = await closedPort();
    const base = name === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
    const err = await providerError(provider(5_000, base).complete(request()));
    expect(err.kind).toBe('unreachable');
    expectSafeMessage(err);
    const streamErr = await providerError(collect(provider(5_000, base).stream(request())));
    expect(streamErr.kind).toBe('unreachable');
  });

  it('aborting the signal mid-stream ends the stream with ProviderError aborted and closes the upstream connection', async () => {
    await start({ pauseAfterChunks: 1 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const done = (async () => {
      for await (const delta of provider().stream(request({ signal: controller.signal }))) {
        deltas.push(delta);
        if (deltas.length === 1) {
          await fake.waitForPause();
          controller.abort();
        }
      }
    })();
    const err = await providerError(done);
    expect(err.kind).toBe('aborted');
    expect(deltas).toHaveLength(1);
    const gone = await fake.waitForDisconnect();
    expect(gone.chunksSent).toBe(1);
    fake.release();
  });

  it('aborting while the consumer waits for the next delta ends the wait at once', async () => {
    await start({ pauseAfterChunks: 1 });
    const controller = new AbortController();
    const iterator = provider()
      .stream(request({ signal: controller.signal }))
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBeTruthy();
    await fake.waitForPause();
    const pending = iterator.next();
    controller.abort();
    const err = await providerError(pending);
    expect(err.kind).toBe('aborted');
    await fake.waitForDisconnect();
    fake.release();
  });

  it('breaking out of the stream early closes the upstream connection quietly', async () => {
    await start({ pauseAfterChunks: 2 });
    const deltas: string[] = [];
    for await (const delta of provider().stream(request())) {
      deltas.push(delta);
      if (deltas.length === 1) break;
    }
    expect(deltas).toHaveLength(1);
    const gone = await fake.waitForDisconnect();
    expect(gone.chunksSent).toBeLessThanOrEqual(2);
    fake.release();
  });

  it('an already aborted signal: ProviderError aborted, nothing sent', async () => {
    await start();
    const controller = new AbortController();
    controller.abort();
    expect((await providerError(provider().complete(request({ signal: controller.signal })))).kind).toBe('aborted');
    expect((await providerError(collect(provider().stream(request({ signal: controller.signal }))))).kind).toBe(
      'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.requests).toHaveLength(0);
  });

  it('a reply that is not JSON: ProviderError invalid-response', async () => {
    // a 200 with a body no SDK can read
    const badFake = await startRawServer('this is not json');
    try {
      const base = name === 'openai' ? `${badFake.url}/v1` : badFake.url;
      const err = await providerError(provider(5_000, base).complete(request()));
      expect(err.kind).toBe('invalid-response');
      expectSafeMessage(err);
    } finally {
      await badFake.close();
    }
  });
});

/** A server answering every request with 200 and `body` as application/json. */
async function startRawServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('fake servers: embeddings through the real SDKs', () => {
  let fake: FakeLlm | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  }, 60_000);

  it('openai: float and base64 encodings give the same deterministic vectors', async () => {
    fake = await startFakeLlm('openai');
    const client = new OpenAI({ apiKey: KEY, baseURL: fake.baseURL, maxRetries: 0 });
    const viaBase64 = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    const viaFloat = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      encoding_format: 'float',
    });
    expect(fake.requests[0]!.body.encoding_format).toBe('base64');
    expect(viaBase64.data[0]!.embedding).toHaveLength(1536);
    expect(viaBase64.data.map((d) => d.embedding)).toEqual(viaFloat.data.map((d) => d.embedding));
    expect(viaFloat.data[1]!.embedding).toEqual(fakeEmbedding('b', 1536));
    const small = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a', dimensions: 8 });
    expect(small.data[0]!.embedding).toHaveLength(8);
  });

  it('our openai embedder: asks for base64 and decodes it to the float32 vectors; a server that answers numbers works too', async () => {
    fake = await startFakeLlm('openai');
    const embedder = createEmbedder({
      embeddings: 'openai',
      providers: { openai: { apiKey: KEY, baseURL: fake.baseURL } },
    } as never)!;
    const vectors = await embedder.embed(['a', 'b']);
    expect(fake.requests[0]!.body.encoding_format).toBe('base64');
    expect(vectors.map((v) => v.constructor.name)).toEqual(['Float32Array', 'Float32Array']);
    expect(vectors.map((v) => Array.from(v))).toEqual([fakeEmbedding('a', 1536), fakeEmbedding('b', 1536)]);

    // an OpenAI-compatible server that ignores encoding_format and sends JSON numbers
    const numbers = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const data = ['a', 'b'].map((text, index) => ({
          object: 'embedding',
          index,
          embedding: fakeEmbedding(text, 1536),
        }));
        res.end(
          JSON.stringify({
            object: 'list',
            data: data.reverse(),
            model: 'm',
            usage: { prompt_tokens: 2, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => numbers.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = numbers.address() as AddressInfo;
      const plain = createEmbedder({
        embeddings: 'openai',
        providers: { openai: { apiKey: KEY, baseURL: `http://127.0.0.1:${port}/v1` } },
      } as never)!;
      expect((await plain.embed(['a', 'b'])).map((v) => Array.from(v))).toEqual([
        fakeEmbedding('a', 1536),
        fakeEmbedding('b', 1536),
      ]);
    } finally {
      numbers.closeAllConnections();
      await new Promise<void>((resolve) => numbers.close(() => resolve()));
    }
  });

  it('google: models.embedContent goes to :batchEmbedContents and honours outputDimensionality', async () => {
    fake = await startFakeLlm('google');
    const client = new GoogleGenAI({ vertexai: false, apiKey: KEY, httpOptions: { baseUrl: fake.baseURL } });
    const res = await client.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['a', 'b'],
      config: { outputDimensionality: 16 },
    });
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(res.embeddings).toHaveLength(2);
    expect(res.embeddings![0]!.values).toHaveLength(16);
  });

  it.each(['google', 'ollama'] as const)(
    'our %s embedder: one vector per input, of its dimensions, in one request',
    async (name) => {
      fake = await startFakeLlm(name, { embeddingDimensions: 768 });
      const providers =
        name === 'google' ? { google: { apiKey: KEY, baseURL: fake.baseURL } } : { ollama: { host: fake.baseURL } };
      const embedder = createEmbedder({ embeddings: name, providers } as never)!;
      const vectors = await embedder.embed(['a', 'b', 'c']);
      expect(vectors.map((v) => v.length)).toEqual([768, 768, 768]);
      expect(fake.requests).toHaveLength(1);
    },
  );

  it('ollama: embed returns one vector per input', async () => {
    fake = await startFakeLlm('ollama', { embeddingDimensions: 768 });
    const res = await new Ollama({ host: fake.baseURL }).embed({ model: 'nomic-embed-text', input: ['a', 'b', 'c'] });
    expect(res.embeddings).toHaveLength(3);
    expect(res.embeddings[0]).toHaveLength(768);
  });
});
