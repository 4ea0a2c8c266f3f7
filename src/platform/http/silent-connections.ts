import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Connections that opened but never sent a request (a browser's speculative preconnect, a client
 * that stalled before its headers) are not "idle" to Node: closeIdleConnections() leaves them, so
 * server.close() and with it app.close() waited until connectionTimeout (60 s) ended them. At close
 * they are ended at once; a connection that ever carried a request is closed as soon as it is
 * idle (below).
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
    // Keep-alive connections: Node closes the idle ones once, at close(); one whose request was
    // in flight then became idle and stayed open, so shutdown waited out its 10 s grace and the
    // process was killed before the database closed. Answers from now on say Connection: close,
    // and connections that become idle are closed as they do.
    app.server.prependListener('request', (_req, res) => {
      res.shouldKeepAlive = false;
    });
    const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    app.server.once('close', () => clearInterval(sweep));
    done();
  });
}

/** while closing, how often connections that have become idle are closed */
const IDLE_SWEEP_MS = 50;
