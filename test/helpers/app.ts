import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { Clock } from '../../src/platform/clock.js';
import { openDatabase, type AppDatabase } from '../../src/platform/db/index.js';

/** A clock the test moves by hand, so timeouts are tested without sleeping. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start = '2026-03-01T12:00:00.000Z') {
    this.current = Date.parse(start);
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(iso: string): void {
    this.current = Date.parse(iso);
  }
}

export interface TestApp {
  app: App;
  config: Config;
  database: AppDatabase;
  dataDir: string;
  clock: Clock;
  /** closes the app and the database; keeps the data dir (see `cleanup`) */
  close(): Promise<void>;
  /** close() and remove the data dir */
  cleanup(): Promise<void>;
}

export type StartOptions = { env?: Record<string, string>; clock?: Clock; dataDir?: string };

/** Something a test starts beside its apps and stops afterwards (a fake LLM, a local site, a mail server). */
export interface Closable {
  close(): Promise<void> | void;
}

/**
 * The apps a test file starts, cleaned up after each test (closed, data dir removed), newest first.
 * `start` takes startTestApp's options over the file's `defaults` (env merged); `add` adopts an app
 * started otherwise. `before` registers what the apps may be waiting on (a fake LLM, a local site):
 * it is closed first, so no app request hangs on it. `after` registers what the apps still talk to
 * while they stop (a mail server their queue sends to): it is closed once the apps are.
 */
export function useTestApps(defaults: StartOptions = {}) {
  const apps: TestApp[] = [];
  const first: Closable[] = [];
  const last: Closable[] = [];
  afterEach(async () => {
    for (const c of first.splice(0).reverse()) await c.close();
    for (const t of apps.splice(0).reverse()) await t.cleanup();
    for (const c of last.splice(0).reverse()) await c.close();
  }, 60_000);
  return {
    async start(opts: StartOptions = {}): Promise<TestApp> {
      const t = await startTestApp({ ...defaults, ...opts, env: { ...defaults.env, ...opts.env } });
      apps.push(t);
      return t;
    },
    add(t: TestApp): TestApp {
      apps.push(t);
      return t;
    },
    before<T extends Closable>(c: T): T {
      first.push(c);
      return c;
    },
    after<T extends Closable>(c: T): T {
      last.push(c);
      return c;
    },
  };
}

/**
 * One app for a whole file or describe block: started before its first test (then `ready` runs,
 * e.g. to register the accounts the tests share), cleaned up after its last.
 */
export function useSharedTestApp(opts: StartOptions, ready: (t: TestApp) => Promise<void> | void): void {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startTestApp(opts);
    await ready(t);
  }, 60_000);
  afterAll(async () => t?.cleanup(), 60_000);
}

/** A visitor's message to an agent's public chat (JSON answer); the answer must be 200. */
export async function say(t: TestApp, agentId: string, sessionId: string, message: string): Promise<any> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}`,
    payload: { message, session_id: sessionId },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export function makeDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'chat-agent-test-'));
}

/**
 * The real app on a real SQLite file in its own temp DATA_DIR. `env` is the process environment
 * the app would see (REGISTRATION defaults to open here so tests can make several accounts).
 */
export async function startTestApp(opts: StartOptions = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? makeDataDir();
  const config = loadConfig({ REGISTRATION: 'open', LOG_LEVEL: 'silent', ...opts.env, DATA_DIR: dataDir });
  if (!opts.env?.PLANS_FILE) config.plans = withoutRequestRates(config.plans);
  const database = openDatabase(config.databaseFile);
  const clock = opts.clock;
  const app = await buildApp({ config, database, clock, logger: false });
  await app.ready();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    database.close();
  };
  return {
    app,
    config,
    database,
    dataDir,
    clock: clock ?? { now: () => new Date() },
    close,
    cleanup: async () => {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The built-in plans with request rates high enough never to matter. Suites that are not about
 * rate limits send many requests from one address and account within a minute; the limits'
 * own tests give a small PLANS_FILE instead. Every other limit (agents, leads, messages) stays.
 */
function withoutRequestRates(plans: Config['plans']): Config['plans'] {
  return Object.fromEntries(
    Object.entries(plans).map(([id, plan]) => [
      id,
      { ...plan, requests_per_minute: 1_000_000, requests_per_hour: 1_000_000 },
    ]),
  );
}

/** A plan with limits roomy enough never to interfere (limits have their own tests); custom branding on. */
export const ROOMY_PLAN = {
  max_agents: 50,
  max_account_leads: 1000,
  monthly_messages: 100000,
  requests_per_minute: 100000,
  requests_per_hour: 1000000,
  custom_branding: true,
};

/** Writes `plans` as DATA_DIR/plans.json (for PLANS_FILE) and returns its path. */
export function writePlansFile(dataDir: string, plans: Record<string, typeof ROOMY_PLAN>): string {
  const file = path.join(dataDir, 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}-${process.pid}@example.com`;
}

