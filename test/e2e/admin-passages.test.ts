import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { auth, registerUser } from '../helpers/app.js';
import { shot } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { startLocalSite, type LocalSite, type Page as SitePage } from '../helpers/local-site.js';

/**
 * The admin UI in real Chromium against the real app (real SQLite, no AI provider, a real web site
 * on 127.0.0.1 with ALLOW_PRIVATE_URLS): the owner reads what was extracted from each source, a
 * page of passages at a time and always as text; crawls a website again and watches it; and sets
 * what visitors read when nothing answers, and whether they see the sources.
 */

// the page's globals inside page.evaluate callbacks (this file compiles without the DOM library)
declare const document: any;

type Json = Record<string, any>;

const XSS = '<img src=x onerror=alert(1)>';

/** The crawled site; its pages are read at each request, so a test can change them between crawls. */
const PAGES: Record<string, SitePage | string> = {
  '/': `<!doctype html><html><head><title>Boiler help</title></head><body>
<h1>Boilers</h1><h2>Resetting</h2>
<p>To reset the boiler, hold the red reset button for ten seconds until the display blinks twice.</p>
<p><a href="/service">Servicing</a></p></body></html>`,
  '/service': servicePage(89),
};

function servicePage(price: number): string {
  return `<!doctype html><html><head><title>Boiler service</title></head><body>
<h1>Service</h1><h2>Prices</h2>
<p>A yearly boiler service costs ${price} pounds, including the safety certificate.</p></body></html>`;
}

const e2e = useE2eApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
let site: LocalSite;

beforeAll(async () => {
  site = e2e.track(await startLocalSite(PAGES));
}, 60_000);

