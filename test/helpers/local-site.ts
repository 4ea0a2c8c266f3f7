import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real web site on 127.0.0.1 (random port) for crawler tests. It records every request
 * and every TCP connection, answers 404 for unknown paths, and can hold the response to one path
 * open until the test releases it (to catch a crawl mid-fetch deterministically).
 */

export interface Page {
  body: string;
  /** default text/html; charset=utf-8 */
  type?: string;
  /** default 200 */
  status?: number;
  /** validators: a request that sends the same back (If-None-Match, If-Modified-Since) is answered 304 */
  etag?: string;
  lastModified?: string;
}

export interface Hold {
  /** resolves when the held path has been requested */
  reached: Promise<void>;
  /** resolves when the client closed the held request before it was answered */
  clientGone: Promise<void>;
  /** answer the held request (and any later request of that path) normally */
  release(): void;
}

export interface LocalSite {
  /** http://127.0.0.1:<port> (no trailing slash) */
  url: string;
  port: number;
  /** request paths (with query string) in order of arrival */
  requests: string[];
  /** paths answered 304 Not Modified, in order */
  notModified: string[];
  /** TCP connections accepted so far */
  connections(): number;
  /** requests for pages, i.e. everything but /robots.txt and sitemaps */
  pageRequests(): string[];
  hold(path: string): Hold;
  close(): Promise<void>;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export async function startLocalSite(pages: Record<string, Page | string>): Promise<LocalSite> {
  const requests: string[] = [];
  const notModifiedAnswers: string[] = [];
  let connections = 0;
  const holds = new Map<
    string,
    {
      reached: ReturnType<typeof deferred>;
      gone: ReturnType<typeof deferred>;
      gate: ReturnType<typeof deferred>;
      released: boolean;
    }
  >();

  const answer = (path: string, res: http.ServerResponse, req: http.IncomingMessage) => {
    const raw = pages[path];
    if (raw === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><p>Not found</p></body></html>');
      return;
    }
    const page: Page = typeof raw === 'string' ? { body: raw } : raw;
    const validators = {
      ...(page.etag ? { etag: page.etag } : {}),
      ...(page.lastModified ? { 'last-modified': page.lastModified } : {}),
    };
    const since = Date.parse(req.headers['if-modified-since'] ?? '');
    const notModified =
      (page.etag !== undefined && req.headers['if-none-match'] === page.etag) ||
      (page.etag === undefined && page.lastModified !== undefined && since >= Date.parse(page.lastModified));
    if ((page.status ?? 200) === 200 && notModified) {
      notModifiedAnswers.push(path);
      res.writeHead(304, validators);
      res.end();
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...validators });
    res.end(page.body);
  };

  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    requests.push(target);
    const path = new URL(target, 'http://site').pathname;
    const hold = holds.get(path);
    if (hold && !hold.released) {
      res.on('close', () => {
        if (!res.writableFinished) hold.gone.resolve();
      });
      hold.reached.resolve();
      void hold.gate.promise.then(() => {
        if (!res.destroyed) answer(path, res, req);
      });
      return;
    }
    answer(path, res, req);
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    notModified: notModifiedAnswers,
    connections: () => connections,
    pageRequests: () => requests.filter((r) => !/^\/robots\.txt|\.xml(\?|$)/.test(r)),
    hold(path) {
      const h = { reached: deferred(), gone: deferred(), gate: deferred(), released: false };
      holds.set(path, h);
      return {
        reached: h.reached.promise,
        clientGone: h.gone.promise,
        release: () => {
          h.released = true;
          h.gate.resolve();
        },
      };
    },
    async close() {
      for (const h of holds.values()) {
        h.released = true;
        h.gate.resolve();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
