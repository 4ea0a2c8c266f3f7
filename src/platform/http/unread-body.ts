import type { FastifyInstance } from 'fastify';

/**
 * A request answered before its body was read to the end (an upload refused with 507 or 413 as
 * it arrived) has the rest of its body read and dropped once the answer has gone, as Node does
 * with a body no handler touched. Node skips that for a body already piped somewhere: the
 * multipart parser, whose file stream the refused upload had destroyed, then stopped reading, so
 * the connection was neither free for the client's next request nor idle for a graceful stop to
 * close, until the 10 s keep-alive timeout ended it (issue 31: stops took 8.5-9.3 s after a
 * refused upload, once past the 10 s grace). The body-progress guard (connection-guards.ts)
 * still ends a client that stops sending.
 */
export function dropUnreadBodies(app: FastifyInstance): void {
  // callback style: runs after every answer, so no promise per request
  app.addHook('onResponse', (request, _reply, done) => {
    const raw = request.raw;
    if (!raw.complete && !raw.destroyed) {
      raw.unpipe();
      raw.resume();
    }
    done();
  });
}
