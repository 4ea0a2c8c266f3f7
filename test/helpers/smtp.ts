import net from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  /** RCPT TO addresses */
  to: string[];
  /** MAIL FROM address */
  from: string;
  /** unfolded headers, lower-case names (last one wins) */
  headers: Record<string, string>;
  subject: string;
  /** the text body, transfer-decoded (7bit / quoted-printable / base64) */
  body: string;
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 (no TLS, no auth) that keeps every message. `next(n)` resolves
 * when the n-th message has arrived (from onData), so tests wait on delivery, never on a timer.
 */
export interface TestSmtp {
  port: number;
  url: string;
  messages: ReceivedMail[];
  /** resolves with the `count`-th message (1-based) once it has been received */
  waitFor(count: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A port that was free a moment ago (bound to port 0, then released), for a server started later. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export function smtpUrl(port: number): string {
  return `smtp://127.0.0.1:${port}/?ignoreTLS=true`;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<{ count: number; resolve: (m: ReceivedMail) => void }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = parseMessage(raw, {
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        });
        messages.push(mail);
        for (const w of [...waiters]) {
          if (messages.length >= w.count) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(messages[w.count - 1]!);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as net.AddressInfo).port;
  return {
    port: bound,
    url: smtpUrl(bound),
    messages,
    waitFor: (count) =>
      messages.length >= count
        ? Promise.resolve(messages[count - 1]!)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A tiny RFC 5322 read: unfold headers, split off the body, undo the transfer encoding. */
function parseMessage(raw: string, envelope: { to: string[]; from: string }): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const rawBody = split === -1 ? '' : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  let body = rawBody;
  if (encoding === 'quoted-printable') {
    body = Buffer.from(
      rawBody
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  } else if (encoding === 'base64') {
    body = Buffer.from(rawBody.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  body = body.replace(/\r\n/g, '\n');
  return { ...envelope, headers, subject: decodeWords(headers.subject ?? ''), body, raw };
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=), in case a subject needs them. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}
