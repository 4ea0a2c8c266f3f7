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
 * aborting, removes it too. `accept`, when given, sees each piece's size first and may refuse it
 * with the error to throw (a storage quota).
 */
export async function saveUpload(
  stream: Readable & { truncated?: boolean },
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
  accept?: (bytes: number) => Error | null,
): Promise<SavedUpload> {
  let size = 0;
  const headParts: Buffer[] = [];
  let headLength = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new UploadTooLargeError(maxBytes));
      const refused = accept?.(chunk.length);
      if (refused) return done(refused);
      if (headLength < HEAD_BYTES) {
        headParts.push(chunk.subarray(0, HEAD_BYTES - headLength));
        headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
      }
      done(null, chunk);
    },
  });
  try {
    const piped = pipeline(stream, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal });
    // On abort, Node 24's pipeline waits for every stream to close after destroying it, and a
    // multipart file stream whose body was cut short never closes: the abort is the answer.
    await (signal ? Promise.race([piped, rejectOnAbort(signal, piped)]) : piped);
    // @fastify/multipart stops at its fileSize limit and marks the stream truncated
    if (stream.truncated) throw new UploadTooLargeError(maxBytes);
    return { path, size, head: Buffer.concat(headParts) };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}

/** Rejects with the signal's reason when it aborts (at once if it has); settles quietly once `settled` does. */
function rejectOnAbort(signal: AbortSignal, settled: Promise<unknown>): Promise<never> {
  return new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    settled.catch(() => undefined).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class UploadTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`file: larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    this.name = 'UploadTooLargeError';
  }
}
