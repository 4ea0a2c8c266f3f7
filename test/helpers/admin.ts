import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { shot, withPage } from './browser.js';

/**
 * The admin UI in a browser test: logging in by token, and photographing a page at two widths.
 * This file compiles without the DOM library, so the page's globals used inside page.evaluate
 * callbacks (which run in the browser) are declared here.
 */
declare const document: any, localStorage: any, requestAnimationFrame: any;

/** Puts `token` where the admin UI keeps its session (admin-ui/src/api.ts), on the current page's origin. */
export async function setToken(page: Page, token: string): Promise<void> {
  await page.evaluate((tk) => localStorage.setItem('chat-agent.token', tk), token);
}

/** Goes to `origin`'s login route (to be on its origin) and stores `token` there. */
export async function storeToken(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/#/login`);
  await setToken(page, token);
}

/**
 * Opens `origin/<hash>` (hash as in '#/agents') logged in as `token`: the token stored, then a
 * fresh load through about:blank, not a hash change in the same document.
 */
export async function openLoggedIn(page: Page, origin: string, token: string, hash: string): Promise<void> {
  await storeToken(page, origin, token);
  await page.goto('about:blank');
  await page.goto(`${origin}/${hash}`);
}

/**
 * The errors logged since `from` are all the browser's note of a response with `status` (a
 * request the test made the server refuse on purpose); they are taken out of `errors`.
 */
export function expectRefusals(errors: string[], from: number, status: number): void {
  for (const e of errors.splice(from)) expect(e).toMatch(new RegExp(`status of ${status}\\b`));
}

/** Two animation frames: layout and ResizeObserver callbacks (the chart) have run. */
export const settle = (page: Page) =>
  page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

export interface ShootOptions {
  /** wait two animation frames before each photograph and after each resize back */
  settle?: boolean;
  /** the narrow viewport (default 375 × 760) */
  narrow?: { width: number; height: number };
  /** photograph the desktop view at 1280 × 800 and give the page back at the size it had, instead of leaving it at 1280 × 800 */
  keepViewport?: boolean;
}

/**
 * Screenshots of `page` at desktop width and at the narrow width (test-artifacts/<prefix>-<name>-*.png);
 * at the narrow width nothing may stick out sideways.
 */
export async function shootBothWidths(
  page: Page,
  prefix: string,
  name: string,
  opts: ShootOptions = {},
): Promise<void> {
  const narrow = opts.narrow ?? { width: 375, height: 760 };
  const wait = async () => {
    if (opts.settle) await settle(page);
  };
  const before = opts.keepViewport
    ? (page.viewportSize() ?? { width: 1280, height: 800 })
    : { width: 1280, height: 800 };
  if (opts.keepViewport) await page.setViewportSize({ width: 1280, height: 800 });
  await wait();
  await shot(page, `${prefix}-${name}-desktop.png`, { fullPage: true });
  await page.setViewportSize(narrow);
  await wait();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${name}: page width at ${narrow.width} px`).toBeLessThanOrEqual(narrow.width);
  await shot(page, `${prefix}-${name}-${narrow.width}.png`, { fullPage: true });
  await page.setViewportSize(before);
  await wait();
}

/**
 * withPage with the page at 1280 × 800 and logged in as `token` at `origin/<hash>` (openLoggedIn)
 * before `use`.
 */
export function withPageAs(
  context: BrowserContext,
  origin: string,
  token: string,
  hash: string,
  use: (page: Page, errors: string[]) => Promise<void>,
): Promise<void> {
  return withPage(context, async (page, errors) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openLoggedIn(page, origin, token, hash);
    await use(page, errors);
  });
}
