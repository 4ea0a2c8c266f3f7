import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertPublicHttpUrl,
  createSafeLookup,
  isPublicAddress,
  safeFetch,
  safeFetchWithPolicy,
  type NetPolicy,
} from '../../src/platform/net/safe-fetch.js';
import { FetchFailedError, UnsafeUrlError, type SafeFetchOptions } from '../../src/platform/net/types.js';

// ---------------------------------------------------------------------------------------------
// local test servers that count connections

interface TestServer {
  port: number;
  host: string;
  /** TCP connections accepted */
  connections: number;
  /** requests seen (method, url, headers) */
  requests: http.IncomingMessage[];
  base: string;
  close(): Promise<void>;
}

const servers: TestServer[] = [];

async function startServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, self: TestServer) => void,
  host = '127.0.0.1',
  port = 0,
): Promise<TestServer> {
  const server = http.createServer();
  const sockets = new Set<import('node:net').Socket>();
  const self: TestServer = {
    port: 0,
    host,
    connections: 0,
    requests: [],
    base: '',
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    self.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    self.requests.push(req);
    handler(req, res, self);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  self.port = (server.address() as AddressInfo).port;
  self.base = `http://${host.includes(':') ? `[${host}]` : host}:${self.port}`;
  servers.push(self);
  return self;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}, 60_000);

const open: SafeFetchOptions = { allowPrivate: true, maxBytes: 1_000_000, timeoutMs: 10_000 };
const strict: SafeFetchOptions = { allowPrivate: false, maxBytes: 1_000_000, timeoutMs: 10_000 };

/** a fake DNS: host -> answers; unknown hosts fail like getaddrinfo does */
function fakeDns(table: Record<string, string[] | (() => string[])>): NetPolicy['resolve'] & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  };
  return Object.assign(resolve, { calls });
}

/** The error `promise` rejects with, which must be a `type` whose message matches `message`. */
async function rejectedWith(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => Error,
  message: RegExp,
): Promise<Error> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(type);
  expect(err.message).toMatch(message);
  return err;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

// ---------------------------------------------------------------------------------------------

