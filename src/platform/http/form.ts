import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from './errors.js';

/**
 * The text fields of a form body: multipart/form-data (what the spec promises) or, as a
 * convenience, a JSON object of strings. Files are refused here; file routes read their own
 * streams. A field over `maxFieldBytes` is 413.
 */
export async function readFormFields(request: FastifyRequest, maxFieldBytes: number): Promise<Record<string, string>> {
  if (request.isMultipart()) {
    const fields: Record<string, string> = Object.create(null);
    for await (const part of request.parts({ limits: { fieldSize: maxFieldBytes, fields: 20, files: 0, parts: 21 } })) {
      if (part.type === 'file') {
        part.file.resume();
        throw badRequest(`${part.fieldname}: a file is not expected here`);
      }
      if ((part as { valueTruncated?: boolean }).valueTruncated) {
        throw new ApiError(413, `${part.fieldname}: too large (at most ${maxFieldBytes} bytes)`);
      }
      fields[part.fieldname] = String(part.value ?? '');
    }
    return fields;
  }
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  }
  throw badRequest('body: expected multipart/form-data fields');
}
