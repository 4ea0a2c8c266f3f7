import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from './errors.js';

/**
 * The text fields of a form body: multipart/form-data (what the API promises) or, as a
 * convenience, a JSON object of strings. Files are refused here; file routes read their own
 * streams. A field over `maxFieldBytes` is 413.
 */
export async function readFormFields(request: FastifyRequest, maxFieldBytes: number): Promise<Record<string, string>> {
  if (request.isMultipart()) {
    const fields: Record<string, string> = Object.create(null);
    const closing = watchClosingDelimiter(request);
    try {
      // files: 1, not 0, so a file part reaches the check below (400 naming the field) instead of
      // busboy's 413 "reach files limit"
      for await (const part of request.parts({
        limits: { fieldSize: maxFieldBytes, fields: 20, files: 1, parts: 21 },
      })) {
        if (part.type === 'file') {
          part.file.resume();
          throw badRequest(`${part.fieldname}: a file is not expected here`);
        }
        if ((part as { valueTruncated?: boolean }).valueTruncated) {
          throw new ApiError(413, `${part.fieldname}: too large (at most ${maxFieldBytes} bytes)`);
        }
        fields[part.fieldname] = String(part.value ?? '');
      }
    } catch (err) {
      throw multipartClientError(err);
    } finally {
      closing.stop();
    }
    // @fastify/multipart ends the parts quietly when the body stops before its closing delimiter;
    // such a body is cut short, so what it holds is not stored
    if (!closing.seen()) throw cutShort();
    return fields;
  }
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  }
  throw badRequest('body: expected multipart/form-data fields');
}

/**
 * An error met while reading multipart parts, as the client's error: the multipart plugin's own
 * (limits, __proto__ names) carry a 4xx status; busboy's (no boundary in the content type, broken
 * framing) carry none and are the client's fault too.
 */
export function multipartClientError(err: unknown): unknown {
  const status = (err as { statusCode?: number }).statusCode;
  if (err instanceof ApiError || (status !== undefined && status >= 400 && status < 500)) return err;
  return badRequest('body: malformed multipart/form-data');
}

export const cutShort = () => badRequest('body: multipart/form-data ends before its closing boundary');

/** The boundary parameter of a multipart content type, quoted or not. */
function multipartBoundary(contentType: string | undefined): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return m?.[1] ?? m?.[2];
}

/**
 * Watches the raw body for the multipart close delimiter (CRLF "--" boundary "--", or the same
 * without the CRLF at the very start of an empty form). Inside a part the sequence CRLF "--"
 * boundary cannot occur (it would end the part), so finding it means the form was complete.
 * Attached before the parser starts reading, so it sees every chunk.
 */
export function watchClosingDelimiter(request: FastifyRequest): { seen(): boolean; stop(): void } {
  const boundary = multipartBoundary(request.headers['content-type']);
  if (!boundary) return { seen: () => false, stop: () => {} };
  const delimiter = Buffer.from(`\r\n--${boundary}--`);
  const atStart = Buffer.from(`--${boundary}--`);
  let found = false;
  let first = true;
  let tail = Buffer.alloc(0);
  const onData = (chunk: Buffer | string) => {
    if (found) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const buf = tail.length ? Buffer.concat([tail, bytes]) : bytes;
    if ((first && buf.subarray(0, atStart.length).equals(atStart)) || buf.includes(delimiter)) found = true;
    if (first && buf.length < atStart.length) {
      tail = Buffer.from(buf); // too short to decide about the start yet
      return;
    }
    first = false;
    tail = Buffer.from(buf.subarray(Math.max(0, buf.length - delimiter.length + 1)));
  };
  request.raw.on('data', onData);
  return { seen: () => found, stop: () => request.raw.off('data', onData) };
}
