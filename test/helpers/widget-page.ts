import type { Locator, Page } from 'playwright-core';
import { startSite, type TinyServer } from './browser.js';

// the page's globals, in functions Playwright runs in the page (the tests' TypeScript has no DOM lib)
declare const document: any;

/**
 * A customer's page with the widget on it, and the waits a widget test needs. The widget lives in
 * a shadow root, so the waits that look inside it are JS source run in the page.
 */

export interface HostPageOptions {
  /** the page's <html lang> */
  lang?: string;
  /** more markup at the end of <head> */
  head?: string;
  /** more paths the site serves */
  extraPages?: Record<string, { type: string; body: string }>;
  /** more attributes of the embed tag (already escaped), e.g. a verified visitor's data-user-* */
  scriptAttributes?: string;
}

/** A site whose '/' embeds agent `agentId` with the one-line snippet, loading the widget from `appUrl`. */
export function startWidgetSite(appUrl: string, agentId: string, opts: HostPageOptions = {}): Promise<TinyServer> {
  const html = opts.lang ? `<html lang="${opts.lang}">` : '<html>';
  return startSite({
    '/': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html>${html}<head><meta charset="utf-8"><title>Acme</title>${opts.head ?? ''}</head><body><h1>Acme</h1>
<script src="${appUrl}/widget.js" data-chatbot-id="${agentId}"${opts.scriptAttributes ? ` ${opts.scriptAttributes}` : ''} defer></script></body></html>`,
    },
    ...opts.extraPages,
  });
}

/** An empty favicon: the browser asks for one, and a 404 is a console error on the visitor's page. */
export const FAVICON = { '/favicon.ico': { type: 'image/x-icon', body: '' } };

/** Opens the widget on `url` (its launcher is the button named "chat") and returns its window. */
export async function openWidget(page: Page, url: string): Promise<Locator> {
  await page.goto(url);
  await page.getByRole('button', { name: /chat/i }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  return dialog;
}

// The waits below pass functions, not strings: Playwright polls a string predicate with eval in
// the page, which a page whose CSP has no 'unsafe-eval' (the share page) refuses whenever the
// first check is not already true.

/** No turn is in progress: the widget's log is missing or not aria-busy. */
export const widgetIdle = (page: Page) =>
  page.waitForFunction(
    () =>
      document.querySelector('chat-agent-widget')?.shadowRoot?.querySelector('.log')?.getAttribute('aria-busy') !==
      'true',
  );

/** Types `text` in the widget's message box, sends it and waits until the turn is over. */
export async function askWidget(page: Page, dialog: Locator, text: string): Promise<void> {
  await dialog.getByRole('textbox', { name: 'Type your message' }).fill(text);
  await dialog.getByRole('button', { name: 'Send message' }).click();
  await widgetIdle(page);
}

/** The widget's log is there and says aria-busy="false" (a turn has ended). */
export const widgetTurnDone = (page: Page) =>
  page.waitForFunction(
    () =>
      document.querySelector('chat-agent-widget')?.shadowRoot?.querySelector('.log')?.getAttribute('aria-busy') ===
      'false',
  );

/** Every animation in the widget's shadow root (window, greeting) has finished, for screenshots. */
export const widgetAnimationsDone = (page: Page) =>
  page.evaluate(
    `Promise.all(document.querySelector('chat-agent-widget').shadowRoot.getAnimations().map((a) => a.finished))`,
  );

/** The animations of `element` (the window opening) have finished, for screenshots. */
export const animationsDone = (element: Locator) =>
  element.evaluate((el: any) => Promise.all(el.getAnimations().map((a: any) => a.finished)));
