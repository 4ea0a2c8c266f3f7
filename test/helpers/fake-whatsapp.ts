import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake WhatsApp Cloud API (Meta's Graph API) on 127.0.0.1, for WHATSAPP_API_ROOT:
 * `GET /{version}/{phone_number_id}?fields=...` answers the number's display_phone_number and
 * verified_name; `POST /{version}/{phone_number_id}/messages` records a text message and answers a
 * message id. Both want `Authorization: Bearer <the number's token>`: another token, a revoked one
 * or an unknown number answer Graph's errors (401 code 190; 400 code 100). `failSends` makes the
 * next sends fail with a Graph error. `deliver` plays Meta's side of the webhook: it POSTs a body,
 * signed with the app secret as Meta signs it (X-Hub-Signature-256), to the agent's URL.
 */

export type FakeNumber = { phoneNumberId: string; token: string; display: string; name: string };
export type WhatsAppSent = { to: string; body: string; phoneNumberId: string };
export type GraphError = { status: number; code: number; message: string };

export interface FakeWhatsApp {
  /** http://127.0.0.1:<port>, for WHATSAPP_API_ROOT */
  root: string;
  /** the versions the calls named (the server's GRAPH_VERSION) */
  versions: Set<string>;
  addNumber(n: FakeNumber): void;
  /** every later call with the number's token answers 401 code 190 */
  revoke(phoneNumberId: string): void;
  /** the next `n` sends of the number fail with `error` */
  failSends(phoneNumberId: string, n: number, error: GraphError): void;
  sent(phoneNumberId: string): WhatsAppSent[];
  /** send attempts, failed ones included */
  sendCalls(phoneNumberId: string): number;
  /** resolves once the number sent `count` messages; rejects after `timeoutMs` (default 10 s) */
  waitForSent(phoneNumberId: string, count: number, timeoutMs?: number): Promise<WhatsAppSent[]>;
  /** resolves once `count` sends were attempted */
  waitForSendCalls(phoneNumberId: string, count: number, timeoutMs?: number): Promise<void>;
  /** POSTs `body` (an object, serialized here, or the exact bytes) to `url`, signed with `appSecret` */
  deliver(url: string, body: unknown, appSecret: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

type Num = FakeNumber & { revoked: boolean; sent: WhatsAppSent[]; calls: number; failures: GraphError[] };

/** Meta's signature of a webhook body: `sha256=` and the hex HMAC-SHA256 of the raw bytes with the app secret */
export function signBody(raw: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/** A webhook body with one text message, as Meta posts it. */
export function textMessageBody(o: {
  phoneNumberId: string;
  from: string;
  name: string;
  id: string;
  text: string;
  timestamp?: number;
}): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: o.phoneNumberId },
              contacts: [{ profile: { name: o.name }, wa_id: o.from }],
              messages: [
                {
                  from: o.from,
                  id: o.id,
                  timestamp: String(o.timestamp ?? Math.floor(Date.now() / 1000)),
                  text: { body: o.text },
                  type: 'text',
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

export async function startFakeWhatsApp(): Promise<FakeWhatsApp> {
  const numbers = new Map<string, Num>();
  const versions = new Set<string>();
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  const graphError = (res: http.ServerResponse, e: GraphError) => {
    res.writeHead(e.status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ error: { message: e.message, type: 'OAuthException', code: e.code, fbtrace_id: 'Afake' } }),
    );
  };
  const ok = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const [version, id, edge] = url.pathname.split('/').filter(Boolean);
      if (version) versions.add(version);
      const n = id ? numbers.get(id) : undefined;
      const bearer = req.headers.authorization?.replace(/^Bearer /, '');
      const sending = req.method === 'POST' && edge === 'messages';
      if (n && sending) {
        n.calls++;
        wake();
      }
      if (n && (n.revoked || bearer !== n.token))
        return graphError(res, {
          status: 401,
          code: 190,
          message:
            'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
        });
      if (!n)
        return graphError(res, {
          status: 400,
          code: 100,
          message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        });
      if (req.method === 'GET' && !edge)
        return ok(res, { display_phone_number: n.display, verified_name: n.name, id: n.phoneNumberId });
      if (sending) {
        const failure = n.failures.shift();
        if (failure) return graphError(res, failure);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (body.messaging_product !== 'whatsapp' || body.type !== 'text' || typeof body.text?.body !== 'string')
          return graphError(res, { status: 400, code: 100, message: '(#100) Invalid parameter' });
        n.sent.push({ to: body.to, body: body.text.body, phoneNumberId: n.phoneNumberId });
        wake();
        return ok(res, {
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.out${n.sent.length}` }],
        });
      }
      graphError(res, { status: 400, code: 100, message: 'Unsupported request' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const number = (id: string) => {
    const n = numbers.get(id);
    if (!n) throw new Error(`fake WhatsApp: no number ${id}`);
    return n;
  };
  const waitFor = <T>(ready: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = ready();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`fake WhatsApp: timed out waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  return {
    root,
    versions,
    addNumber: (n) => numbers.set(n.phoneNumberId, { ...n, revoked: false, sent: [], calls: 0, failures: [] }),
    revoke: (id) => {
      number(id).revoked = true;
    },
    failSends: (id, count, error) => {
      for (let i = 0; i < count; i++) number(id).failures.push(error);
    },
    sent: (id) => [...number(id).sent],
    sendCalls: (id) => number(id).calls,
    waitForSent: (id, count, timeoutMs = 10_000) =>
      waitFor(
        () => (number(id).sent.length >= count ? [...number(id).sent] : undefined),
        timeoutMs,
        `${count} messages sent`,
      ),
    waitForSendCalls: async (id, count, timeoutMs = 10_000) => {
      await waitFor(() => (number(id).calls >= count ? true : undefined), timeoutMs, `${count} send calls`);
    },
    deliver: async (url, body, appSecret) => {
      const raw = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw, appSecret) },
        body: raw,
      });
      return { status: res.status, text: await res.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
