import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddingAnswer, fakeEmbedding } from './fake-llm-embeddings.js';
import { type StreamFrames, split, streamedTextReply, wholeTextReply } from './fake-llm-replies.js';
import { type FakeToolReply, streamedToolReply, wholeToolReply } from './fake-llm-tools.js';

export type { FakeToolCall, FakeToolReply } from './fake-llm-tools.js';

/**
 * Fake LLM provider servers on 127.0.0.1 (random port), speaking each provider's wire format well
 * enough for the real SDKs:
 *
 * | provider  | endpoints                                                                      | `baseURL` to configure                         |
 * |-----------|--------------------------------------------------------------------------------|------------------------------------------------|
 * | openai    | POST /v1/chat/completions (JSON, SSE `data:` ... `data: [DONE]`), POST /v1/embeddings | `${url}/v1`  -> OPENAI_BASE_URL / openai `baseURL` |
 * | anthropic | POST /v1/messages (JSON, SSE message_start ... message_stop)                    | `${url}`     -> ANTHROPIC_BASE_URL / anthropic `baseURL` |
 * | google    | POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse,    | `${url}`     -> GEMINI_BASE_URL / google `httpOptions.baseUrl` |
 * |           | :batchEmbedContents (what models.embedContent uses), :embedContent              |                                                |
 * | ollama    | POST /api/chat (JSON, NDJSON when `stream` is not false), POST /api/embed        | `${url}`     -> OLLAMA_HOST / ollama `host`     |
 *
 * `url` is always `http://127.0.0.1:<port>` with no trailing slash.
 *
 * Streams split the reply into `chunks` pieces. `pauseAfterChunks: n` makes a stream stop after n
 * pieces until `release()` (await `waitForPause()` to know it got there), so a test can abort or
 * disconnect mid-stream deterministically; `disconnects` records every response whose connection
 * closed before the response was complete: the client went away (abort, timeout, `break`), or
 * `dropAfterChunks` cut it (await `waitForDisconnect()`).
 * A streamed tool-call reply counts each of its frames as a piece for these.
 *
 * Embedding vectors are rounded to float32, so the JSON-float and base64 encodings (the openai SDK
 * asks for base64 unless told otherwise) decode to the same numbers.
 */

export type FakeProviderName = 'openai' | 'anthropic' | 'google' | 'ollama';

export interface RecordedRequest {
  method: string;
  /** path without the query string, e.g. /v1/chat/completions */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** the parsed JSON body (undefined when empty or not JSON) */
  body: any;
  /** the request asked for a streamed answer */
  stream: boolean;
  /** 'chat', 'embed' or 'unknown' (404) */
  kind: 'chat' | 'embed' | 'unknown';
}

export interface FakeDisconnect {
  path: string;
  /** reply pieces written before the client went away (0 for a request never answered) */
  chunksSent: number;
}

export interface FakeBehaviour {
  /**
   * the answer text, or a function of the request (default 'Hello from the fake <provider>.');
   * `{ text?, toolCalls }` answers with tool calls in the provider's wire format (fake-llm-tools.ts)
   */
  reply: string | FakeToolReply | ((req: RecordedRequest) => string | FakeToolReply);
  /** pieces a streamed reply is split into (default 3; fewer if the reply is shorter) */
  chunks: number;
  /** the next `failTimes` requests get `failStatus` (counts down; default 0) */
  failTimes: number;
  /** default 500 */
  failStatus: number;
  /** sent as `retry-after-ms` on failures (the openai and anthropic SDKs honour it) */
  retryAfterMs?: number;
  /** accept requests and never answer them (not even headers) */
  hang: boolean;
  /** real-time delay between streamed pieces (default 0) */
  delayBetweenChunksMs: number;
  /** stop the stream after this many pieces until release() */
  pauseAfterChunks?: number;
  /** destroy the connection after this many pieces */
  dropAfterChunks?: number;
  /** the embedding of one text (default: deterministic pseudo-random unit vector) */
  embed: (text: string, dimensions: number) => number[];
  /** vector size when the request names none (openai `dimensions`, google `outputDimensionality`, ollama `dimensions`); default 1536 */
  embeddingDimensions: number;
  /** keep each request in `requests` (default true; the chat bench sends tens of thousands) */
  recordRequests: boolean;
}

