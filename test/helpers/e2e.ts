import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../../src/platform/clock.js';
import {
  apiOk,
  makeDataDir,
  registerUser,
  type ROOMY_PLAN,
  type StartOptions,
  startTestApp,
  type TestApp,
  writePlansFile,
} from './app.js';
import { launchBrowser, listenOnLoopback, type Browser } from './browser.js';
import { type FakeBehaviour, type FakeLlm, startFakeLlm } from './fake-llm.js';
import { freePort } from './smtp.js';
import { type HostPageOptions, startWidgetSite, widgetTurnDone } from './widget-page.js';

/**
 * The set-up a browser test file shares: the real app listening on 127.0.0.1, optionally a fake
 * OpenAI server behind it and an owner account, and Chromium; all of it, and every server the
 * file hands over, closed after the file's last test.
 */

type Json = Record<string, any>;

export interface E2eOptions {
  /**
   * The app's environment on top of EMBEDDINGS=none (and the fake model's, with `llm`). A function
   * runs in beforeAll, so it can start what the values point at (an SMTP server) first.
   */
  env?: Record<string, string> | (() => Promise<Record<string, string>>);
  clock?: Clock;
  /** a fake OpenAI server, started first, behaving so; the app's OPENAI_BASE_URL points at it */
  llm?: Partial<FakeBehaviour>;
  /** these plans in a plans file in the data dir (PLANS_FILE) instead of the built-in ones */
  plans?: Record<string, typeof ROOMY_PLAN>;
  /** register an account before the tests and keep its token (the server's first account, so its admin) */
  owner?: boolean;
  /** listen on a port picked first and give the app its own address as PUBLIC_URL (e-mailed links point there) */
  publicUrl?: boolean;
  /** more Chromium switches; false for a file that launches a browser of its own */
  browser?: { args?: string[] } | false;
}

export interface E2e {
  t: TestApp;
  /** http://127.0.0.1:<port> */
  appUrl: string;
  /** the owner's token (with `owner`) */
  token: string;
  browser: Browser;
  /** the fake model (with `llm`) */
  llm: FakeLlm;
  /** a request as the owner that must succeed; its JSON */
  api(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: Json): Promise<any>;
  /** a new agent as the API makes it (the defaults), with `settings` on top, as the owner */
  newAgent(settings?: Json): Promise<Json>;
  /** a customer's site embedding agent `agentId` with the one-line snippet; its URL (closed with the rest) */
  site(agentId: string, opts?: HostPageOptions): Promise<string>;
  /** closes `thing` after the file's tests, with the rest; gives it back */
  track<T extends { close(): Promise<void> }>(thing: T): T;
}

/** Registers the file's beforeAll and afterAll; the returned object is filled in by the beforeAll. */
export function useE2eApp(opts: E2eOptions = {}): E2e {
  const tracked: Array<{ close(): Promise<void> }> = [];
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  let llm: FakeLlm | undefined;
  const e2e = {
    api: (method, url, payload) => apiOk(e2e.t.app, e2e.token, method, url, payload),
    newAgent: async (settings = {}) => {
      const agent = await e2e.api('POST', '/api/chatbots', { name: 'Acme helper' });
      return Object.keys(settings).length ? e2e.api('PUT', `/api/chatbots/${agent.id}`, settings) : agent;
    },
    site: async (agentId, siteOpts) => e2e.track(await startWidgetSite(e2e.appUrl, agentId, siteOpts)).url,
    track: (thing) => {
      tracked.push(thing);
      return thing;
    },
  } as E2e;

  beforeAll(async () => {
    const env: Record<string, string> = { EMBEDDINGS: 'none' };
    let dataDir: string | undefined;
    if (opts.plans) {
      dataDir = makeDataDir();
      env.PLANS_FILE = writePlansFile(dataDir, opts.plans);
    }
    if (opts.llm) {
      e2e.llm = llm = await startFakeLlm('openai', opts.llm);
      env.OPENAI_API_KEY = 'sk-test-e2e';
      env.OPENAI_BASE_URL = llm.baseURL;
    }
    Object.assign(env, typeof opts.env === 'function' ? await opts.env() : opts.env);
    const port = opts.publicUrl ? await freePort() : undefined;
    if (port) env.PUBLIC_URL = `http://127.0.0.1:${port}`;
    e2e.t = t = await startTestApp({ env, clock: opts.clock, dataDir });
    if (port) await t.app.listen({ host: '127.0.0.1', port });
    e2e.appUrl = `http://127.0.0.1:${port ?? (await listenOnLoopback(t))}`;
    if (opts.owner) e2e.token = (await registerUser(t.app)).token;
    if (opts.browser !== false) e2e.browser = browser = await launchBrowser(opts.browser);
  }, 120_000); // an app and a Chromium start: slow on a busy machine

  afterAll(async () => {
    await browser?.close();
    for (const thing of tracked) await thing.close();
    await llm?.close();
    await t?.cleanup();
  }, 60_000);

  return e2e;
}

/**
 * Another app for one test (startTestApp's options) listening on 127.0.0.1: `use` gets it and its
 * URL; it is closed and its data dir removed afterwards, whatever happened.
 */
export async function withOwnApp(opts: StartOptions, use: (t: TestApp, url: string) => Promise<void>): Promise<void> {
  const t = await startTestApp(opts);
  try {
    await use(t, `http://127.0.0.1:${await listenOnLoopback(t)}`);
  } finally {
    await t.cleanup();
  }
}

/**
 * Sends `text` in the widget's `box` and waits until its answer is complete (`answers`: answers on
 * screen then, the welcome not counted).
 */
export async function ask(page: Page, box: Locator, text: string, answers: number): Promise<void> {
  const dialog = page.getByRole('dialog');
  await box.fill(text);
  await box.press('Enter');
  await expect.poll(() => dialog.locator('.msg.assistant:not(:has(.typing))').count()).toBe(answers + 1);
  await widgetTurnDone(page);
}