async function apiAs(
  token: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: Json,
): Promise<{ status: number; body: any }> {
  const res = await e2e.t.app.inject({ method, url, headers: auth(token), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.body ? res.json() : null };
}

async function ok(token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json): Promise<any> {
  const res = await apiAs(token, method, url, payload);
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** Console errors and uncaught exceptions, and any alert() a payload managed to run. */
function watch(page: Page): { errors: string[]; dialogs: string[] } {
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { errors, dialogs };
}

/** A new page logged in as `token` (the token where the UI keeps it), at `hash`. */
async function openAs(token: string, hash: string): Promise<Page> {
  const page = await e2e.browser.context.newPage();
  await openLoggedIn(page, e2e.appUrl, token, hash);
  return page;
}

async function newOwner(): Promise<{ token: string; agent: Json }> {
  const { token } = await registerUser(e2e.t.app);
  const agent = await ok(token, 'POST', '/api/chatbots', { name: 'Boiler desk' });
  return { token, agent };
}

async function allPassages(token: string, sourceId: string): Promise<Json[]> {
  return (await ok(token, 'GET', `/api/sources/${sourceId}/passages?limit=200`)).passages;
}

const sourceRow = (page: Page, name: string) => page.locator('.source', { hasText: name });
const passagesOf = (page: Page, name: string) => page.getByRole('region', { name: `Passages of ${name}` });
const passageTexts = (region: Locator) => region.locator('.passage-text').allTextContents();

describe('the passages of a source', () => {
  it('a text source: its passages are shown as text, never as HTML, a page at a time', async () => {
    const { token, agent } = await newOwner();
    // long enough for more than one page of passages (50 a page)
    const paragraphs = Array.from(
      { length: 1000 },
      (_, i) =>
        `Paragraph ${i} of the service manual: the boiler model B${i} needs a filter check every ${(i % 12) + 1} months and a flue inspection.`,
    );
    const manual = await ok(token, 'POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'Service manual',
      content: paragraphs.join('\n\n'),
    });
    const manualPassages = await allPassages(token, manual.id);
    expect(manualPassages.length).toBeGreaterThan(50);

    const page = await openAs(token, `#/agents/${agent.id}/knowledge`);
    const { errors, dialogs } = watch(page);
    try {
      // added from the page, with markup in it that must stay text
      await page.getByRole('button', { name: 'Text', exact: true }).click();
      const form = page.getByRole('form', { name: 'Add text' });
      await form.getByLabel('Title').fill('Tricky note');
      await form
        .getByLabel('Text')
        .fill(`Careful: ${XSS} is only text here.\n\nThe boiler cupboard key hangs by the door.`);
      await form.getByRole('button', { name: 'Add text' }).click();
      const row = page.locator('.source[data-status="completed"]', { hasText: 'Tricky note' });
      await row.waitFor();
      // a text source is not crawled
      expect(await row.getByRole('button', { name: /Crawl again/ }).count()).toBe(0);

      const toggle = row.getByRole('button', { name: 'Passages: Tricky note' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const region = passagesOf(page, 'Tricky note');
      await region.getByText('1 passage', { exact: true }).waitFor();
      const tricky = (await ok(token, 'GET', `/api/sources/chatbot/${agent.id}`)).find(
        (s: Json) => s.name === 'Tricky note',
      );
      const stored = (await allPassages(token, tricky.id))[0]!;
      expect(stored.content).toContain(XSS);
      expect(await passageTexts(region)).toEqual([stored.content]);
      await region.getByText(`${stored.token_count} tokens`).waitFor();
      expect(await region.locator('img').count()).toBe(0);
      expect(await page.locator('img[src="x"]').count()).toBe(0);

      // a long source: 50 passages, then the rest with "Load more"
      await sourceRow(page, 'Service manual').getByRole('button', { name: 'Passages: Service manual' }).click();
      const long = passagesOf(page, 'Service manual');
      await long.getByText(`Showing 50 of ${manualPassages.length} passages`).waitFor();
      expect(await long.locator('.passage').count()).toBe(50);
      await long.getByRole('button', { name: 'Load more' }).click();
      await long.getByText(`${manualPassages.length} passages`, { exact: true }).waitFor();
      expect(await passageTexts(long)).toEqual(manualPassages.map((p) => p.content));
      expect(await long.getByRole('button', { name: 'Load more' }).count()).toBe(0);

      // closing hides them again
      await toggle.click();
      await region.waitFor({ state: 'detached' });
      await shot(page, 'admin-passages-text.png', { fullPage: true });
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a website: each passage names its page (title, link, headings); crawled again, refused while crawling, and a failed re-crawl keeps the pages', async () => {
    const { token, agent } = await newOwner();
    const original = { ...PAGES };
    const page = await openAs(token, `#/agents/${agent.id}/knowledge`);
    const { errors, dialogs } = watch(page);
    try {
      await page.getByRole('button', { name: 'Website', exact: true }).click();
      const form = page.getByRole('form', { name: 'Add a website' });
      await form.getByLabel('Website address').fill(`${site.url}/`);
      await form.getByLabel('Pages at most').fill('5');
      await form.getByRole('button', { name: 'Add website' }).click();
      const name = `${site.url}/`;
      const row = page.locator('.source', { hasText: name });
      await page.locator('.source[data-status="completed"]', { hasText: name }).waitFor({ timeout: 20_000 });
      await row.getByText('2 pages fetched').waitFor(); // the crawl report is still shown

      await row.getByRole('button', { name: `Passages: ${name}` }).click();
      const region = passagesOf(page, name);
      await region.getByText('2 passages', { exact: true }).waitFor();
      const home = region.locator('.passage', { hasText: 'red reset button' });
      await home.getByText('Boilers > Resetting').waitFor();
      const homeLink = home.getByRole('link', { name: 'Boiler help' });
      expect(await homeLink.getAttribute('href')).toBe(`${site.url}/`);
      expect(await homeLink.getAttribute('target')).toBe('_blank');
      expect(await homeLink.getAttribute('rel')).toBe('noopener noreferrer');
      const service = region.locator('.passage', { hasText: '89 pounds' });
      await service.getByText('Service > Prices').waitFor();
      expect(await service.getByRole('link', { name: 'Boiler service' }).getAttribute('href')).toBe(
        `${site.url}/service`,
      );
      const sourceId: string = (await ok(token, 'GET', `/api/sources/chatbot/${agent.id}`))[0].id;
      const stored = await allPassages(token, sourceId);
      for (const p of stored)
        await region
          .locator('.passage', { hasText: p.content.slice(0, 40) })
          .getByText(`${p.token_count} tokens`)
          .waitFor();

      // crawl again, with the service page held: the row shows the crawl's progress, the
      // previous passages stay listed, and the new ones replace them once it completes
      PAGES['/service'] = servicePage(95);
      let held = site.hold('/service');
      const crawlAgain = row.getByRole('button', { name: `Crawl again: ${name}` });
      await crawlAgain.click();
      await page.getByText(`Crawling ${name} again`).waitFor();
      await row.getByText('Processing', { exact: true }).waitFor();
      await row.getByRole('progressbar').waitFor();
      expect(await crawlAgain.isDisabled()).toBe(true);
      await held.reached;
      await region.getByText('Still processing').waitFor();
      await region.locator('.passage', { hasText: '89 pounds' }).waitFor();
      await shot(page, 'admin-passages-recrawl.png', { fullPage: true });
      held.release();
      await page.locator('.source[data-status="completed"]', { hasText: name }).waitFor({ timeout: 20_000 });
      await region.locator('.passage', { hasText: '95 pounds' }).waitFor();
      await region.getByText('2 passages', { exact: true }).waitFor();
      expect(await region.locator('.passage', { hasText: '89 pounds' }).count()).toBe(0);
      expect(await crawlAgain.isEnabled()).toBe(true);

      // a crawl started elsewhere (the API) while this page still shows the source ready: the
      // button's 409 is shown, and the list is read again to show the crawl
      held = site.hold('/service');
      expect((await apiAs(token, 'POST', `/api/sources/${sourceId}/recrawl`)).status).toBe(202);
      await held.reached;
      expect(await row.getAttribute('data-status')).toBe('completed');
      const before = errors.length;
      await crawlAgain.click();
      await row.getByRole('alert').getByText('The website is being crawled; wait until it has finished').waitFor();
      await row.getByText('Processing', { exact: true }).waitFor();
      expect(await crawlAgain.isDisabled()).toBe(true);
      for (const e of errors.splice(before)) expect(e).toMatch(/status of 409\b/);
      held.release();
      await page.locator('.source[data-status="completed"]', { hasText: name }).waitFor({ timeout: 20_000 });

      // the site is gone: the re-crawl fails, the source keeps its passages and says so
      PAGES['/'] = { status: 500, body: 'down' };
      PAGES['/service'] = { status: 500, body: 'down' };
      await crawlAgain.click();
      await row.locator('.source-warning').getByText('re-crawl failed').waitFor({ timeout: 20_000 });
      expect(await row.getAttribute('data-status')).toBe('completed');
      await row.getByText('Ready', { exact: true }).waitFor();
      await region.locator('.passage', { hasText: '95 pounds' }).waitFor();
      await shot(page, 'admin-passages-website.png', { fullPage: true });
      // nothing sticks out sideways on a phone, passages open
      await page.setViewportSize({ width: 375, height: 760 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await shot(page, 'admin-passages-website-375.png', { fullPage: true });
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      Object.assign(PAGES, original);
      await page.close();
    }
  }, 90_000);
});

describe('what visitors read', () => {
  it('the owner sets the no-answer message and hides the sources; the agent keeps both', async () => {
    const { token, agent } = await newOwner();
    expect(agent).toMatchObject({ no_answer_message: null, show_sources: true });
    await ok(token, 'POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'Opening hours',
      content: 'The boiler desk is open Monday to Friday, 8:00 to 18:00.',
    });
    const page = await openAs(token, `#/agents/${agent.id}/settings`);
    const { errors } = watch(page);
    try {
      const general = page.getByRole('form', { name: 'General' });
      const noAnswer = general.getByLabel('No-answer message');
      await noAnswer.waitFor();
      // empty: the placeholder is the sentence visitors read by default
      expect(await noAnswer.inputValue()).toBe('');
      expect(await noAnswer.getAttribute('placeholder')).toBe('I could not find that in our information.');
      const showSources = general.getByLabel('Show sources to visitors');
      /** Saves General, waits for its toast; the stored agent then has `fields`. */
      const saveGeneral = async (fields: Record<string, unknown>) => {
        await general.getByRole('button', { name: 'Save' }).click();
        await page.getByText('General saved').waitFor();
        expect(await ok(token, 'GET', `/api/chatbots/${agent.id}`)).toMatchObject(fields);
      };
      expect(await showSources.isChecked()).toBe(true);

      const message = 'Sorry, I do not know that one. Call us on 0123 456 789.';
      await noAnswer.fill(message);
      await showSources.uncheck();
      await saveGeneral({ no_answer_message: message, show_sources: false });

      // what a visitor gets: the owner's sentence, and an answer without its sources
      const chat = (text: string) =>
        e2e.t.app.inject({
          method: 'POST',
          url: `/api/public/chat/${agent.id}`,
          payload: { message: text, session_id: 'visitor-1' },
        });
      const unknown = await chat('Do you sell bicycles?');
      expect(unknown.json()).toMatchObject({ message, sources: [] });
      const known = (await chat('When is the boiler desk open?')).json();
      expect(known.message).toContain('Monday to Friday');
      expect(known.sources).toEqual([]);

      // after a reload the form shows what was stored; emptied, the default sentence is back
      await page.reload();
      await noAnswer.waitFor();
      expect(await noAnswer.inputValue()).toBe(message);
      expect(await showSources.isChecked()).toBe(false);
      await noAnswer.fill('');
      await showSources.check();
      await saveGeneral({ no_answer_message: null, show_sources: true });
      expect((await chat('Do you sell bicycles?')).json().message).toBe('I could not find that in our information.');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
