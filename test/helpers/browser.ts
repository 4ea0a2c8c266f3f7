import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/**
 * Real Chromium (the distribution's package: playwright-core brings no browser of its own) driven by
 * playwright-core, plus tiny servers for the pages a browser test needs.
 */

export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots and other things to look at after a run (gitignored). */
export const ARTIFACTS_DIR = path.resolve('test-artifacts');

/** Chromium's switches for a test: headless in a container, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `args`: more Chromium switches, e.g. `--host-resolver-rules=MAP shop.example.test 127.0.0.1` (a host name that works offline). */
export async function launchBrowser(opts: { args?: string[] } = {}): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'chat-agent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(opts.args ?? [])],
    viewport: { width: 1280, height: 800 },
  });
  // a missing element fails with the locator's name well before the test's own timeout
  context.setDefaultTimeout(10_000);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return path.join(ARTIFACTS_DIR, name);
}

/** how long a screenshot may take before it is given up (a busy machine renders slowly) */
const SCREENSHOT_TIMEOUT_MS = 10_000;

/**
 * A screenshot of `target` (a page, or an element by its locator) to test-artifacts/<name>, best
 * effort: it is something to look at after a run, never a check, so one that fails or takes too
 * long is logged and skipped and the test goes on. An element is still waited for (visible) as
 * before, with the context's usual timeout: what the test does next may rely on it.
 */
export async function shot(target: Page | Locator, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  if ('waitFor' in target) await target.waitFor({ state: 'visible' });
  try {
    await target.screenshot({ path: artifactPath(name), timeout: SCREENSHOT_TIMEOUT_MS, ...opts });
  } catch (e) {
    console.warn(`screenshot ${name} skipped: ${String((e as Error).message).split('\n')[0]}`);
  }
}

export interface RecordedHit {
  method: string;
  url: string;
}

export interface TinyServer {
  /** http://127.0.0.1:<port> */
  url: string;
  hits: RecordedHit[];
  close(): Promise<void>;
}

export type TinyHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void | Promise<void>;

/** An HTTP server on 127.0.0.1 (random port) that records every request it gets. */
export async function startTinyServer(handler: TinyHandler): Promise<TinyServer> {
  const hits: RecordedHit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      Promise.resolve(handler(req, res, Buffer.concat(parts))).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A site that serves fixed pages by path (anything else 404). */
export function startSite(
  pages: Record<string, { type: string; body: string } | (() => { type: string; body: string })>,
): Promise<TinyServer> {
  return startTinyServer((req, res) => {
    const entry = pages[new URL(req.url ?? '/', 'http://x').pathname];
    const page = typeof entry === 'function' ? entry() : entry;
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' }).end(page.body);
  });
}

/**
 * A reverse proxy in front of `target` that reads the whole upstream answer before sending any of
 * it (what a buffering proxy does to a stream). With `dropEventStreamAccept` it also rewrites
 * `Accept` to JSON only, so the server answers plain JSON instead of a stream.
 */
export function startBufferingProxy(target: string, opts: { dropEventStreamAccept: boolean }): Promise<TinyServer> {
  return startTinyServer(async (req, res, body) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    }
    if (opts.dropEventStreamAccept && headers.accept) headers.accept = 'application/json';
    const upstream = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : body,
    });
    const whole = Buffer.from(await upstream.arrayBuffer());
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
        out[k] = v;
    });
    out['content-length'] = String(whole.length);
    res.writeHead(upstream.status, out).end(whole);
  });
}

/** Listens on a free port of 127.0.0.1 (the browser reaches it under several names); returns the port. */
export async function listenOnLoopback(app: TestApp): Promise<number> {
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return address.port;
}

/** Console errors and uncaught exceptions of a page, collected for the end of a journey (which expects none). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/**
 * A new page of `context` for `use`, with its console and page errors watched (`errors`): none
 * may be left when `use` is done (take out, e.g. with expectRefusals, those the test causes on
 * purpose). The page is closed afterwards, whatever happened.
 */
export async function withPage(
  context: BrowserContext,
  use: (page: Page, errors: string[]) => Promise<void>,
): Promise<void> {
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await use(page, errors);
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
}
