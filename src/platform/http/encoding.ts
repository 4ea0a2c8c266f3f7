import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';

/**
 * Content-coding negotiation (RFC 9110 §12.5.3) for the static files and pages the server sends
 * compressed: the widget scripts, the admin UI and the share page. The codings the server can send
 * besides identity are brotli and gzip.
 */

export type Coding = 'br' | 'gzip';
export type ChosenCoding = Coding | 'identity';

/** The server's preference when the client's q-values tie: smaller first. */
const PREFERENCE: readonly ChosenCoding[] = ['br', 'gzip', 'identity'];

/** A qvalue: 0 to 1 with at most three decimals (RFC 9110 §12.4.2). */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Accept-Encoding as coding → q (lower-case codings; `x-gzip` is gzip). An entry whose q is not a
 * valid qvalue is left out, as if it was not sent; a repeated coding keeps its first q.
 */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawCoding = '', ...params] = part.split(';');
    let coding = rawCoding.trim().toLowerCase();
    if (!coding) continue;
    if (coding === 'x-gzip') coding = 'gzip';
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (QVALUE.test(value)) q = Number(value);
      else valid = false;
    }
    if (valid && !accepted.has(coding)) accepted.set(coding, q);
  }
  return accepted;
}

/**
 * The coding to send, among `available` (and identity), for a request's Accept-Encoding:
 * - no header, or an empty one: identity;
 * - a coding's q is its own entry's, else that of `*`, else 0 (not acceptable);
 * - identity's q is its own entry's, else that of `*`, else it is acceptable below every listed
 *   coding (so `gzip;q=0.5` still means gzip, and `br;q=0, gzip;q=0` means identity);
 * - the highest q above 0 wins; on a tie, br before gzip before identity.
 * When the client refuses everything, identity too (`*;q=0`), it still gets identity: RFC 9110
 * allows that or a 406, and bytes it may be able to use beat an error it surely cannot.
 */
export function negotiateEncoding(header: string | undefined, available: readonly Coding[]): ChosenCoding {
  if (!header) return 'identity';
  const accepted = parseAcceptEncoding(header);
  const star = accepted.get('*');
  const qOf = (coding: ChosenCoding): number => {
    const own = accepted.get(coding) ?? star;
    if (own !== undefined) return own;
    return coding === 'identity' ? Number.MIN_VALUE : 0;
  };
  let best: ChosenCoding = 'identity';
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    if (coding !== 'identity' && !available.includes(coding)) continue;
    const q = qOf(coding);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/**
 * Whether If-None-Match names `etag` (or is `*`). Weak comparison, as RFC 9110 §13.1.2 asks for
 * this header: `W/"x"` matches `"x"` (a proxy that recompresses may weaken the tags it passes on).
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = opaque(etag);
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || opaque(tag) === wanted;
  });
}

/** Adds `field` to the response's Vary header, keeping what other code already put there. */
export function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean);
  if (fields.includes('*') || fields.some((f) => f.toLowerCase() === field.toLowerCase())) return;
  reply.header('vary', [...fields, field].join(', '));
}

/** A generated body below this size is sent as is: it fits one packet compressed or not. */
const DYNAMIC_MIN_BYTES = 1024;

/**
 * Compresses a body generated for this request when it is worth it (at least `minBytes`, and the
 * result smaller). Brotli at quality 5 and gzip at level 6 take tens of microseconds for a few KB,
 * fine to do synchronously; the top levels are for files compressed once at build time.
 */
export function compressDynamic(
  body: Buffer,
  acceptEncoding: string | undefined,
  minBytes = DYNAMIC_MIN_BYTES,
): { body: Buffer; coding: ChosenCoding } {
  if (body.length < minBytes) return { body, coding: 'identity' };
  const coding = negotiateEncoding(acceptEncoding, ['br', 'gzip']);
  if (coding === 'identity') return { body, coding };
  const out =
    coding === 'br'
      ? brotliCompressSync(body, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 5,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        })
      : gzipSync(body, { level: 6 });
  return out.length < body.length ? { body: out, coding } : { body, coding: 'identity' };
}
