import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { RESTORE_ADVICE, type DatabaseCondition } from '../db/condition.js';
import { ApiError } from './errors.js';

interface FieldError {
  field: string;
  message: string;
}

/**
 * Maps every error to `{"detail": ...}` (docs/API.md "Errors"): validation -> 400 with a detail naming
 * the field plus an `errors` array; Fastify's own 4xx (bad JSON, body too large, wrong media type)
 * keep their status with a plain message; a full disk is 507 and a damaged database 503, each with
 * a sentence saying what happened (nothing was saved); everything else is a 500 that shows no
 * internals and is logged with the request id.
 */
export function registerErrorHandling(app: FastifyInstance, condition?: DatabaseCondition): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      // no body at all (none sent, or an empty one) on a route that takes one: `{}` is not assumed,
      // even where every field is optional (a PUT of nothing is a client mistake)
      if (error.validationContext === 'body' && request.body === undefined) {
        return reply.code(400).send({
          detail: 'body: required (a JSON object)',
          errors: [{ field: 'body', message: 'required (a JSON object)' }],
        });
      }
      const errors: FieldError[] = error.validation.map((v) => ({
        field: fieldName(error.validationContext, v.instancePath),
        message: v.message ?? 'invalid value',
      }));
      const first = errors[0] ?? { field: 'body', message: 'invalid' };
      return reply.code(400).send({ detail: `${first.field}: ${first.message}`, errors });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: clientMessage(error) });
    }
    const failure = serverFailure(error, condition);
    request.log.error({ err: error }, failure.status === 507 ? 'request refused: the disk is full' : 'request failed');
    return reply.code(failure.status).send({ detail: failure.detail });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}

/**
 * What a server-side failure tells the client: a full disk is 507 and a damaged database 503,
 * each with a sentence (SQLite rolled the write back: nothing half-done is kept, and reads go on
 * working); anything else a 500 showing no internals. Also used by streams, whose errors are
 * events rather than responses.
 */
export function serverFailure(error: unknown, condition?: DatabaseCondition): { status: number; detail: string } {
  switch (condition?.notice(error)) {
    case 'full':
      return { status: 507, detail: DISK_FULL_DETAIL };
    case 'corrupt':
      return { status: 503, detail: `The database is damaged, so this could not be done. ${RESTORE_ADVICE}` };
    default:
      return { status: 500, detail: 'Internal server error' };
  }
}

const DISK_FULL_DETAIL =
  "The server's disk is full, so nothing was saved. Reading still works; try again once space has been freed.";

/** Headers for replies the router makes before any hook runs (helmet's included). */
const BARE_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * Fastify's `frameworkErrors` option: URLs the router refuses before routing (bad percent-encoding,
 * a path parameter over maxParamLength) answer like every other error, `{"detail": ...}`.
 */
export function frameworkErrorHandler(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  const detail = status === 414 ? 'url: a path segment is too long' : 'url: not a valid URL';
  reply.code(status).headers(BARE_SECURITY_HEADERS).send({ detail });
}

/**
 * Fastify's `clientErrorHandler` option: a request Node's HTTP parser refuses before Fastify sees
 * it (a malformed request line or header, headers over 16 KB, a request not received within
 * requestTimeout/headersTimeout) answers `{"detail": ...}` like every other error, where Fastify's
 * default wrote its own `{"error", "message", "statusCode"}` shape. The connection is then closed:
 * after a framing error nothing else on it can be trusted.
 */
export function clientErrorHandler(
  this: { log: { debug(obj: object, msg: string): void } },
  error: NodeJS.ErrnoException,
  socket: Duplex,
): void {
  // a connection reset, or a socket already gone: nobody is left to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request: not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers: too large']
        : [400, 'Bad Request', 'request: not a valid HTTP request'];
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ detail });
    const headers = Object.entries(BARE_SECURITY_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function fieldName(context: string | undefined, instancePath: string): string {
  const path = instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (path) return path;
  return context === 'querystring' ? 'query' : (context ?? 'body');
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'body: not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body: too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'body: unsupported content type';
    default:
      // Fastify's 4xx messages describe the request, never server internals.
      return error.message;
  }
}
