import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, jwtVerify } from 'jose';

/**
 * A local Web Push service on 127.0.0.1 (node:http) standing in for a browser vendor's: it keeps
 * every request, answers each with the status set for its endpoint (201 by default), and can read
 * what was sent: the VAPID JWT verified against the server's public key (RFC 8292) and the
 * aes128gcm body decrypted with the subscription's own keys (RFC 8291).
 */

export interface PushRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A subscription as a browser would make it: its own ECDH key pair and auth secret. */
export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** decrypts a message sent to this subscription */
  decrypt(body: Buffer): string;
}

export interface TestPushService {
  origin: string;
  requests: PushRequest[];
  /** the status answered for requests to `path` from now on */
  answer(path: string, status: number): void;
  /** a new subscription whose endpoint is `path` on this service */
  subscription(path: string): TestSubscription;
  /** resolves once `count` requests have arrived */
  waitFor(count: number): Promise<PushRequest[]>;
  close(): Promise<void>;
}

export async function startPushService(): Promise<TestPushService> {
  const requests: PushRequest[] = [];
  const statuses = new Map<string, number>();
  let waiters: Array<{ count: number; resolve: (r: PushRequest[]) => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses.get(path) ?? 201).end();
      waiters = waiters.filter((w) => {
        if (requests.length < w.count) return true;
        w.resolve(requests.slice());
        return false;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    answer: (path, status) => statuses.set(path, status),
    subscription: (path) => newSubscription(`${origin}${path}`),
    waitFor: (count) =>
      requests.length >= count
        ? Promise.resolve(requests.slice())
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function newSubscription(endpoint: string): TestSubscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  const uaPublic = ecdh.getPublicKey();
  return {
    endpoint,
    keys: { p256dh: uaPublic.toString('base64url'), auth: authSecret.toString('base64url') },
    decrypt(body) {
      // header: salt (16) | record size (4) | key id length (1) | key id (the sender's public key)
      const salt = body.subarray(0, 16);
      const idLength = body[20]!;
      const asPublic = body.subarray(21, 21 + idLength);
      const record = body.subarray(21 + idLength);
      const secret = ecdh.computeSecret(asPublic);
      const info = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
      const ikm = Buffer.from(hkdfSync('sha256', secret, authSecret, info, 32));
      const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
      const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
      decipher.setAuthTag(record.subarray(record.length - 16));
      const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
      // the last record ends with the delimiter 0x02 and zero padding
      let end = plain.length;
      while (end > 0 && plain[end - 1] === 0) end--;
      if (plain[end - 1] !== 2) throw new Error('not the last record (no 0x02 delimiter)');
      return plain.subarray(0, end - 1).toString('utf8');
    },
  };
}

/**
 * Verifies a request's `Authorization: vapid t=<JWT>, k=<public key>`: `k` is the server's
 * public key, the JWT is signed (ES256) by it, its audience is the endpoint's origin, it has not
 * expired and names a subject. Returns the claims.
 */
export async function verifyVapid(headers: http.IncomingHttpHeaders, publicKey: string, audience: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(headers.authorization ?? ''));
  if (!match) throw new Error(`no VAPID authorization: ${headers.authorization}`);
  if (match[2] !== publicKey) throw new Error('k is not the server public key');
  const point = Buffer.from(publicKey, 'base64url');
  const key = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    'ES256',
  );
  const { payload } = await jwtVerify(match[1]!, key, { audience, algorithms: ['ES256'] });
  if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) throw new Error('no subject');
  return payload;
}
