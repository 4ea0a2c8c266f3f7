import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addVary, ifNoneMatch, negotiateEncoding, type Coding } from './encoding.js';

/**
 * A built file served from memory (the widget scripts, the admin UI), with the compressed variants
 * the build wrote next to it (scripts/precompress.mjs: `<file>.br`, `<file>.gz`).
 */

export interface Representation {
  body: Buffer;
  /** strong validator; each coding of a file has its own, so caches never mix them */
  etag: string;
}

export interface StaticBody extends Representation {
  /** the precompressed variants found on disk (none when the build did not write them) */
  encoded: Partial<Record<Coding, Representation>>;
}

const VARIANTS: readonly { coding: Coding; suffix: string; ext: string; decompress: (b: Buffer) => Buffer }[] = [
  { coding: 'br', suffix: '-br', ext: '.br', decompress: brotliDecompressSync },
  { coding: 'gzip', suffix: '-gz', ext: '.gz', decompress: gunzipSync },
];

/** The identity ETag with a per-coding suffix inside the quotes: `"abc"` → `"abc-br"`. */
export function codingEtag(etag: string, suffix: string): string {
  return `${etag.slice(0, -1)}${suffix}"`;
}

/**
 * Reads a file and the variants next to it. A variant is kept only when it decompresses to exactly
 * the file's bytes: a build stopped between writing a file and compressing it leaves the old
 * variant behind, and sending that would serve the previous release to some clients only.
 */
export function loadStaticBody(file: string): StaticBody {
  const body = readFileSync(file);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const encoded: StaticBody['encoded'] = {};
  for (const v of VARIANTS) {
    let compressed: Buffer;
    try {
      compressed = readFileSync(file + v.ext);
    } catch {
      continue; // not precompressed (too small, or built without it)
    }
    try {
      if (compressed.length >= body.length || !v.decompress(compressed).equals(body)) continue;
    } catch {
      continue; // corrupt
    }
    encoded[v.coding] = { body: compressed, etag: codingEtag(etag, v.suffix) };
  }
  return { body, etag, encoded };
}

/**
 * Sends the representation the request's Accept-Encoding asks for, with its ETag, or 304 when
 * If-None-Match names that ETag. `Vary: Accept-Encoding` goes on every answer, 304s included, so a
 * shared cache keys on it. The caller sets the other headers (type, caching).
 */
export function sendStatic(request: FastifyRequest, reply: FastifyReply, file: StaticBody): FastifyReply {
  const coding = negotiateEncoding(request.headers['accept-encoding'], Object.keys(file.encoded) as Coding[]);
  const chosen = coding === 'identity' ? file : file.encoded[coding]!;
  addVary(reply, 'Accept-Encoding');
  reply.header('etag', chosen.etag);
  if (ifNoneMatch(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
  if (coding !== 'identity') reply.header('content-encoding', coding);
  return reply.send(chosen.body);
}
