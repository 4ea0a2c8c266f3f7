import { describe, expect, it } from 'vitest';
import { auth, registerUser, useTestApps } from '../helpers/app.js';
import { ADMIN_CSP } from '../../src/modules/admin-ui/routes.js';

const apps = useTestApps();
const start = (env: Record<string, string> = {}) => apps.start({ env });

describe('GET /api/auth/registration', () => {
  it('first-only: open until the first account exists, then closed', async () => {
    const t = await start({ REGISTRATION: 'first-only' });
    const before = await t.app.inject({ method: 'GET', url: '/api/auth/registration' });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ registration: 'first-only', open: true, has_accounts: false });
    await registerUser(t.app);
    const after = await t.app.inject({ method: 'GET', url: '/api/auth/registration' });
    expect(after.json()).toEqual({ registration: 'first-only', open: false, has_accounts: true });
    // and the answer matches what register does
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'Second', email: 'second@example.com', password: 'long enough password' },
    });
    expect(second.statusCode).toBe(403);
  });

  it('open stays open; closed is closed even with no account; has_accounts says whether any exists', async () => {
    const open = await start({ REGISTRATION: 'open' });
    expect((await open.app.inject({ method: 'GET', url: '/api/auth/registration' })).json()).toEqual({
      registration: 'open',
      open: true,
      has_accounts: false,
    });
    await registerUser(open.app);
    expect((await open.app.inject({ method: 'GET', url: '/api/auth/registration' })).json()).toEqual({
      registration: 'open',
      open: true,
      has_accounts: true,
    });
    const closed = await start({ REGISTRATION: 'closed' });
    expect((await closed.app.inject({ method: 'GET', url: '/api/auth/registration' })).json()).toEqual({
      registration: 'closed',
      open: false,
      has_accounts: false,
    });
  });
});

describe('GET /api/system/status', () => {
  it('needs a token', async () => {
    const t = await start();
    const res = await t.app.inject({ method: 'GET', url: '/api/system/status' });
    expect(res.statusCode).toBe(401);
  });

  it('with nothing configured: knowledge-only answers, keyword search, mail not configured', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    // the start-up integrity check has ended
    await t.app.integrity.checkNow();
    const res = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      providers: { openai: false, anthropic: false, google: false, ollama: false },
      knowledge_only: true,
      embeddings: 'none',
      mail: { configured: false, pending: 0 },
      configured_by: { openai: 'none', anthropic: 'none', google: 'none', ollama: 'none', mail: 'none' },
      plans: ['free', 'starter', 'pro', 'owner'],
      public_url: 'http://localhost:3000',
      public_url_configured: false,
      database: { state: 'ok', detail: null, integrity_checked_at: expect.any(String) },
      backups: { scheduled: false },
      tests: { regressions: 0 },
    });
  });

  it('names configured providers and mail without revealing any key', async () => {
    const t = await start({
      ANTHROPIC_API_KEY: 'sk-ant-secret-value',
      OLLAMA_HOST: 'http://127.0.0.1:11434',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      SMTP_FROM: 'alerts@example.com',
      PUBLIC_URL: 'https://chat.example.com',
    });
    const { token } = await registerUser(t.app);
    const res = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.providers).toEqual({ openai: false, anthropic: true, google: false, ollama: true });
    expect(body.knowledge_only).toBe(false);
    expect(body.mail.configured).toBe(true);
    expect(body.configured_by).toEqual({
      openai: 'none',
      anthropic: 'environment',
      google: 'none',
      ollama: 'environment',
      mail: 'environment',
    });
    expect(body.public_url).toBe('https://chat.example.com');
    expect(body.public_url_configured).toBe(true);
    expect(res.body).not.toContain('sk-ant-secret-value');
    expect(res.body).not.toContain('smtp://');
  });

  it("counts the account's own lead alerts waiting for mail, not other accounts'", async () => {
    const t = await start();
    const { token } = await registerUser(t.app, { email: 'owner@example.com' });
    const other = await registerUser(t.app);
    const agent = await t.app.inject({
      method: 'POST',
      url: '/api/chatbots',
      headers: auth(token),
      payload: { name: 'Alerts' },
    });
    const id = agent.json().id;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${id}`,
      headers: auth(token),
      payload: { email_alerts_enabled: true, email_alert_address: 'owner@example.com' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const lead = await t.app.inject({
      method: 'POST',
      url: `/api/public/lead/${id}`,
      payload: { name: 'Ann', phone: '+1 555 0100' },
    });
    expect(lead.statusCode, lead.body).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
    expect(res.json().mail).toEqual({ configured: false, pending: 1 });
    const theirs = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(other.token) });
    expect(theirs.json().mail).toEqual({ configured: false, pending: 0 });
  });

  it('is in the OpenAPI document with its response schema', async () => {
    const t = await start();
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const status = doc.paths['/api/system/status'].get;
    expect(Object.keys(status.responses['200'].content['application/json'].schema.properties).sort()).toEqual([
      'backups',
      'configured_by',
      'database',
      'embeddings',
      'knowledge_only',
      'mail',
      'plans',
      'providers',
      'public_url',
      'public_url_configured',
      'tests',
    ]);
    expect(doc.paths['/api/auth/registration'].get.responses['200']).toBeDefined();
  });
});

describe('admin UI files', () => {
  it('serves index.html at / with no-cache and a strict CSP', async () => {
    const t = await start();
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toBe(ADMIN_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    // no inline script or event handler: everything comes from the hashed files
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.body).not.toMatch(/\son[a-z]+=/i);
    expect(res.body).not.toMatch(/<style/);
  });

  it('serves the hashed assets it names with long immutable caching and revalidates by ETag', async () => {
    const t = await start();
    const index = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => /\/assets\/main-[A-Z0-9]+\.js$/.test(a))).toBe(true);
    expect(assets.some((a) => /\/assets\/app-[A-Z0-9]+\.css$/.test(a))).toBe(true);
    for (const url of assets) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type'], url).toMatch(url.endsWith('.js') ? /^application\/javascript/ : /^text\/css/);
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } });
      expect(again.statusCode, url).toBe(304);
    }
  });

  it('answers 404 for files it does not have, and never serves outside its folder', async () => {
    const t = await start();
    for (const url of [
      '/assets/nope.js',
      '/assets/..%2F..%2Fpackage.json',
      '/assets/%2e%2e%2fpackage.json',
      '/assets/../package.json',
      '/index.html',
      '/assets/',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('"dependencies"');
    }
  });

  it('is not rate limited (static bytes), while the API the page calls is', async () => {
    const t = await apps.start({ env: {} });
    // the test app lifts request rates; a plan with 2 per minute puts them back for this check
    t.config.plans.free!.requests_per_minute = 2;
    for (let i = 0; i < 5; i++) expect((await t.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    const api = [];
    for (let i = 0; i < 3; i++)
      api.push((await t.app.inject({ method: 'GET', url: '/api/auth/registration' })).statusCode);
    expect(api).toEqual([200, 200, 429]);
  });
});
