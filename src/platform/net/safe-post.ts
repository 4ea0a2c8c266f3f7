import { requestWithoutPool } from './fetch-exchange.js';
import { assertPublicHttpUrl, createSafeLookup } from './safe-fetch.js';
import { UnsafeUrlError } from './types.js';

export interface PostResult {
  /** the receiver's HTTP status, or null when it could not be reached */
  status: number | null;
  /** why it was not a 2xx (null on success) */
  error: string | null;
  /** the target is not allowed (an internal address): retrying cannot help */
  unsafe?: boolean;
}

/** how much of a receiver's answer is read (and kept, shortened, as last_error) */
const MAX_RESPONSE_BYTES = 4096;

/**
 * POSTs one request (a webhook delivery, a Web Push message) under the address policy of website
 * sources: the URL checked again, and the connect-time DNS check of safe-fetch (every address the
 * name resolves to must be public unless allowPrivate). Redirects are not followed; the answer is
 * read up to 4 KB. Never throws: every outcome is a PostResult.
 */
export function safePost(
  rawUrl: string,
  body: string | Buffer,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<PostResult> {
  let url: URL;
  try {
    url = assertPublicHttpUrl(rawUrl, opts.allowPrivate);
  } catch (err) {
    return Promise.resolve({ status: null, error: (err as Error).message, unsafe: true });
  }
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    // no pooling: every attempt resolves (and checks) the host again
    const req = requestWithoutPool(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: createSafeLookup(opts.allowPrivate),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) res.destroy();
        });
        const finish = () => {
          if (status >= 200 && status < 300) return done({ status, error: null });
          const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
          done({ status, error: `HTTP ${status}${text ? `: ${text}` : ''}` });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: null, error: `No answer from ${url.host} within ${Math.round(opts.timeoutMs / 1000)} s` });
    }, opts.timeoutMs);
    const onAbort = () => {
      req.destroy();
      done({ status: null, error: 'cancelled' });
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      if (err instanceof UnsafeUrlError) return done({ status: null, error: err.message, unsafe: true });
      done({ status: null, error: networkMessage(err, url.host) });
    });
    req.end(body);
  });
}

function networkMessage(err: Error, host: string): string {
  const code = String((err as { code?: unknown }).code ?? '');
  if (code === 'ECONNREFUSED') return `${host} refused the connection`;
  if (code === 'ECONNRESET') return `${host} closed the connection`;
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return `Could not resolve ${host}`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host} is unreachable`;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `The TLS certificate of ${host} is not valid`;
  return `Sending to ${host} failed${code ? ` (${code})` : `: ${err.message}`}`;
}
