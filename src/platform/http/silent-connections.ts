import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Connections that opened but never sent a request (a browser's speculative preconnect, a client
 * that stalled before its headers) are not "idle" to Node: closeIdleConnections() leaves them, so
 * server.close() and with it app.close() waited until connectionTimeout (60 s) ended them. At close
 * they are ended at once; a connection that ever carried a request is left to Fastify (idle ones
 * closed, busy ones after their answer).
 */
export function endSilentConnectionsOnClose(app: FastifyInstance): void {
  const silent = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    silent.add(socket);
    socket.once('close', () => silent.delete(socket));
  });
  app.server.on('request', (req: { socket: Socket }) => silent.delete(req.socket));
  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of silent) socket.destroy();
    silent.clear();
    done();
  });
}
