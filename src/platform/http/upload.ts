import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** enough for magic numbers, the docx/xlsx entry names and a UTF-8 check of text files */
const HEAD_BYTES = 4096;

export interface SavedUpload {
  path: string;
  size: number;
  /** the first bytes, for a magic-number check */
  head: Buffer;
}

/**
 * Streams an upload to `path` without holding it in memory. Past `maxBytes` the partial file is
 * removed and `tooLarge` is thrown (the caller answers 413); any other failure, or `signal`
 * aborting, removes it too.
 */
export async function saveUpload(stream: Readable & { truncated?: boolean }, path: string, maxBytes: number, signal?: AbortSignal): Promise<SavedUpload> {
  let size = 0;
  const headParts: Buffer[] = [];
  let headLength = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new UploadTooLargeError(maxBytes));
      if (headLength < HEAD_BYTES) {
        headParts.push(chunk.subarray(0, HEAD_BYTES - headLength));
        headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(stream, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal });
    // @fastify/multipart stops at its fileSize limit and marks the stream truncated
    if (stream.truncated) throw new UploadTooLargeError(maxBytes);
    return { path, size, head: Buffer.concat(headParts) };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}

export class UploadTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`file: larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    this.name = 'UploadTooLargeError';
  }
}
