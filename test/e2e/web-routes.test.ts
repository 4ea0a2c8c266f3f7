import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWidgetAssets } from '../../src/modules/web/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * The widget's files and the share page over HTTP: cache headers and content hash, the
 * cross-origin resource policy scripts on other sites need, and the share page's CSP.
 */

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp({ env: { EMBEDDINGS: 'none' } });
  token = (await registerUser(t.app)).token;
});
afterAll(async () => t.cleanup());

describe('widget scripts', () => {
  it('/widget.js is a short-cached loader with a strong ETag that names the hashed bundle', async () => {
    const res = await t.app.inject({ url: '/widget.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
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
    const res = await t.app.inject({ url: `/${bundle.fileName}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.rawPayload.equals(bundle.body)).toBe(true);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(res.rawPayload).digest('hex').slice(0, 16)).toBe(bundle.hash);
    expect((await t.app.inject({ url: `/${bundle.fileName}`, headers: { 'if-none-match': String(res.headers.etag) } })).statusCode).toBe(304);
  });

  it('a stale hash (a loader cached across an upgrade) gets the current bundle, cached briefly; junk is 404', async () => {
    const { bundle } = loadWidgetAssets();
    const stale = await t.app.inject({ url: '/widget-0123456789abcdef.js' });
    expect(stale.statusCode).toBe(200);
    expect(stale.headers['cache-control']).toBe('public, max-age=300');
    expect(stale.rawPayload.equals(bundle.body)).toBe(true);
    for (const url of ['/widget-XYZ.js', '/widget-.js', '/widget-0123456789abcdef.js.map', '/widget-../../package.json.js']) {
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
    expect(scripts[0]).toMatch(new RegExp(`^<script src="/widget-[0-9a-f]{16}\\.js" data-chatbot-id="${agent.id}" data-mode="page" defer></script>$`));
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
    await t.app.inject({ method: 'PUT', url: `/api/chatbots/${agent.id}`, headers: auth(token), payload: { public_access: false } });
    const hidden = await t.app.inject({ url: `/chat/${agent.id}`, headers: html });
    expect(hidden.statusCode).toBe(403);
    expect(hidden.body).toContain('This chat is not available.');
    expect(hidden.body).not.toContain('<script');
    expect((await t.app.inject({ url: `/chat/${agent.id}` })).json()).toEqual({ detail: expect.any(String) });
  });
});
