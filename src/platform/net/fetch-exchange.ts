import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { FetchFailedError, type OutgoingRequest } from './types.js';

// One hop of safeFetch (safe-fetch.ts): its deadline and cancellation, the GET itself, the answer's
// body decoded and capped, and network errors as messages an owner can act on.

const USER_AGENT = 'ChatAgentBot/1.0';
const ACCEPT = 'text/html, application/xhtml+xml, application/xml;q=0.9, text/xml;q=0.9, text/plain;q=0.8';

export class Exchange {
  readonly controller = new AbortController();
  stopped: 'timeout' | 'aborted' | undefined;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort = () => this.stop('aborted');

  constructor(
    timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (callerSignal?.aborted) this.stop('aborted');
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  stop(reason: 'timeout' | 'aborted'): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.controller.abort();
  }

  end(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.controller.abort();
  }
}

/**
 * One http(s) request to `url` with no connection pooling: every request opens its own connection,
 * so its own lookup (and the address check in it) runs.
 */
export function requestWithoutPool(
  url: URL,
  options: Pick<http.RequestOptions, 'method' | 'headers' | 'lookup' | 'signal'>,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return (url.protocol === 'https:' ? https : http).request(
    {
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      agent: false,
      ...options,
    },
    onResponse,
  );
}

export function send(
  url: URL,
  lookup: LookupFunction,
  signal: AbortSignal,
  outgoing?: OutgoingRequest,
): Promise<http.IncomingMessage> {
  const body = outgoing?.body;
  return new Promise((resolve, reject) => {
    const req = requestWithoutPool(
      url,
      {
        method: outgoing?.method ?? 'GET',
        // nothing identifying, no cookies, no Authorization: nothing to leak across redirects
        headers: {
          'user-agent': USER_AGENT,
          accept: ACCEPT,
          'accept-encoding': 'identity',
          ...outgoing?.headers,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        lookup,
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export function tooLarge(maxBytes: number): FetchFailedError {
  return new FetchFailedError(`The page is too large (more than ${maxBytes} bytes).`);
}

/** passes chunks through, failing once more than `max` bytes went by */
function byteCap(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(tooLarge(max));
      else callback(null, chunk);
    },
  });
}

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new FetchFailedError(`The page uses an unsupported content encoding (${encoding}).`);
  }
}

/** the body, decoded, capped at maxBytes both on the wire and decoded */
export async function readBody(res: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  let decoder: Transform | null;
  try {
    decoder = decoderFor(
      String(res.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase(),
    );
  } catch (err) {
    res.destroy();
    throw err;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const collect = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > maxBytes) return callback(tooLarge(maxBytes));
      chunks.push(chunk);
      callback();
    },
  });
  const stages = decoder ? [byteCap(maxBytes), decoder, collect] : [collect];
  await pipeline([res, ...stages], { signal });
  return Buffer.concat(chunks, total);
}

const NETWORK_MESSAGES: Record<string, string> = {
  ENOTFOUND: 'Could not resolve {host}.',
  EAI_AGAIN: 'Could not resolve {host}.',
  EAI_NODATA: 'Could not resolve {host}.',
  EAI_NONAME: 'Could not resolve {host}.',
  ECONNREFUSED: '{host} refused the connection.',
  ECONNRESET: '{host} closed the connection.',
  EHOSTUNREACH: '{host} is unreachable.',
  ENETUNREACH: '{host} is unreachable.',
  ETIMEDOUT: 'Connecting to {host} timed out.',
};

export function asFetchFailure(err: unknown, host: string): FetchFailedError {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const known = NETWORK_MESSAGES[code];
  if (known) return new FetchFailedError(known.replace('{host}', host));
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return new FetchFailedError(`The TLS certificate of ${host} is not valid.`);
  if (code.startsWith('HPE_')) return new FetchFailedError(`${host} sent an invalid HTTP response.`);
  return new FetchFailedError(`Fetching from ${host} failed${code ? ` (${code})` : ''}.`);
}
