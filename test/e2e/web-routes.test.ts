import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, type TestApp, useSharedTestApp } from '../helpers/app.js';
import { getScript, varies } from '../helpers/e2e-http.js';
import { loadWidgetAssets } from '../../src/modules/web/assets.js';

/**
 * The widget's files and the share page over HTTP: cache headers and content hash, the
 * cross-origin resource policy scripts on other sites need, the share page's CSP, and compression
 * (precompressed scripts, negotiated Accept-Encoding, Vary and per-coding ETags).
 */

let t: TestApp;
let token: string;
useSharedTestApp({ env: { EMBEDDINGS: 'none' } }, async (app) => {
  t = app;
  token = (await registerUser(t.app)).token;
});

describe('widget scripts', () => {
  it('/widget.js is a short-cached loader with a strong ETag that names the hashed bundle', async () => {
    const res = await getScript(t, '/widget.js', 'public, max-age=300');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/); // strong: no W/
    const { bundle } = loadWidgetAssets();
    expect(res.body).toContain(`"${bundle.fileName}"`);
    expect(res.body.length).toBeLessThan(1024);

    const again = await t.app.inject({ url: '/widget.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await t.app.inject({ url: '/widget.js', headers: { 'if-none-match': '"something-else"' } });
    expect(other.statusCode).toBe(200);
  });

  it('the hashed bundle is immutable for a year; the hash is of its bytes', async () => {
    const { bundle } = loadWidgetAssets();
    expect(bundle.fileName).toBe(`widget-${bundle.hash}.js`);
    const res = await getScript(t, `/${bundle.fileName}`, 'public, max-age=31536000, immutable');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.rawPayload.equals(bundle.body)).toBe(true);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(res.rawPayload).digest('hex').slice(0, 16)).toBe(bundle.hash);
    expect(
      (await t.app.inject({ url: `/${bundle.fileName}`, headers: { 'if-none-match': String(res.headers.etag) } }))
        .statusCode,
    ).toBe(304);
  });

  it('a stale hash (a loader cached across an upgrade) gets the current bundle, cached briefly; junk is 404', async () => {
    const { bundle } = loadWidgetAssets();
    const stale = await getScript(t, '/widget-0123456789abcdef.js', 'public, max-age=300');
    expect(stale.rawPayload.equals(bundle.body)).toBe(true);
    for (const url of [
      '/widget-XYZ.js',
      '/widget-.js',
      '/widget-0123456789abcdef.js.map',
      '/widget-../../package.json.js',
    ]) {
      expect((await t.app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});

describe('share page /chat/{id}', () => {
  it('is HTML with no inline script, a strict CSP naming only the agent image hosts, and no framing', async () => {
    const agent = await createAgent(t.app, token, { name: 'Page <bot> & "co"' });
    await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(token),
      payload: { logo_url: 'https://cdn.example.com/a;b,c/logo.png', avatar_url: 'http://img.example.org:8080/me.png' },
    });
    const res = await t.app.inject({ url: `/chat/${agent.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' https://cdn.example.com http://img.example.org:8080",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // one script element, external, from this origin; the agent name is escaped
    const scripts = res.body.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(
      new RegExp(
        `^<script src="/widget-[0-9a-f]{16}\\.js" data-chatbot-id="${agent.id}" data-mode="page" defer></script>$`,
      ),
    );
    expect(res.body).toContain('<title>Chat with Page &#60;bot&#62; &#38; &#34;co&#34;</title>');
    expect(res.body).not.toContain('<bot>');
  });

  it('unknown agent 404, private agent 403 (a page for browsers, {detail} JSON otherwise); inactive still served', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const missing = await t.app.inject({ url: '/chat/no-such-agent', headers: html });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(missing.body).toContain('This chat does not exist.');
    const missingJson = await t.app.inject({ url: '/chat/no-such-agent' });
    expect(missingJson.statusCode).toBe(404);
    expect(missingJson.json()).toEqual({ detail: 'Chatbot not found' });
    const agent = await createAgent(t.app, token);
    await t.app.inject({ method: 'PATCH', url: `/api/chatbots/${agent.id}/toggle`, headers: auth(token) });
    expect((await t.app.inject({ url: `/chat/${agent.id}` })).statusCode).toBe(200);
    await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(token),
      payload: { public_access: false },
    });
    const hidden = await t.app.inject({ url: `/chat/${agent.id}`, headers: html });
    expect(hidden.statusCode).toBe(403);
    expect(hidden.body).toContain('This chat is not available.');
    expect(hidden.body).not.toContain('<script');
    expect((await t.app.inject({ url: `/chat/${agent.id}` })).json()).toEqual({ detail: expect.any(String) });
  });
});

describe('compression', () => {
  const scripts = () => {
    const { loader, bundle } = loadWidgetAssets();
    return [
      { url: '/widget.js', body: loader.body },
      { url: `/${bundle.fileName}`, body: bundle.body },
    ];
  };

  it('the loader and the bundle come brotli-compressed to `br, gzip`, and decompress to the identity bytes', async () => {
    for (const { url, body } of scripts()) {
      const plain = await t.app.inject({ url });
      const res = await t.app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(varies(res), url).toBe(true);
      expect(res.headers['content-type'], url).toBe('application/javascript; charset=utf-8');
      expect(res.headers['cross-origin-resource-policy'], url).toBe('cross-origin');
      expect(res.headers['cache-control'], url).toBe(plain.headers['cache-control']);
      expect(res.rawPayload.length, url).toBeLessThan(body.length);
      expect(Number(res.headers['content-length']), url).toBe(res.rawPayload.length);
      expect(brotliDecompressSync(res.rawPayload).equals(plain.rawPayload), url).toBe(true);
      expect(plain.rawPayload.equals(body), url).toBe(true);
      // its own ETag: the identity one with -br inside the quotes
      expect(res.headers.etag, url).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    }
  });

  it('gzip to a client that takes only gzip', async () => {
    for (const { url, body } of scripts()) {
      for (const ae of ['gzip', 'gzip, deflate', 'br;q=0.5, gzip', 'x-gzip']) {
        const res = await t.app.inject({ url, headers: { 'accept-encoding': ae } });
        expect(res.headers['content-encoding'], `${url} ${ae}`).toBe('gzip');
        expect(varies(res), `${url} ${ae}`).toBe(true);
        expect(String(res.headers.etag), `${url} ${ae}`).toMatch(/-gz"$/);
        expect(gunzipSync(res.rawPayload).equals(body), `${url} ${ae}`).toBe(true);
      }
    }
  });

  it('identity, with Vary, when the client asks for no coding, only identity, or refuses both', async () => {
    const { bundle } = loadWidgetAssets();
    for (const { url, body } of scripts()) {
      for (const ae of [undefined, '', 'identity', 'br;q=0, gzip;q=0', 'deflate', '*;q=0']) {
        const res = await t.app.inject({ url, headers: ae === undefined ? {} : { 'accept-encoding': ae } });
        expect(res.statusCode, `${url} ${ae}`).toBe(200);
        expect(res.headers['content-encoding'], `${url} ${ae}`).toBeUndefined();
        expect(varies(res), `${url} ${ae}`).toBe(true);
        expect(res.headers.etag, `${url} ${ae}`).toBe(
          url === '/widget.js' ? loadWidgetAssets().loader.etag : bundle.etag,
        );
        expect(res.rawPayload.equals(body), `${url} ${ae}`).toBe(true);
      }
    }
  });

  it('304 only when If-None-Match names the ETag of the coding chosen, with Vary on the 304', async () => {
    for (const { url } of scripts()) {
      const br = await t.app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      const gz = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      const plain = await t.app.inject({ url });
      const tags = [br, gz, plain].map((r) => String(r.headers.etag));
      expect(new Set(tags).size, url).toBe(3);

      const notModified = await t.app.inject({
        url,
        headers: { 'accept-encoding': 'br, gzip', 'if-none-match': tags[0] },
      });
      expect(notModified.statusCode, url).toBe(304);
      expect(notModified.body, url).toBe('');
      expect(notModified.headers.etag, url).toBe(tags[0]);
      expect(varies(notModified), url).toBe(true);
      expect(
        (await t.app.inject({ url, headers: { 'accept-encoding': 'gzip', 'if-none-match': tags[1] } })).statusCode,
        url,
      ).toBe(304);
      expect((await t.app.inject({ url, headers: { 'if-none-match': tags[2] } })).statusCode, url).toBe(304);
      // a cache holding several codings lists them all
      expect(
        (await t.app.inject({ url, headers: { 'accept-encoding': 'gzip', 'if-none-match': tags.join(', ') } }))
          .statusCode,
        url,
      ).toBe(304);

      // a tag of another coding is not this representation: the full answer, in the coding asked for
      const mixed = await t.app.inject({ url, headers: { 'accept-encoding': 'br', 'if-none-match': tags[2] } });
      expect(mixed.statusCode, url).toBe(200);
      expect(mixed.headers['content-encoding'], url).toBe('br');
      const mixed2 = await t.app.inject({ url, headers: { 'if-none-match': tags[0] } });
      expect(mixed2.statusCode, url).toBe(200);
      expect(mixed2.headers['content-encoding'], url).toBeUndefined();
    }
  });

  it('the share page varies on Accept-Encoding; one of 1 KB and more is compressed on the fly', async () => {
    const owner = (await registerUser(t.app)).token; // a plan's agent limit: not the other tests' account
    const small = await createAgent(t.app, owner, { name: 'Help desk' });
    const smallRes = await t.app.inject({ url: `/chat/${small.id}`, headers: { 'accept-encoding': 'br, gzip' } });
    expect(smallRes.statusCode).toBe(200);
    expect(varies(smallRes)).toBe(true);
    // ~0.6 KB: one packet either way, so it goes as is
    expect(smallRes.rawPayload.length).toBeLessThan(1024);
    expect(smallRes.headers['content-encoding']).toBeUndefined();
    expect(smallRes.body).toContain('<title>Chat with Help desk</title>');

    // a long name of characters HTML escapes makes a page over 1 KB
    const big = await createAgent(t.app, owner, { name: `Sales & Support ${'&<>'.repeat(25)}`.slice(0, 100) });
    const plain = await t.app.inject({ url: `/chat/${big.id}` });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(varies(plain)).toBe(true);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    expect(plain.body).toContain('<title>Chat with Sales &#38; Support');

    const br = await t.app.inject({ url: `/chat/${big.id}`, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(varies(br)).toBe(true);
    expect(br.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(br.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);

    const gz = await t.app.inject({ url: `/chat/${big.id}`, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);

    const refused = await t.app.inject({ url: `/chat/${big.id}`, headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.rawPayload.equals(plain.rawPayload)).toBe(true);
  });

  it("the API notes quote the widget bundle's brotli transfer size", () => {
    const notes = readFileSync(new URL('../../docs/API-NOTES.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const quoted = /bundle \(~(\d+) KB, ~(\d+) KB with brotli/.exec(notes);
    expect(quoted, 'docs/API-NOTES.md: "bundle (~N KB, ~M KB with brotli"').not.toBeNull();
    const { bundle } = loadWidgetAssets();
    const kb = (n: number) => n / 1024;
    expect(Math.abs(kb(bundle.body.length) - Number(quoted![1]))).toBeLessThan(kb(bundle.body.length) * 0.1);
    expect(bundle.encoded.br).toBeDefined();
    expect(Math.abs(kb(bundle.encoded.br!.body.length) - Number(quoted![2]))).toBeLessThan(
      kb(bundle.encoded.br!.body.length) * 0.1,
    );
  });
});
