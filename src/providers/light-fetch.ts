import { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { lazy } from '../platform/lazy.js';

// loaded with the SDK that uses it, at the first provider call (platform/lazy.ts); undici is
// CommonJS, which the bundle's chunk hands over as its default export only
const undici = lazy(async () => {
  const module = await import('undici');
  return (module as unknown as { default?: typeof module }).default ?? module;
});

/** Redirects followed, as fetch follows them (a provider API rarely answers with one). */
const MAX_REDIRECTIONS = 5;
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

let dispatcher: Agent | undefined;

/**
 * The `fetch` every provider SDK is given (OpenAI, Anthropic, Google and Ollama; chat and
 * embeddings): undici's `request()` answered as a fetch Response. Node's own fetch keeps about
 * 20 KB of every call alive past the young generation (4,000 calls to a loopback server: 80 MB
 * promoted, against 9.6 MB this way), and with two calls a chat turn those bytes were most of what
 * brought a major collection every ~100 turns, whose marking is the slowest turns' time. A JSON
 * answer is read whole here (the SDK parses it whole anyway); any other body, a stream of events,
 * is handed on as it arrives. A request this does not take as it is (a Request object, a body
 * other than text or bytes) goes to fetch.
 */
export const lightFetch: typeof fetch = async (input, init = {}) => {
  const body = init.body;
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (input instanceof Request || !plainBody) return fetch(input, init);
  const { Agent, interceptors, request } = await undici();
  dispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS })) as Agent;
  const answer = await request(input instanceof URL ? input.href : input, {
    dispatcher,
    method: (init.method ?? 'GET') as 'GET',
    headers: Object.fromEntries(new Headers(init.headers)),
    body: body ?? undefined,
    signal: init.signal ?? undefined,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const status = answer.statusCode;
  if (NULL_BODY_STATUS.has(status)) {
    await answer.body.dump();
    return new Response(null, { status, headers });
  }
  const whole = /^application\/(?:[\w.+-]+\+)?json\b/i.test(headers.get('content-type') ?? '');
  const content = whole ? await answer.body.arrayBuffer() : (Readable.toWeb(answer.body) as ReadableStream<Uint8Array>);
  return new Response(content, { status, headers });
};
