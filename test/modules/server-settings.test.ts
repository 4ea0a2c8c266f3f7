import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerSettings } from '../../src/modules/settings/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp, send, accountWithAgent } from '../helpers/app.js';
import { withTimeout } from '../helpers/server-process.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { freePort, smtpUrl, startSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * Server settings (issue 22.2): an admin sets provider keys and the mail server in the API, they
 * are stored encrypted with DATA_DIR/settings-key and applied without a restart; the environment
 * wins; no answer ever carries a key. The real app on a real SQLite file, fake provider servers
 * and a real SMTP server on loopback.
 */

type Json = Record<string, any>;

const KEY = 'sk-live-ABCDEFGHIJKLMNOPQRSTUVWX-9Zq7';
const OTHER_KEY = 'sk-live-ZYXWVUTSRQPONMLKJIHGFEDC-4Kp2';
const SMTP_PASSWORD = 'mail-pass-Secr3t-Value';

const apps: TestApp[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const t of apps.splice(0).reverse()) await t.cleanup();
  for (const close of closers.splice(0)) await close();
}, 60_000);

async function app(env: Record<string, string> = {}, dataDir?: string): Promise<TestApp> {
  const t = await startTestApp({ env: { EMBEDDINGS: 'none', ...env }, ...(dataDir ? { dataDir } : {}) });
  apps.push(t);
  return t;
}

/** The same data dir again, as after a restart (the first app closed, its folder kept). */
async function restart(t: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  await t.close();
  apps.splice(apps.indexOf(t), 1);
  return app(env, t.dataDir);
}

async function fakeLlm(name: 'openai' | 'anthropic' | 'ollama', reply: string): Promise<FakeLlm> {
  const f = await startFakeLlm(name, { reply });
  closers.push(() => f.close());
  return f;
}

async function smtpServer(): Promise<TestSmtp> {
  const s = await startSmtp();
  closers.push(() => s.close());
  return s;
}

const within = <T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> => withTimeout(promise, ms, what);

async function call(
  t: TestApp,
  token: string | null,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  payload?: Json,
) {
  return t.app.inject({ method, url, headers: token ? auth(token) : {}, ...(payload ? { payload } : {}) });
}

/**
 * A new app whose owner has an agent and saved an openai key (the server at `fake`) and an SMTP
 * URL in the admin settings.
 */
async function savedSettings(fake: FakeLlm) {
  const first = await app();
  const { token, agent } = await accountWithAgent(first.app, { name: 'Sales' });
  const provider = { api_key: KEY, base_url: fake.baseURL };
  expect((await call(first, token, 'PUT', '/api/admin/settings/providers/openai', provider)).statusCode).toBe(200);
  expect(
    (await call(first, token, 'PUT', '/api/admin/settings/smtp', { url: 'smtp://127.0.0.1:2525' })).statusCode,
  ).toBe(200);
  return { first, token, agent };
}

