import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

export function makeDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'chat-agent-test-'));
}

/**
 * The real app on a real SQLite file in its own temp DATA_DIR. `env` is the process environment
 * the app would see (REGISTRATION defaults to open here so tests can make several accounts).
 */
export async function startTestApp(opts: { env?: Record<string, string>; clock?: Clock; dataDir?: string } = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? makeDataDir();
  const config = loadConfig({ REGISTRATION: 'open', LOG_LEVEL: 'silent', ...opts.env, DATA_DIR: dataDir });
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

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}-${process.pid}@example.com`;
}

export const PASSWORD = 'correct horse battery';

/** Registers an account and returns its token. */
export async function registerUser(app: App, fields: { name?: string; email?: string; password?: string } = {}): Promise<{ token: string; email: string }> {
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

/** Creates an agent for `token` and returns its JSON. */
export async function createAgent(app: App, token: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await app.inject({ method: 'POST', url: '/api/chatbots', headers: auth(token), payload: { name: 'Support bot', ...body } });
  if (res.statusCode !== 201) throw new Error(`create agent failed: ${res.statusCode} ${res.body}`);
  return res.json();
}
