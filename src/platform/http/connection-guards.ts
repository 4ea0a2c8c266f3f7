import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Two limits Node's own timeouts leave open: one address opening hundreds of connections, and a
 * body trickled in (a byte every few seconds keeps connectionTimeout from firing, and a whole
 * request may take REQUEST_TIMEOUT_MS, 15 minutes, so that slow uploads can finish).
 */
export interface ConnectionGuardOptions {
  /** open connections one client address may hold; 0 = no cap (behind a trusted proxy, which holds them all) */
  maxPerAddress: number;
  /** loopback clients (a proxy on the same host, the healthcheck, a benchmark) are not capped */
  exemptLoopback: boolean;
  /** a request body must bring at least `minBodyBytes` every `bodyWindowMs` until it is complete */
  minBodyBytes: number;
  bodyWindowMs: number;
}

/**
 * 64 connections is far above what a browser opens to one host (6) even for a whole office behind
 * one address; 16 KiB per 30 s is a 0.5 KB/s line, which any real client exceeds, while a
 * slowloris at a byte per second cannot hold a connection past one window.
 */
export const DEFAULT_CONNECTION_GUARDS: ConnectionGuardOptions = {
  maxPerAddress: 64,
  exemptLoopback: true,
  minBodyBytes: 16 * 1024,
  bodyWindowMs: 30_000,
};

export function guardConnections(app: FastifyInstance, options: ConnectionGuardOptions): void {
  if (options.maxPerAddress > 0) capConnectionsPerAddress(app, options.maxPerAddress, options.exemptLoopback);
  requireBodyProgress(app, options.minBodyBytes, options.bodyWindowMs);
}

function capConnectionsPerAddress(app: FastifyInstance, max: number, exemptLoopback: boolean): void {
  const open = new Map<string, number>();
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (exemptLoopback && isLoopback(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

interface BodyWatch {
  socket: Socket;
  request: { complete: boolean };
  /** bytes the socket had read when the current window began */
  bytesAtStart: number;
  windowStart: number;
}

/**
 * Requests still receiving a body are checked a few times per window (one timer for all, not one
 * per request); a connection whose body brought less than `minBytes` in the last window is closed.
 */
function requireBodyProgress(app: FastifyInstance, minBytes: number, windowMs: number): void {
  const watched = new Set<BodyWatch>();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const now = Date.now();
    for (const watch of watched) {
      if (watch.request.complete || watch.socket.destroyed) {
        watched.delete(watch);
        continue;
      }
      if (now - watch.windowStart < windowMs) continue;
      if (watch.socket.bytesRead - watch.bytesAtStart < minBytes) {
        app.log.warn({ remoteAddress: watch.socket.remoteAddress }, 'request body too slow: connection closed');
        watched.delete(watch);
        watch.socket.destroy();
        continue;
      }
      watch.bytesAtStart = watch.socket.bytesRead;
      watch.windowStart = now;
    }
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    // (an injected request has no real socket: nothing to watch)
    if (hasBody && !raw.complete && typeof raw.socket?.bytesRead === 'number') {
      watched.add({ socket: raw.socket, request: raw, bytesAtStart: raw.socket.bytesRead, windowStart: Date.now() });
      timer ??= setInterval(check, Math.max(10, Math.floor(windowMs / 4))).unref();
    }
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    if (timer) clearInterval(timer);
    watched.clear();
    done();
  });
}