async function settings(t: TestApp, token: string): Promise<Json> {
  const res = await call(t, token, 'GET', '/api/admin/settings');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function status(t: TestApp, token: string): Promise<Json> {
  const res = await call(t, token, 'GET', '/api/system/status');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function ownerChat(t: TestApp, token: string, agentId: string, message = 'Hello?'): Promise<string> {
  const res = await call(t, token, 'POST', '/api/chat', { message, chatbot_id: agentId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().message;
}

/** The database file and its WAL, as bytes (a value may still be in the WAL). */
function databaseBytes(t: TestApp): Buffer {
  const files = [t.config.databaseFile, `${t.config.databaseFile}-wal`].filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

describe('provider keys set in the admin API', () => {
  it('an agent on openai answers through the saved key and base URL at once, and follows a replaced or removed key', async () => {
    const fake = await fakeLlm('openai', 'Answer from the saved key.');
    const t = await app();
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token, { name: 'Sales', provider: 'openai' });

    // nothing configured: the knowledge base answers, no provider is asked
    await ownerChat(t, token, agent.id);
    expect(fake.requests).toHaveLength(0);
    expect((await status(t, token)).providers.openai).toBe(false);

    const put = await call(t, token, 'PUT', '/api/admin/settings/providers/openai', {
      api_key: KEY,
      base_url: fake.baseURL,
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({
      source: 'database',
      configured: true,
      hint: `…${KEY.slice(-4)}`,
      stored: 'readable',
      env_variable: 'OPENAI_API_KEY',
      base_url: fake.baseURL,
    });
    expect(put.body).not.toContain(KEY);

    expect(await ownerChat(t, token, agent.id)).toBe('Answer from the saved key.');
    expect(fake.requests.filter((r) => r.kind === 'chat')).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const s = await status(t, token);
    expect(s.providers.openai).toBe(true);
    expect(s.knowledge_only).toBe(false);
    expect(s.configured_by).toMatchObject({ openai: 'database', anthropic: 'none', mail: 'none' });

    // replaced: the next turn goes out with the new key (the client is made anew)
    expect(
      (
        await call(t, token, 'PUT', '/api/admin/settings/providers/openai', {
          api_key: OTHER_KEY,
          base_url: fake.baseURL,
        })
      ).statusCode,
    ).toBe(200);
    await ownerChat(t, token, agent.id);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OTHER_KEY}`);

    // removed: back to the knowledge base, nothing more reaches the provider
    const del = await call(t, token, 'DELETE', '/api/admin/settings/providers/openai');
    expect(del.statusCode, del.body).toBe(204);
    const asked = fake.requests.length;
    await ownerChat(t, token, agent.id);
    expect(fake.requests).toHaveLength(asked);
    expect((await status(t, token)).providers.openai).toBe(false);
    expect((await settings(t, token)).providers.openai).toMatchObject({
      source: 'none',
      configured: false,
      hint: null,
      stored: 'none',
    });
  });

  it('the test call answers 200 through the provider, 502 with its refusal, 409 when nothing is configured', async () => {
    const fake = await fakeLlm('anthropic', 'OK');
    const t = await app();
    const { token } = await registerUser(t.app);
    const none = await call(t, token, 'POST', '/api/admin/settings/providers/anthropic/test', {});
    expect(none.statusCode, none.body).toBe(409);
    expect(none.json().detail).toMatch(/not configured/);

    expect(
      (await call(t, token, 'PUT', '/api/admin/settings/providers/anthropic', { api_key: KEY, base_url: fake.baseURL }))
        .statusCode,
    ).toBe(200);
    const ok = await call(t, token, 'POST', '/api/admin/settings/providers/anthropic/test', {});
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().model).toBe('claude-3-5-haiku-latest');
    const asked = fake.requests.at(-1)!;
    expect(asked.body.max_tokens).toBe(1);
    expect(asked.headers.authorization ?? asked.headers['x-api-key']).toContain(KEY);

    fake.setBehaviour({ failTimes: 10, failStatus: 401 });
    const refused = await call(t, token, 'POST', '/api/admin/settings/providers/anthropic/test', {
      model: 'claude-test',
    });
    expect(refused.statusCode, refused.body).toBe(502);
    expect(refused.json().detail).toMatch(/anthropic.*401.*refused/);
    expect(refused.body).not.toContain(KEY);
  });

  it('the test call takes a key typed but not saved (issue 31 owner 9): tried as given, nothing stored', async () => {
    const fake = await fakeLlm('openai', 'OK');
    const t = await app();
    const { token } = await registerUser(t.app);
    const draft = await call(t, token, 'POST', '/api/admin/settings/providers/openai/test', {
      api_key: KEY,
      base_url: fake.baseURL,
    });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().detail).toMatch(/not saved/);
    expect(draft.body).not.toContain(KEY);
    const asked = fake.requests.at(-1)!;
    expect(asked.headers.authorization).toContain(KEY);
    // nothing was saved: the provider is still not configured, and no chat uses the key
    expect((await settings(t, token)).providers.openai).toMatchObject({ stored: 'none', configured: false });
    expect((await status(t, token)).knowledge_only).toBe(true);
    const unsaved = await call(t, token, 'POST', '/api/admin/settings/providers/openai/test', {});
    expect(unsaved.statusCode).toBe(409);

    // a typed key the provider refuses: 502 with its reason, never the key
    fake.setBehaviour({ failTimes: 1, failStatus: 401 });
    const refused = await call(t, token, 'POST', '/api/admin/settings/providers/openai/test', {
      api_key: OTHER_KEY,
      base_url: fake.baseURL,
    });
    expect(refused.statusCode, refused.body).toBe(502);
    expect(refused.body).not.toContain(OTHER_KEY);

    // Ollama: a typed host
    const ollama = await fakeLlm('ollama', 'OK');
    const host = await call(t, token, 'POST', '/api/admin/settings/providers/ollama/test', { host: ollama.url });
    expect(host.statusCode, host.body).toBe(200);
    expect((await settings(t, token)).providers.ollama.stored).toBe('none');
    // fields are checked as when saving
    for (const [url, payload, field] of [
      ['/api/admin/settings/providers/openai/test', { api_key: 'has a space' }, /api_key/],
      ['/api/admin/settings/providers/openai/test', { api_key: KEY, base_url: 'ftp://x.example/v1' }, /base_url/],
      ['/api/admin/settings/providers/ollama/test', { host: 'file:///etc/passwd' }, /host/],
    ] as const) {
      const res = await call(t, token, 'POST', url, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().detail).toMatch(field);
    }
  });

  it('a typed key is refused (409) for a provider the environment sets: that key would not be the one in use', async () => {
    const fake = await fakeLlm('openai', 'OK');
    const t = await app({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseURL });
    const { token } = await registerUser(t.app);
    const res = await call(t, token, 'POST', '/api/admin/settings/providers/openai/test', { api_key: OTHER_KEY });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().detail).toMatch(/OPENAI_API_KEY/);
    expect((await call(t, token, 'POST', '/api/admin/settings/providers/openai/test', {})).statusCode).toBe(200);
  });

  it('Ollama takes a host; fields are checked with a 400 naming them, never a 5xx', async () => {
    const fake = await fakeLlm('ollama', 'Hi from ollama.');
    const t = await app();
    const { token } = await registerUser(t.app);
    const bad: Array<[string, Json, RegExp]> = [
      ['/api/admin/settings/providers/openai', {}, /api_key/],
      ['/api/admin/settings/providers/openai', { api_key: '' }, /api_key/],
      ['/api/admin/settings/providers/openai', { api_key: 'has a space' }, /api_key/],
      ['/api/admin/settings/providers/openai', { api_key: 'k'.repeat(501) }, /api_key/],
      ['/api/admin/settings/providers/openai', { api_key: KEY, base_url: 'ftp://example.com/v1' }, /base_url/],
      ['/api/admin/settings/providers/openai', { api_key: KEY, base_url: 'not a url' }, /base_url/],
      ['/api/admin/settings/providers/ollama', { api_key: KEY }, /host/],
      ['/api/admin/settings/providers/ollama', { host: 'file:///etc/passwd' }, /host/],
      ['/api/admin/settings/providers/mistral', { api_key: KEY }, /provider/],
      ['/api/admin/settings/smtp', { url: 'http://mail.example.com' }, /url/],
      ['/api/admin/settings/smtp', { url: 'smtp://' }, /url/],
      ['/api/admin/settings/smtp', { url: 'smtp://mail.example.com', from: 'no-at-sign' }, /from/],
      ['/api/admin/settings/smtp', { url: 'smtp://mail.example.com', from: 'a@b.c\r\nBcc: x@y.z' }, /from/],
    ];
    for (const [url, payload, field] of bad) {
      const res = await call(t, token, 'PUT', url, payload);
      expect(res.statusCode, `${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(res.json().detail, url).toMatch(field);
    }
    const smtpTest = await call(t, token, 'POST', '/api/admin/settings/smtp/test', { to: 'not an address' });
    expect(smtpTest.statusCode).toBe(400);
    expect((await settings(t, token)).providers.openai.stored).toBe('none');

    const put = await call(t, token, 'PUT', '/api/admin/settings/providers/ollama', { host: fake.url });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({
      source: 'database',
      configured: true,
      hint: fake.url,
      env_variable: 'OLLAMA_HOST',
    });
    const agent = await createAgent(t.app, token, { name: 'Local', provider: 'ollama' });
    expect(await ownerChat(t, token, agent.id)).toBe('Hi from ollama.');
  });
});

describe('what is stored, and where', () => {
  it('no answer holds a key or password; the database file holds neither in plain text; settings-key is 0600', async () => {
    const t = await app();
    const { token } = await registerUser(t.app);
    // made at the first start, for the VAPID private key (Web Push; docs/API-NOTES.md "Notifications")
    expect(statSync(path.join(t.dataDir, 'settings-key')).mode & 0o777).toBe(0o600);
    const smtp = `smtp://alerts%40example.com:${SMTP_PASSWORD}@127.0.0.1:2525/?ignoreTLS=true`;
    expect((await call(t, token, 'PUT', '/api/admin/settings/providers/openai', { api_key: KEY })).statusCode).toBe(
      200,
    );
    expect(
      (await call(t, token, 'PUT', '/api/admin/settings/providers/google', { api_key: OTHER_KEY })).statusCode,
    ).toBe(200);
    const put = await call(t, token, 'PUT', '/api/admin/settings/smtp', {
      url: smtp,
      from: 'Alerts <alerts@example.com>',
    });
    expect(put.statusCode, put.body).toBe(200);

    const res = await call(t, token, 'GET', '/api/admin/settings');
    for (const secret of [KEY, OTHER_KEY, SMTP_PASSWORD, 'ignoreTLS']) expect(res.body).not.toContain(secret);
    const body = res.json();
    expect(body.providers.openai).toMatchObject({ source: 'database', hint: '…9Zq7', base_url: null });
    expect(body.providers.google).toMatchObject({ source: 'database', hint: '…4Kp2', env_variable: 'GEMINI_API_KEY' });
    expect(body.smtp).toMatchObject({
      source: 'database',
      configured: true,
      hint: 'smtp://alerts%40example.com@127.0.0.1:2525',
      from: 'Alerts <alerts@example.com>',
      env_variable: 'SMTP_URL',
    });
    expect(body.embeddings).toBe('none');
    const statusBody = (await call(t, token, 'GET', '/api/system/status')).body;
    for (const secret of [KEY, OTHER_KEY, SMTP_PASSWORD]) expect(statusBody).not.toContain(secret);

    const bytes = databaseBytes(t);
    expect(bytes.length).toBeGreaterThan(0);
    for (const secret of [KEY, OTHER_KEY, SMTP_PASSWORD])
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
    const rows = t.database.sqlite
      .prepare('SELECT key, value_encrypted, updated_by FROM app_settings ORDER BY key')
      .all() as Json[];
    expect(rows.map((r) => r.key)).toEqual(['provider.google', 'provider.openai', 'smtp']);

    const keyFile = path.join(t.dataDir, 'settings-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32);

    // a key file made readable by others (copied with a loose umask) is tightened at the next start
    chmodSync(keyFile, 0o644);
    const again = await restart(t);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect((await settings(again, token)).providers.openai.stored).toBe('readable');
  });

  it('after a restart on the same data dir the saved settings still apply', async () => {
    const fake = await fakeLlm('openai', 'Still here after the restart.');
    const { first, token, agent } = await savedSettings(fake);

    const second = await restart(first);
    expect(await ownerChat(second, token, agent.id)).toBe('Still here after the restart.');
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    const s = await status(second, token);
    expect(s.configured_by).toMatchObject({ openai: 'database', mail: 'database' });
    expect(s.mail.configured).toBe(true);
  });

  it('with settings-key gone the stored values are unreadable: reported, ignored, no crash; saving again works', async () => {
    const fake = await fakeLlm('openai', 'From the re-entered key.');
    const { first, token, agent } = await savedSettings(fake);
    await first.close();
    rmSync(path.join(first.dataDir, 'settings-key'));

    // one warning line names what cannot be read
    const warnings: unknown[][] = [];
    const log = {
      warn: (...args: unknown[]) => warnings.push(args),
      error: () => {},
      info: () => {},
      debug: () => {},
    } as never;
    const probeDb = (await import('../../src/platform/db/index.js')).openDatabase(first.config.databaseFile);
    try {
      new ServerSettings({ db: probeDb.db, config: first.config, clock: { now: () => new Date() }, log });
    } finally {
      probeDb.close();
    }
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toMatch(/provider\.openai.*smtp.*cannot be read.*missing/);

    apps.splice(apps.indexOf(first), 1);
    const second = await app({}, first.dataDir);
    const body = await settings(second, token);
    expect(body.providers.openai).toMatchObject({
      source: 'none',
      configured: false,
      stored: 'unreadable',
      hint: null,
    });
    expect(body.smtp).toMatchObject({ source: 'none', configured: false, stored: 'unreadable' });
    const s = await status(second, token);
    expect(s.providers.openai).toBe(false);
    expect(s.mail.configured).toBe(false);
    await ownerChat(second, token, agent.id); // the knowledge base answers
    expect(fake.requests).toHaveLength(0);

    // entered again: a new key file, and the value applies
    expect(
      (
        await call(second, token, 'PUT', '/api/admin/settings/providers/openai', {
          api_key: KEY,
          base_url: fake.baseURL,
        })
      ).statusCode,
    ).toBe(200);
    expect(statSync(path.join(second.dataDir, 'settings-key')).mode & 0o777).toBe(0o600);
    expect(await ownerChat(second, token, agent.id)).toBe('From the re-entered key.');
    expect((await settings(second, token)).smtp.stored).toBe('unreadable'); // until it is entered again too
  });
});

describe('the environment wins', () => {
  it('a provider or SMTP set in the environment refuses a saved value (409) and the settings say where it comes from', async () => {
    const envKey = 'sk-env-0123456789-abcdefWXYZ';
    const t = await app({ OPENAI_API_KEY: envKey, SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'env@example.com' });
    const { token } = await registerUser(t.app);

    const put = await call(t, token, 'PUT', '/api/admin/settings/providers/openai', { api_key: KEY });
    expect(put.statusCode, put.body).toBe(409);
    expect(put.json().detail).toMatch(/OPENAI_API_KEY is set in the server's environment.*wins/);
    const smtp = await call(t, token, 'PUT', '/api/admin/settings/smtp', { url: 'smtp://other.example.com' });
    expect(smtp.statusCode, smtp.body).toBe(409);
    expect(smtp.json().detail).toMatch(/SMTP_URL/);
    // a provider the environment leaves unset can still be saved
    expect((await call(t, token, 'PUT', '/api/admin/settings/providers/anthropic', { api_key: KEY })).statusCode).toBe(
      200,
    );

    const res = await call(t, token, 'GET', '/api/admin/settings');
    expect(res.body).not.toContain(envKey);
    const body = res.json();
    expect(body.providers.openai).toMatchObject({
      source: 'environment',
      configured: true,
      env_variable: 'OPENAI_API_KEY',
      hint: '…WXYZ',
      stored: 'none',
    });
    expect(body.providers.anthropic).toMatchObject({ source: 'database', configured: true });
    expect(body.smtp).toMatchObject({
      source: 'environment',
      configured: true,
      from: 'env@example.com',
      hint: 'smtp://127.0.0.1:2525',
    });
    expect(
      t.database.sqlite
        .prepare("SELECT count(*) AS n FROM app_settings WHERE key IN ('provider.openai', 'smtp')")
        .get(),
    ).toEqual({ n: 0 });
    expect((await status(t, token)).configured_by).toEqual({
      openai: 'environment',
      anthropic: 'database',
      google: 'none',
      ollama: 'none',
      mail: 'environment',
    });
  });
});

describe('admins only', () => {
  it('another account gets 403 on every settings route and sees nothing; no token is 401', async () => {
    const t = await app();
    const admin = await registerUser(t.app);
    const other = await registerUser(t.app);
    expect(
      (await call(t, admin.token, 'PUT', '/api/admin/settings/providers/openai', { api_key: KEY })).statusCode,
    ).toBe(200);
    const routes: Array<[method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: Json]> = [
      ['GET', '/api/admin/settings'],
      ['PUT', '/api/admin/settings/providers/openai', { api_key: OTHER_KEY }],
      ['DELETE', '/api/admin/settings/providers/openai'],
      ['POST', '/api/admin/settings/providers/openai/test', {}],
      ['PUT', '/api/admin/settings/smtp', { url: 'smtp://127.0.0.1:2525' }],
      ['DELETE', '/api/admin/settings/smtp'],
      ['POST', '/api/admin/settings/smtp/test', {}],
    ];
    for (const [method, url, body] of routes) {
      const res = await call(t, other.token, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().detail).toBe('Admin role required');
      expect(res.body).not.toContain(KEY.slice(-4));
      expect((await call(t, null, method, url, body)).statusCode, `${method} ${url} without a token`).toBe(401);
    }
    const body = await settings(t, admin.token);
    expect(body.providers.openai).toMatchObject({ source: 'database', hint: `…${KEY.slice(-4)}` });
    expect(body.smtp.stored).toBe('none');
  });
});

describe('the mail server set in the admin API', () => {
  it('a lead alert queued before mail was configured goes out once SMTP is saved, without a restart', async () => {
    const server = await smtpServer();
    const t = await app({ SMTP_FROM: 'alerts@chat-agent.test' });
    const { token, email } = await registerUser(t.app);
    const agent = await createAgent(t.app, token, { name: 'Leads bot' });
    const put = await call(t, token, 'PUT', `/api/chatbots/${agent.id}`, {
      email_alerts_enabled: true,
      email_alert_address: email,
    });
    expect(put.statusCode, put.body).toBe(200);
    const lead = await send(t.app, null, 'POST', `/api/public/lead/${agent.id}`, {
      name: 'Jane Doe',
      phone: '+1 555 0100',
    });
    expect(lead.statusCode, lead.body).toBe(200);
    expect((await status(t, token)).mail).toEqual({ configured: false, pending: 1 });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/password-reset' })).json()).toEqual({
      available: false,
    });

    const arrived = server.waitFor(1);
    const saved = await call(t, token, 'PUT', '/api/admin/settings/smtp', { url: server.url });
    expect(saved.statusCode, saved.body).toBe(200);
    const mail = await within(arrived, 'the held-back lead alert');
    expect(mail.to).toEqual([email]);
    expect(mail.from).toBe('alerts@chat-agent.test'); // no sender stored: SMTP_FROM
    expect(mail.body).toContain('Jane Doe');
    await t.app.mailJobs.idle();
    const s = await status(t, token);
    expect(s.mail).toEqual({ configured: true, pending: 0 });
    expect(s.configured_by.mail).toBe('database');
    // reset links can go out now too
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/password-reset' })).json()).toEqual({
      available: true,
    });
  });

  it('the test message: 200 delivered to the admin (or `to`), 502 with the error when the server is down, 409 unconfigured', async () => {
    const server = await smtpServer();
    const t = await app();
    const { token, email } = await registerUser(t.app);
    const unconfigured = await call(t, token, 'POST', '/api/admin/settings/smtp/test', {});
    expect(unconfigured.statusCode, unconfigured.body).toBe(409);

    expect(
      (
        await call(t, token, 'PUT', '/api/admin/settings/smtp', {
          url: server.url,
          from: 'Server <server@chat-agent.test>',
        })
      ).statusCode,
    ).toBe(200);
    const sent = await call(t, token, 'POST', '/api/admin/settings/smtp/test', {});
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ detail: `A test message was sent to ${email}.`, to: email });
    const mail = await within(server.waitFor(1), 'the test message');
    expect(mail.to).toEqual([email]);
    expect(mail.from).toBe('server@chat-agent.test');
    expect(mail.subject).toMatch(/test message/i);
    const elsewhere = await call(t, token, 'POST', '/api/admin/settings/smtp/test', { to: 'someone@example.org' });
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    expect((await within(server.waitFor(2), 'the second test message')).to).toEqual(['someone@example.org']);

    // a port nobody listens on, with a password in the URL: 502, the error, no password
    const dead = await freePort();
    const url = smtpUrl(dead).replace('smtp://', `smtp://user:${SMTP_PASSWORD}@`);
    expect((await call(t, token, 'PUT', '/api/admin/settings/smtp', { url })).statusCode).toBe(200);
    const failed = await call(t, token, 'POST', '/api/admin/settings/smtp/test', {});
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json().detail).toMatch(/did not take the test message: .*ECONNREFUSED/);
    expect(failed.body).not.toContain(SMTP_PASSWORD);

    // removed: mail is unconfigured again
    expect((await call(t, token, 'DELETE', '/api/admin/settings/smtp')).statusCode).toBe(204);
    expect((await status(t, token)).mail.configured).toBe(false);
    expect((await call(t, token, 'POST', '/api/admin/settings/smtp/test', {})).statusCode).toBe(409);
  });
});
