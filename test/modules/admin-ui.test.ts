import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type TestApp, useSharedTestApp } from '../helpers/app.js';
import { getScript, varies } from '../helpers/e2e-http.js';
import { loadAdminAssets } from '../../src/modules/admin-ui/assets.js';
import { ADMIN_CSP } from '../../src/modules/admin-ui/routes.js';

/**
 * The admin UI's files compressed: index.html and the hashed assets come as the build
 * precompressed them (brotli or gzip, negotiated from Accept-Encoding), with Vary and an ETag per
 * coding. (Headers, caching and paths are in system.test.ts.)
 */

let t: TestApp;
useSharedTestApp({ env: {} }, (app) => {
  t = app;
});

/** `/`, and the hashed script and stylesheet index.html names */
async function urls(): Promise<string[]> {
  const index = (await t.app.inject({ url: '/' })).body;
  const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.some((a) => /\/assets\/main-[A-Z0-9]+\.js$/.test(a))).toBe(true);
  expect(assets.some((a) => /\/assets\/app-[A-Z0-9]+\.css$/.test(a))).toBe(true);
  return ['/', ...assets];
}

describe('admin UI compression', () => {
  it('index.html and the hashed assets come brotli-compressed to `br, gzip`, decompressing to the identity bytes', async () => {
    const { index, files } = loadAdminAssets();
    for (const url of await urls()) {
      const plain = await t.app.inject({ url });
      const res = await t.app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(varies(res), url).toBe(true);
      expect(res.headers['content-type'], url).toBe(plain.headers['content-type']);
      expect(res.headers['cache-control'], url).toBe(plain.headers['cache-control']);
      expect(res.rawPayload.length, url).toBeLessThan(plain.rawPayload.length);
      expect(brotliDecompressSync(res.rawPayload).equals(plain.rawPayload), url).toBe(true);
      const onDisk = url === '/' ? index.body : files.get(url.slice('/assets/'.length))!.body;
      expect(plain.rawPayload.equals(onDisk), url).toBe(true);
      expect(res.headers.etag, url).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    }
    // the page keeps its CSP whatever the coding
    const page = await t.app.inject({ url: '/', headers: { 'accept-encoding': 'br' } });
    expect(page.headers['content-security-policy']).toBe(ADMIN_CSP);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('gzip to a gzip-only client; identity, with Vary, to one that takes no coding or refuses both', async () => {
    for (const url of await urls()) {
      const plain = await t.app.inject({ url });
      const gz = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate' } });
      expect(gz.headers['content-encoding'], url).toBe('gzip');
      expect(varies(gz), url).toBe(true);
      expect(String(gz.headers.etag), url).toMatch(/-gz"$/);
      expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload), url).toBe(true);
      for (const ae of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
        const res = await t.app.inject({ url, headers: ae === undefined ? {} : { 'accept-encoding': ae } });
        expect(res.statusCode, `${url} ${ae}`).toBe(200);
        expect(res.headers['content-encoding'], `${url} ${ae}`).toBeUndefined();
        expect(varies(res), `${url} ${ae}`).toBe(true);
        expect(res.headers.etag, `${url} ${ae}`).toBe(plain.headers.etag);
        expect(res.rawPayload.equals(plain.rawPayload), `${url} ${ae}`).toBe(true);
      }
    }
  });

  it('304 only for the ETag of the coding chosen, with Vary on the 304', async () => {
    for (const url of await urls()) {
      const br = String((await t.app.inject({ url, headers: { 'accept-encoding': 'br' } })).headers.etag);
      const plain = String((await t.app.inject({ url })).headers.etag);
      expect(br, url).not.toBe(plain);
      const notModified = await t.app.inject({ url, headers: { 'accept-encoding': 'br', 'if-none-match': br } });
      expect(notModified.statusCode, url).toBe(304);
      expect(notModified.headers.etag, url).toBe(br);
      expect(varies(notModified), url).toBe(true);
      expect((await t.app.inject({ url, headers: { 'if-none-match': plain } })).statusCode, url).toBe(304);
      const other = await t.app.inject({ url, headers: { 'accept-encoding': 'br', 'if-none-match': plain } });
      expect(other.statusCode, url).toBe(200);
      expect(other.headers['content-encoding'], url).toBe('br');
    }
  });
});

describe('the service worker', () => {
  it('is served at /sw.js (scope /) as JavaScript, revalidated on every load, under a CSP that loads nothing', async () => {
    const res = await getScript(t, '/sw.js', 'no-cache');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'");
    expect(res.body).toContain('showNotification');
    expect(res.body).toContain('notificationclick');
  });
});
