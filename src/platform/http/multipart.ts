import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { cutShort, multipartClientError, watchClosingDelimiter } from './form.js';

/** The multipart plugin's limits for one request (busboy's names). */
export interface MultipartLimits {
  fileSize: number;
  files: number;
  fields: number;
  parts: number;
}

/** The file part a route receives: its name as sent, its bytes as they arrive, and `signal`. */
export interface ReceivedFile {
  filename: string;
  stream: Readable & { truncated?: boolean };
  /** aborts (with a 400) when the body ends before its closing delimiter: stop reading then */
  signal: AbortSignal;
}

/**
 * Reads a multipart/form-data body for its one file field `field`, handing that part to
 * `receive` while it streams (it is never held in memory); other files and a second `field` are
 * drained and skipped, text fields ignored. Resolves to what `receive` returned, or undefined when
 * the body held no such file. Parser errors become the client's 4xx (multipartClientError).
 */
export async function receiveFile<T>(
  request: FastifyRequest,
  field: string,
  limits: MultipartLimits,
  receive: (file: ReceivedFile) => Promise<T>,
): Promise<T | undefined> {
  let received: { value: T } | undefined;
  // A body that ends inside the file part would leave the file stream open for ever (the
  // parser reports the cut only to its iterator, which waits for the stream, and the stream
  // ignores destroy()): when the whole body has arrived without the closing delimiter, the
  // upload is aborted with a 400.
  const closing = watchClosingDelimiter(request);
  const cut = new AbortController();
  const onBodyEnd = () => {
    if (!closing.seen() && !cut.signal.aborted) cut.abort(cutShort());
  };
  request.raw.once('end', onBodyEnd);
  try {
    const parts = request.parts({ limits })[Symbol.asyncIterator]();
    for (;;) {
      let next;
      try {
        next = await parts.next();
      } catch (err) {
        throw multipartClientError(err);
      }
      if (next.done) break;
      const part = next.value;
      if (part.type !== 'file') continue;
      if (part.fieldname !== field || received) {
        part.file.resume();
        continue;
      }
      if (request.raw.readableEnded) onBodyEnd();
      received = { value: await receive({ filename: part.filename, stream: part.file, signal: cut.signal }) };
    }
  } finally {
    request.raw.off('end', onBodyEnd);
    closing.stop();
  }
  return received?.value;
}