describe('platform/net safe fetch', () => {
  describe('assertPublicHttpUrl (allowPrivate=false)', () => {
    const refused: Array<[string, RegExp]> = [
      ['http://127.0.0.1/', /not a public address/],
      ['http://127.0.0.1:8080/admin', /not a public address/],
      ['http://localhost/', /internal host name/],
      ['http://localhost:3000/', /internal host name/],
      ['http://LOCALHOST./', /internal host name/],
      ['http://api.localhost/', /internal host name/],
      ['http://printer.local/', /internal host name/],
      ['http://metadata.google.internal/computeMetadata/v1/', /internal host name/],
      ['http://./', /internal host name/],
      ['http://[::1]/', /not a public address/],
      ['http://[0:0:0:0:0:0:0:1]/', /not a public address/],
      ['http://[::]/', /not a public address/],
      ['http://0.0.0.0/', /not a public address/],
      ['http://0/', /not a public address/],
      ['http://10.0.0.1/', /not a public address/],
      ['http://172.16.0.1/', /not a public address/],
      ['http://172.31.255.255/', /not a public address/],
      ['http://192.168.1.1/', /not a public address/],
      ['http://169.254.169.254/latest/meta-data/', /not a public address/],
      ['http://100.64.0.1/', /not a public address/],
      ['http://192.0.0.8/', /not a public address/],
      ['http://198.18.0.1/', /not a public address/],
      ['http://224.0.0.1/', /not a public address/],
      ['http://240.0.0.1/', /not a public address/],
      ['http://255.255.255.255/', /not a public address/],
      // IPv4 spellings (WHATWG URL normalises them to dotted decimal)
      ['http://2130706433/', /not a public address/],
      ['http://017700000001/', /not a public address/],
      ['http://0x7f000001/', /not a public address/],
      ['http://0x7f.0.0.1/', /not a public address/],
      ['http://0177.0.0.1/', /not a public address/],
      ['http://127.1/', /not a public address/],
      ['http://127.0.0.1./', /not a public address/],
      ['http://0xa9fea9fe/', /not a public address/],
      ['http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', /not a public address/],
      // IPv6 forms
      ['http://[::ffff:127.0.0.1]/', /not a public address/],
      ['http://[::ffff:7f00:1]/', /not a public address/],
      ['http://[::ffff:169.254.169.254]/', /not a public address/],
      ['http://[::127.0.0.1]/', /not a public address/],
      ['http://[64:ff9b::10.0.0.1]/', /not a public address/],
      ['http://[64:ff9b:1::1]/', /not a public address/],
      ['http://[2002:7f00:1::1]/', /not a public address/],
      ['http://[2002:c0a8:101::1]/', /not a public address/],
      ['http://[fc00::1]/', /not a public address/],
      ['http://[fd12:3456::1]/', /not a public address/],
      ['http://[fe80::1]/', /not a public address/],
      ['http://[fec0::1]/', /not a public address/],
      ['http://[ff02::1]/', /not a public address/],
      ['http://[2001:db8::1]/', /not a public address/],
      // not http(s), credentials, not absolute
      ['http://user:pass@example.com/', /user name or password/],
      ['http://user@example.com/', /user name or password/],
      ['https://:secret@example.com/', /user name or password/],
      ['ftp://example.com/file', /Only http and https/],
      ['file:///etc/passwd', /Only http and https/],
      ['javascript:alert(1)', /Only http and https/],
      ['data:text/html,<b>x</b>', /Only http and https/],
      ['gopher://127.0.0.1:6379/_INFO', /Only http and https/],
      ['/relative/path', /not a valid absolute URL/],
      ['example.com', /not a valid absolute URL/],
      ['http://', /not a valid absolute URL/],
      ['', /not a valid absolute URL/],
    ];
    it.each(refused)('refuses %s', (url, message) => {
      const err = (() => {
        try {
          assertPublicHttpUrl(url, false);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect((err as Error).message).toMatch(message);
    });

    it.each([
      'https://example.com/',
      'http://example.com:8080/page?q=1#frag',
      'http://93.184.216.34/',
      'http://[2606:4700:4700::1111]/',
      'http://[::ffff:93.184.216.34]/',
      'http://[2002:5db8:d822::1]/',
      'https://localhost.example.com/',
      'https://internal.example.com/',
    ])('accepts %s', (url) => {
      expect(assertPublicHttpUrl(url, false)).toBeInstanceOf(URL);
    });

    it('relies on WHATWG URL normalising IPv4 spellings in hostname', () => {
      for (const spelled of ['2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.1', '017700000001']) {
        expect(new URL(`http://${spelled}/`).hostname).toBe('127.0.0.1');
      }
      expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    });

    it('returns the parsed URL', () => {
      const url = assertPublicHttpUrl('HTTPS://Example.COM/a/../b?x=1', false);
      expect(url.href).toBe('https://example.com/b?x=1');
    });

    it('with allowPrivate=true lets internal hosts through, but not other schemes or credentials', () => {
      expect(assertPublicHttpUrl('http://127.0.0.1:3000/', true).port).toBe('3000');
      expect(assertPublicHttpUrl('http://localhost/', true).hostname).toBe('localhost');
      expect(assertPublicHttpUrl('http://[::1]/', true).hostname).toBe('[::1]');
      expect(() => assertPublicHttpUrl('http://user:pass@127.0.0.1/', true)).toThrow(UnsafeUrlError);
      expect(() => assertPublicHttpUrl('file:///etc/passwd', true)).toThrow(UnsafeUrlError);
    });
  });

  describe('isPublicAddress', () => {
    it.each([
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '0.1.2.3',
      '10.1.2.3',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.0.1',
      '192.0.0.1',
      '192.0.2.1',
      '192.168.0.1',
      '198.18.0.1',
      '198.19.255.255',
      '224.0.0.251',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:0:10.0.0.1',
      '::7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::808:808',
      '2002:a00:1::',
      '2001:0:4136:e378::1',
      'fc00::1',
      'fdff::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'ff02::1',
      '2001:db8::1',
      '100::1',
      'not an ip',
      '',
      '1.2.3.4.5',
      'example.com',
    ])('%s is not public', (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    });

    it.each([
      '1.1.1.1',
      '8.8.8.8',
      '93.184.216.34',
      '172.15.255.255',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::1',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ])('%s is public', (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    });
  });

  describe('createSafeLookup (connect-time DNS check)', () => {
    function lookupOnce(
      lookup: ReturnType<typeof createSafeLookup>,
      host: string,
      options: { all?: boolean; family?: number },
    ) {
      return new Promise<{ err: Error | null; address: string | LookupAddress[]; family?: number }>((resolve) => {
        lookup(host, options, (err, address, family) => resolve({ err, address, family }));
      });
    }

    it('refuses a host when any A/AAAA answer is internal, whichever way it is asked', async () => {
      const resolve = fakeDns({ 'public.example': ['93.184.216.34', '10.0.0.1'] });
      const lookup = createSafeLookup(false, { resolve });
      for (const options of [{ all: true }, {}, { family: 4 }]) {
        const { err } = await lookupOnce(lookup, 'public.example', options);
        expect(err).toBeInstanceOf(UnsafeUrlError);
        expect(err?.message).toMatch(/internal address \(10\.0\.0\.1\)/);
      }
    });

    it('answers in the shape asked for when every address is public', async () => {
      const resolve = fakeDns({ 'public.example': ['2606:4700:4700::1111', '93.184.216.34'] });
      const lookup = createSafeLookup(false, { resolve });
      expect(await lookupOnce(lookup, 'public.example', { all: true })).toStrictEqual({
        err: null,
        address: [
          { address: '2606:4700:4700::1111', family: 6 },
          { address: '93.184.216.34', family: 4 },
        ],
        family: undefined,
      });
      expect(await lookupOnce(lookup, 'public.example', {})).toStrictEqual({
        err: null,
        address: '2606:4700:4700::1111',
        family: 6,
      });
      expect(await lookupOnce(lookup, 'public.example', { family: 4 })).toStrictEqual({
        err: null,
        address: '93.184.216.34',
        family: 4,
      });
    });

    it('lets internal answers through with allowPrivate, and passes DNS failures on', async () => {
      const resolve = fakeDns({ 'intranet.example': ['10.0.0.1'] });
      const lookup = createSafeLookup(true, { resolve });
      expect(await lookupOnce(lookup, 'intranet.example', {})).toStrictEqual({
        err: null,
        address: '10.0.0.1',
        family: 4,
      });
      const failed = await lookupOnce(lookup, 'nowhere.example', {});
      expect((failed.err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
    });

    it('refuses an answer that is not an address', async () => {
      const lookup = createSafeLookup(true, { resolve: fakeDns({ 'odd.example': ['not-an-ip'] }) });
      expect((await lookupOnce(lookup, 'odd.example', {})).err).toBeInstanceOf(FetchFailedError);
    });

    it('uses the system resolver by default (localhost resolves to loopback and is refused)', async () => {
      const { err } = await lookupOnce(createSafeLookup(false), 'localhost', { all: true });
      expect(err).toBeInstanceOf(UnsafeUrlError);
    });
  });

  describe('SSRF through DNS and redirects (allowPrivate=false)', () => {
    it('refuses a host whose DNS answers loopback before any connection is made', async () => {
      const target = await startServer((_req, res) => res.end('secret'));
      const resolve = fakeDns({ 'public.example': ['127.0.0.1'] });
      await rejectedWith(
        safeFetchWithPolicy(`http://public.example:${target.port}/`, strict, { resolve }),
        UnsafeUrlError,
        /public\.example resolves to an internal address/,
      );
      expect(resolve.calls).toStrictEqual(['public.example']);
      expect(target.connections).toBe(0);

      // control: the same fetch with allowPrivate reaches the server, so the refusal above was the check
      const ok = await safeFetchWithPolicy(`http://public.example:${target.port}/`, open, { resolve });
      expect(ok.body.toString()).toBe('secret');
      expect(target.connections).toBe(1);
    });

    it('refuses when one of several answers is internal', async () => {
      const target = await startServer((_req, res) => res.end('secret'));
      const resolve = fakeDns({ 'public.example': ['93.184.216.34', '127.0.0.1'] });
      const err = await rejection(safeFetchWithPolicy(`http://public.example:${target.port}/`, strict, { resolve }));
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect(target.connections).toBe(0);
    });

    it('refuses a literal internal address with the default policy without connecting', async () => {
      const target = await startServer((_req, res) => res.end('secret'));
      const err = await rejection(safeFetch(`${target.base}/`, strict));
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect(target.connections).toBe(0);
    });

    describe('a public-looking host that redirects inwards', () => {
      // 127.0.0.1 (server A) counts as public for these tests; the rest of 127/8 does not.
      // Server B listens on 127.0.0.2 and must never see a connection.
      const policy = (extra: NetPolicy = {}): NetPolicy => ({
        isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
        resolve: fakeDns({
          'public.example': ['127.0.0.1'],
          'sneaky.example': ['127.0.0.2'],
          'mixed.example': ['127.0.0.1', '127.0.0.2'],
        }),
        ...extra,
      });

      async function servers() {
        const inner = await startServer((_req, res) => res.end('internal secret'), '127.0.0.2');
        const outer = await startServer((req, res) => {
          const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
          res.writeHead(302, { location: to.replace('PORT', String(inner.port)) }).end();
        });
        return { outer, inner };
      }

      it.each([
        ['a literal 127.0.0.2', 'http://127.0.0.2:PORT/'],
        ['localhost', 'http://localhost:PORT/'],
        ['an IPv4-mapped IPv6 literal', 'http://[::ffff:127.0.0.2]:PORT/'],
        ['a decimal IPv4 literal', 'http://2130706434:PORT/'],
        ['a host whose DNS answers 127.0.0.2', 'http://sneaky.example:PORT/'],
        ['a host with one internal answer among several', 'http://mixed.example:PORT/'],
      ])('refuses a redirect to %s; the internal server sees no connection', async (_name, location) => {
        const { outer, inner } = await servers();
        const err = await rejection(
          safeFetchWithPolicy(
            `http://public.example:${outer.port}/?to=${encodeURIComponent(location)}`,
            strict,
            policy(),
          ),
        );
        expect(err).toBeInstanceOf(UnsafeUrlError);
        expect(outer.connections).toBe(1);
        expect(inner.connections).toBe(0);
      });

      it('control: when the policy lets 127.0.0.2 through, the same redirect reaches the internal server', async () => {
        const { outer, inner } = await servers();
        const allowBoth = policy({ isPublicAddress: (ip) => ip === '127.0.0.1' || ip === '127.0.0.2' });
        const res = await safeFetchWithPolicy(
          `http://public.example:${outer.port}/?to=${encodeURIComponent('http://sneaky.example:PORT/')}`,
          strict,
          allowBoth,
        );
        expect(res.body.toString()).toBe('internal secret');
        expect(res.url).toBe(`http://sneaky.example:${inner.port}/`);
        expect(inner.connections).toBe(1);
      });

      it('re-resolves on every hop: a host that rebinds to an internal address on its second lookup is refused', async () => {
        const inner = await startServer((_req, res) => res.end('internal secret'), '127.0.0.2');
        let lookups = 0;
        const resolve = fakeDns({ 'rebind.example': () => (++lookups === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
        const outer = await startServer((_req, res) =>
          res.writeHead(307, { location: `http://rebind.example:${inner.port}/` }).end(),
        );
        const err = await rejection(
          safeFetchWithPolicy(`http://rebind.example:${outer.port}/`, strict, policy({ resolve })),
        );
        expect(err).toBeInstanceOf(UnsafeUrlError);
        expect(err.message).toMatch(/redirected/);
        expect(lookups).toBe(2);
        expect(outer.connections).toBe(1);
        expect(inner.connections).toBe(0);
      });
    });
  });

  describe('fetching (allowPrivate=true, local server)', () => {
    it('GETs the page and returns status, media type, body and final URL, sending nothing identifying', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'Text/HTML; charset=UTF-8' }).end('<p>hello</p>');
      });
      const res = await safeFetch(`${server.base}/page?x=1#frag`, open);
      expect(res).toStrictEqual({
        url: `${server.base}/page?x=1#frag`,
        status: 200,
        contentType: 'text/html',
        body: Buffer.from('<p>hello</p>'),
      });
      const req = server.requests[0]!;
      expect(req.method).toBe('GET');
      expect(req.url).toBe('/page?x=1');
      expect(req.headers['user-agent']).toBe('ChatAgentBot/1.0');
      expect(req.headers.accept).toMatch(/text\/html/);
      expect(req.headers['accept-encoding']).toBe('identity');
      expect(req.headers.cookie).toBeUndefined();
      expect(req.headers.authorization).toBeUndefined();
    });

    it('returns non-2xx answers instead of throwing (the content-type allowlist does not apply to them)', async () => {
      const server = await startServer((_req, res) =>
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}'),
      );
      const res = await safeFetch(`${server.base}/missing`, { ...open, allowedContentTypes: ['text/html'] });
      expect(res.status).toBe(404);
      expect(res.contentType).toBe('application/json');
      expect(res.body.toString()).toBe('{"error":"nope"}');
    });

    function redirectChain() {
      return startServer((req, res) => {
        const m = /^\/r\/(\d+)$/.exec(req.url ?? '');
        if (m) {
          const left = Number(m[1]);
          const statuses = [301, 302, 303, 307, 308];
          res.writeHead(statuses[left % statuses.length]!, { location: left > 1 ? `/r/${left - 1}` : '/final' }).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`landed on ${req.url}`);
      });
    }

    it('follows up to 5 redirects (301/302/303/307/308, relative Location) and returns the final URL', async () => {
      const server = await redirectChain();
      const res = await safeFetch(`${server.base}/r/5`, open);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('landed on /final');
      expect(res.url).toBe(`${server.base}/final`);
      expect(server.requests.map((r) => r.url)).toStrictEqual(['/r/5', '/r/4', '/r/3', '/r/2', '/r/1', '/final']);
      expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    });

    it('refuses a 6th redirect, and honours maxRedirects', async () => {
      const server = await redirectChain();
      await rejectedWith(safeFetch(`${server.base}/r/6`, open), FetchFailedError, /Too many redirects/);
      expect(server.requests).toHaveLength(6);

      const zero = await rejection(safeFetch(`${server.base}/r/1`, { ...open, maxRedirects: 0 }));
      expect(zero).toBeInstanceOf(FetchFailedError);
      expect((await safeFetch(`${server.base}/r/2`, { ...open, maxRedirects: 2 })).url).toBe(`${server.base}/final`);
    });

    it('fails on a redirect without Location, and returns other 3xx as they are', async () => {
      const server = await startServer((req, res) => res.writeHead(req.url === '/304' ? 304 : 302).end());
      await rejectedWith(safeFetch(`${server.base}/`, open), FetchFailedError, /without a Location/);
      expect((await safeFetch(`${server.base}/304`, open)).status).toBe(304);
    });

    it('refuses a redirect to another scheme', async () => {
      const server = await startServer((_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
      await rejectedWith(safeFetch(`${server.base}/`, open), UnsafeUrlError, /redirected.*Only http and https/);
    });

    it('accepts a body of exactly maxBytes', async () => {
      const server = await startServer((_req, res) => res.end(Buffer.alloc(1000, 'a')));
      expect((await safeFetch(`${server.base}/`, { ...open, maxBytes: 1000 })).body).toHaveLength(1000);
    });

    it('cuts a streamed body off past maxBytes', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }); // chunked, no content-length
        const chunk = Buffer.alloc(16 * 1024, 'x');
        let sent = 0;
        const pump = () => {
          while (sent < 10_000 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      });
      await rejectedWith(safeFetch(`${server.base}/`, { ...open, maxBytes: 50_000 }), FetchFailedError, /too large/);
    });

    it('refuses at once when content-length announces more than maxBytes', async () => {
      // headers only, the body never comes: reading it would hang until the timeout
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '10000000' });
        res.flushHeaders();
      });
      await rejectedWith(
        safeFetch(`${server.base}/`, { ...open, maxBytes: 1000, timeoutMs: 20_000 }),
        FetchFailedError,
        /too large/,
      );
    });

    it('decodes a gzip body sent despite accept-encoding identity, capping the decoded size', async () => {
      const page = gzipSync('<p>zipped</p>');
      const bomb = gzipSync(Buffer.alloc(5_000_000));
      const server = await startServer((req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(req.url === '/bomb' ? bomb : page);
      });
      expect((await safeFetch(`${server.base}/`, open)).body.toString()).toBe('<p>zipped</p>');
      expect(bomb.length).toBeLessThan(100_000);
      await rejectedWith(
        safeFetch(`${server.base}/bomb`, { ...open, maxBytes: 100_000 }),
        FetchFailedError,
        /too large/,
      );
    });

    it('caps an encoded body on the wire too (incompressible data grows when gzipped)', async () => {
      const noise = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7919 + ((i * i) >> 3)) & 0xff));
      const zipped = gzipSync(noise, { level: 0 });
      expect(zipped.length).toBeGreaterThan(10_000);
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }); // chunked
        res.end(zipped);
      });
      await expect(safeFetch(`${server.base}/`, { ...open, maxBytes: 10_000 })).rejects.toThrow(/too large/);
      expect((await safeFetch(`${server.base}/`, { ...open, maxBytes: zipped.length })).body.equals(noise)).toBe(true);
    });

    it('refuses an unknown content encoding', async () => {
      const server = await startServer((_req, res) => res.writeHead(200, { 'content-encoding': 'zstd' }).end('??'));
      await expect(safeFetch(`${server.base}/`, open)).rejects.toThrow(/content encoding/);
    });

    it('times out a server that never answers (one deadline for the whole exchange)', async () => {
      const server = await startServer(() => {});
      const started = Date.now();
      await rejectedWith(
        safeFetch(`${server.base}/`, { ...open, timeoutMs: 300 }),
        FetchFailedError,
        /timed out after 300 ms/,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(server.connections).toBe(1);
    });

    it('times out a body that stalls halfway', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('only part of it');
      });
      await rejectedWith(safeFetch(`${server.base}/`, { ...open, timeoutMs: 300 }), FetchFailedError, /timed out/);
    });

    it('fails on a body cut short by the server', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('only part of it', () => res.socket?.destroy());
      });
      await expect(safeFetch(`${server.base}/`, open)).rejects.toBeInstanceOf(FetchFailedError);
    });

    it('refuses a content type outside the allowlist, ignoring parameters and case', async () => {
      const server = await startServer((req, res) => {
        const type =
          req.url === '/json' ? 'application/json' : req.url === '/none' ? undefined : 'TEXT/HTML; charset=utf-8';
        res.writeHead(200, type ? { 'content-type': type } : {}).end('x');
      });
      const allowedContentTypes = ['text/html', 'text/plain'];
      expect((await safeFetch(`${server.base}/html`, { ...open, allowedContentTypes })).contentType).toBe('text/html');
      await rejectedWith(
        safeFetch(`${server.base}/json`, { ...open, allowedContentTypes }),
        FetchFailedError,
        /content type \(application\/json\)/,
      );
      await expect(safeFetch(`${server.base}/none`, { ...open, allowedContentTypes })).rejects.toThrow(
        /content type \(none\)/,
      );
      expect((await safeFetch(`${server.base}/json`, open)).contentType).toBe('application/json');
    });

    it('stops when the caller aborts', async () => {
      const controller = new AbortController();
      const server = await startServer(() => controller.abort());
      await rejectedWith(
        safeFetch(`${server.base}/`, { ...open, signal: controller.signal }),
        FetchFailedError,
        /cancelled/,
      );
      expect(server.requests).toHaveLength(1);
    });

    it('does not connect at all with an already aborted signal', async () => {
      const server = await startServer((_req, res) => res.end('x'));
      await rejectedWith(
        safeFetch(`${server.base}/`, { ...open, signal: AbortSignal.abort() }),
        FetchFailedError,
        /cancelled/,
      );
      expect(server.connections).toBe(0);
    });

    it('maps connection and DNS failures to FetchFailedError', async () => {
      const server = await startServer(() => {});
      const port = server.port;
      await servers.splice(servers.indexOf(server), 1)[0]!.close();
      await rejectedWith(safeFetch(`http://127.0.0.1:${port}/`, open), FetchFailedError, /refused the connection/);

      const unresolved = await rejection(
        safeFetchWithPolicy('http://nowhere.example/', open, { resolve: fakeDns({}) }),
      );
      expect(unresolved).toBeInstanceOf(FetchFailedError);
      expect(unresolved.message).toBe('Could not resolve nowhere.example.');
    });

    it('still refuses bad schemes and credentials with allowPrivate', async () => {
      await expect(safeFetch('file:///etc/passwd', open)).rejects.toBeInstanceOf(UnsafeUrlError);
      await expect(safeFetch('http://user:pass@127.0.0.1/', open)).rejects.toBeInstanceOf(UnsafeUrlError);
    });
  });
});