export interface FakeLlm {
  provider: FakeProviderName;
  /** http://127.0.0.1:<port> */
  url: string;
  /** what to give the SDK / the app's *_BASE_URL or OLLAMA_HOST (see the table above) */
  baseURL: string;
  requests: RecordedRequest[];
  disconnects: FakeDisconnect[];
  setBehaviour(changes: Partial<FakeBehaviour>): void;
  /** resolves once a stream is paused at `pauseAfterChunks` */
  waitForPause(): Promise<void>;
  /** lets every paused stream go on */
  release(): void;
  /** resolves once `count` responses were abandoned by the client */
  waitForDisconnect(count?: number): Promise<FakeDisconnect>;
  close(): Promise<void>;
}

export async function startFakeLlm(provider: FakeProviderName, initial: Partial<FakeBehaviour> = {}): Promise<FakeLlm> {
  const behaviour: FakeBehaviour = {
    reply: `Hello from the fake ${provider}.`,
    chunks: 3,
    failTimes: 0,
    failStatus: 500,
    hang: false,
    delayBetweenChunksMs: 0,
    embed: fakeEmbedding,
    embeddingDimensions: 1536,
    recordRequests: true,
    ...initial,
  };
  const requests: RecordedRequest[] = [];
  const disconnects: FakeDisconnect[] = [];
  const disconnectWaiters: Array<() => void> = [];
  let gate = deferred();
  let pausedCount = 0;
  const pauseWaiters: Array<() => void> = [];

  const server = http.createServer((req, res) => {
    const chunksSent = { n: 0 };
    let path = '/';
    res.on('close', () => {
      if (res.writableFinished) return;
      disconnects.push({ path, chunksSent: chunksSent.n });
      for (const wake of disconnectWaiters.splice(0)) wake();
    });
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      path = url.pathname;
      const raw = Buffer.concat(parts).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const route = routeOf(provider, path, body);
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        stream: route.stream,
        kind: route.kind,
      };
      if (behaviour.recordRequests) requests.push(recorded);
      const ctx: Ctx = {
        provider,
        req: recorded,
        res,
        behaviour,
        chunksSent,
        model: route.model ?? (typeof body?.model === 'string' ? body.model : 'fake-model'),
        pause: async () => {
          pausedCount++;
          for (const wake of pauseWaiters.splice(0)) wake();
          await gate.promise;
        },
      };
      void handle(ctx, route).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    provider,
    url,
    baseURL: provider === 'openai' ? `${url}/v1` : url,
    requests,
    disconnects,
    setBehaviour(changes) {
      Object.assign(behaviour, changes);
    },
    waitForPause() {
      if (pausedCount > 0) return Promise.resolve();
      return new Promise((resolve) => pauseWaiters.push(resolve));
    },
    release() {
      pausedCount = 0;
      gate.resolve();
      gate = deferred();
    },
    async waitForDisconnect(count = 1) {
      while (disconnects.length < count) await new Promise<void>((resolve) => disconnectWaiters.push(resolve));
      return disconnects[count - 1]!;
    },
    async close() {
      gate.resolve();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------

interface Route {
  kind: 'chat' | 'embed' | 'unknown';
  stream: boolean;
  /** google: the model from the path */
  model?: string;
  /** google: which embed endpoint */
  op?: string;
}

interface Ctx {
  provider: FakeProviderName;
  req: RecordedRequest;
  res: http.ServerResponse;
  behaviour: FakeBehaviour;
  chunksSent: { n: number };
  model: string;
  pause: () => Promise<void>;
}

function routeOf(provider: FakeProviderName, path: string, body: any): Route {
  switch (provider) {
    case 'openai':
      if (path === '/v1/chat/completions') return { kind: 'chat', stream: body?.stream === true };
      if (path === '/v1/embeddings') return { kind: 'embed', stream: false };
      break;
    case 'anthropic':
      if (path === '/v1/messages') return { kind: 'chat', stream: body?.stream === true };
      break;
    case 'google': {
      const m = /^\/v1[a-z0-9]*\/(?:models|tunedModels)\/([^/:]+):(\w+)$/.exec(path);
      if (!m) break;
      const [, model, op] = m;
      if (op === 'generateContent') return { kind: 'chat', stream: false, model };
      if (op === 'streamGenerateContent') return { kind: 'chat', stream: true, model };
      if (op === 'batchEmbedContents' || op === 'embedContent') return { kind: 'embed', stream: false, model, op };
      break;
    }
    case 'ollama':
      // the real server streams unless told `stream: false`
      if (path === '/api/chat') return { kind: 'chat', stream: body?.stream !== false };
      if (path === '/api/embed') return { kind: 'embed', stream: false };
      break;
  }
  return { kind: 'unknown', stream: false };
}

async function handle(ctx: Ctx, route: Route): Promise<void> {
  const { behaviour, res } = ctx;
  if (route.kind === 'unknown') return sendError(ctx, 404, `no such endpoint in the fake ${ctx.provider}`);
  if (behaviour.hang) return; // never answer
  if (behaviour.failTimes > 0) {
    behaviour.failTimes--;
    return sendError(ctx, behaviour.failStatus, 'fake failure');
  }
  if (route.kind === 'embed')
    return sendJson(
      res,
      200,
      embeddingAnswer({
        provider: ctx.provider,
        model: ctx.model,
        body: ctx.req.body,
        op: route.op,
        behaviour: ctx.behaviour,
      }),
    );
  const text = typeof behaviour.reply === 'function' ? behaviour.reply(ctx.req) : behaviour.reply;
  if (typeof text !== 'string') {
    if (!route.stream) return sendJson(res, 200, wholeToolReply(ctx.provider, ctx.model, text));
    const { contentType, frames } = streamedToolReply(ctx.provider, ctx.model, text);
    return streamReply(ctx, { contentType, head: [], pieces: frames, tail: [] });
  }
  if (!route.stream) return sendJson(res, 200, wholeTextReply(ctx.provider, ctx.model, ctx.req.body, text));
  await streamReply(ctx, streamedTextReply(ctx.provider, ctx.model, ctx.req.body, split(text, behaviour.chunks)));
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...headers });
  res.end(json);
}

function sendError(ctx: Ctx, status: number, message: string): void {
  const headers: Record<string, string> = {};
  if (ctx.behaviour.retryAfterMs !== undefined) headers['retry-after-ms'] = String(ctx.behaviour.retryAfterMs);
  let body: unknown;
  switch (ctx.provider) {
    case 'openai':
      body = {
        error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', param: null, code: null },
      };
      break;
    case 'anthropic':
      body = { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } };
      break;
    case 'google':
      body = { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } };
      break;
    case 'ollama':
      body = { error: message };
      break;
  }
  sendJson(ctx.res, status, body, headers);
}