export const PASSWORD = 'correct horse battery';

/** Registers an account and returns its token. */
export async function registerUser(
  app: App,
  fields: { name?: string; email?: string; password?: string } = {},
): Promise<{ token: string; email: string }> {
  const email = fields.email ?? uniqueEmail();
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { name: fields.name ?? 'Test User', email, password: fields.password ?? PASSWORD },
  });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  return { token: res.json().access_token, email };
}

export function auth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request as `token` (null: anonymous) with `payload` as its JSON body if given; the answer as it came. */
export function send(app: App, token: string | null, method: Method, url: string, payload?: unknown) {
  return app.inject({
    method,
    url,
    ...(token === null ? {} : { headers: auth(token) }),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** send() whose answer must have `status` (200 unless given); returns the answer's JSON. */
export async function sendExpect(
  app: App,
  token: string | null,
  method: Method,
  url: string,
  payload?: unknown,
  status = 200,
): Promise<any> {
  const res = await send(app, token, method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json();
}

/** A request as `token` that must succeed (any 2xx); returns the answer's JSON. */
export async function apiOk(
  app: App,
  token: string,
  method: Method,
  url: string,
  payload?: Record<string, unknown>,
): Promise<any> {
  const res = await app.inject({ method, url, headers: auth(token), ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
}

/** Creates an agent for `token` and returns its JSON. */
export async function createAgent(
  app: App,
  token: string,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/chatbots',
    headers: auth(token),
    payload: { name: 'Support bot', ...body },
  });
  if (res.statusCode !== 201) throw new Error(`create agent failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** An account and one agent of its own (createAgent's defaults, `body` on top). */
export async function accountWithAgent(
  app: App,
  body: Record<string, unknown> = {},
): Promise<{ token: string; email: string; agent: Record<string, any> }> {
  const account = await registerUser(app);
  return { ...account, agent: await createAgent(app, account.token, body) };
}

/** `body` has exactly the fields `keys` (sorted), no more, no fewer. */
export function expectKeys(body: Record<string, unknown>, keys: string[]): void {
  expect(Object.keys(body).sort()).toEqual(keys);
}

/** The answer must have `status`; its JSON, which must have exactly the fields `keys` when given. */
export function jsonOf(res: { statusCode: number; body: string; json(): any }, status = 200, keys?: string[]): any {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  if (keys) expectKeys(body, keys);
  return body;
}

/**
 * A multipart/form-data body encoded by the platform's own FormData: text fields, and file parts
 * given as `{ filename, content }`.
 */
export async function multipartForm(
  fields: Record<string, string | { filename: string; content: Uint8Array }>,
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, new Blob([value.content]), value.filename);
  }
  const encoded = new Response(data);
  return {
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  };
}

/** A teammate of the owner's account in `role`, invited by e-mail and joined with the link's token: their access token. */
export async function joinAs(
  t: TestApp,
  ownerToken: string,
  role: 'manager' | 'operator',
  email: string,
): Promise<string> {
  const inv = await sendExpect(t.app, ownerToken, 'POST', '/api/team/invitations', { email, role }, 201);
  const token = inv.link.split('token=')[1];
  const joined = await sendExpect(
    t.app,
    null,
    'POST',
    '/api/team/join',
    { token, name: role, password: PASSWORD },
    201,
  );
  return joined.access_token as string;
}