/**
 * Writes a streamed reply, text or tool calls: each frame is flushed before the next step, so a
 * pause (`pauseAfterChunks`) or a drop (`dropAfterChunks`) happens after what was sent.
 */
async function streamReply(ctx: Ctx, f: StreamFrames): Promise<void> {
  const { res, behaviour } = ctx;
  const write = (data: string) => new Promise<void>((resolve) => res.write(data, () => resolve()));
  res.writeHead(200, { 'content-type': f.contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  for (const frame of f.head) await write(frame);
  for (let i = 0; i <= f.pieces.length; i++) {
    if (behaviour.dropAfterChunks === i) {
      res.destroy();
      return;
    }
    if (behaviour.pauseAfterChunks === i) await ctx.pause();
    if (res.destroyed) return;
    if (i === f.pieces.length) break;
    if (i > 0 && behaviour.delayBetweenChunksMs > 0) await sleep(behaviour.delayBetweenChunksMs);
    if (res.destroyed) return;
    await write(f.pieces[i]!);
    ctx.chunksSent.n++;
  }
  for (const frame of f.tail) await write(frame);
  res.end();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The app's environment that points the fake's provider at it, with `key` as its API key (ollama takes none). */
export function providerEnv(f: FakeLlm, key: string): Record<string, string> {
  switch (f.provider) {
    case 'openai':
      return { OPENAI_API_KEY: key, OPENAI_BASE_URL: f.baseURL };
    case 'anthropic':
      return { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: f.baseURL };
    case 'google':
      return { GEMINI_API_KEY: key, GEMINI_BASE_URL: f.baseURL };
    case 'ollama':
      return { OLLAMA_HOST: f.baseURL };
  }
}
