import type { Locator, Page } from 'playwright-core';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { shot } from '../helpers/browser.js';
import { docxWith, pdfWith } from '../helpers/documents.js';
import { useE2eApp } from '../helpers/e2e.js';
import { startLocalSite, type LocalSite } from '../helpers/local-site.js';
import { uploadFile } from '../helpers/sources.js';

/**
 * The sources under a visitor's answer, in real Chromium on the share page: the app has no AI
 * provider, so it answers from the knowledge (quoted passages) and cites where each comes from: a
 * web page by its title, linked to the page; a PDF by its title and page. Old answers kept in the
 * visitor's browser (without title or page) still show; hostile values stay text; an agent that
 * hides its sources shows none.
 */

// the page's globals inside page.evaluate callbacks (this file compiles without the DOM library)
declare const localStorage: any;

type Json = Record<string, any>;

const e2e = useE2eApp({ owner: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
let site: LocalSite;

beforeAll(async () => {
  site = e2e.track(
    await startLocalSite({
      '/': `<!doctype html><html><head><title>Acme Plumbing</title></head><body><h1>Welcome</h1>
<p>Acme Plumbing fixes leaks across the county.</p><p><a href="/service">Servicing</a></p></body></html>`,
      '/service': `<!doctype html><html><head><title>Boiler service</title></head><body><h1>Service</h1>
<p>A yearly boiler service costs 89 pounds, including the safety certificate.</p></body></html>`,
    }),
  );
}, 60_000);

const { api } = e2e;

/** Waits until every source of the agent has been processed, and that none failed. */
async function allReady(agentId: string): Promise<void> {
  await expect
    .poll(async () => (await api('GET', `/api/sources/chatbot/${agentId}`)).map((s: Json) => s.status).join(','), {
      timeout: 20_000,
      interval: 200,
    })
    .toMatch(/^(completed,?)+$/);
}

/**
 * A three-page manual titled "Boiler manual" whose third page (only) tells about the valve, at
 * its end: the third page is dense (two passages' worth), so the passage holding that line starts
 * on page 3 (a passage is cited by the page it starts on).
 */
async function manualPdf(): Promise<Uint8Array> {
  const filler = (topic: string, n: number) =>
    Array.from(
      { length: n },
      (_, i) => `${topic} note ${i}: order ${1000 + i} of customer ${7 * i} is on file with the office.`,
    );
  const doc = await PDFDocument.create();
  doc.setTitle('Boiler manual');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = [
    filler('Contents', 28),
    filler('Appendix', 28),
    [...filler('Warranty', 59), 'The pressure relief valve must be checked every spring.'],
  ];
  for (const lines of pages) {
    const page = doc.addPage([600, 800]);
    const step = lines.length > 30 ? 12 : 24;
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 760 - i * step, size: 10, font }));
  }
  return doc.save();
}

/** The share page of the agent, with whatever the visitor's browser kept (`stored`) in place first. */
async function sharePage(agentId: string, stored?: Json): Promise<Page> {
  const page = await e2e.browser.context.newPage();
  if (stored) {
    await page.goto(`${e2e.appUrl}/api/health`); // same origin, to reach its localStorage
    await page.evaluate(
      ([key, value]) => localStorage.setItem(key, value),
      [`chat-agent:${agentId}`, JSON.stringify(stored)],
    );
  }
  await page.goto(`${e2e.appUrl}/chat/${agentId}`);
  await page.getByRole('main').waitFor();
  return page;
}

async function ask(page: Page, question: string): Promise<Locator> {
  const box = page.getByRole('textbox', { name: /message|bericht/i }); // English or Dutch
  const before = await page.locator('.msg.assistant').count();
  const responded = page.waitForResponse(
    (r) => r.url().includes('/api/public/chat/') && r.request().method() === 'POST',
  );
  await box.fill(question);
  await box.press('Enter');
  await responded;
  // the turn is over (busy is set before the request is sent): the answer is the next assistant row
  await expect.poll(() => page.locator('.log').getAttribute('aria-busy')).toBe('false');
  return page.locator('.msg.assistant').nth(before);
}

const citations = (answer: Locator) => answer.locator('.sources li');

describe('citations under the answers', () => {
  it('a web page by its title, linked; a PDF by its title and page; the agent can hide them', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Acme helper' });
    await api('PUT', `/api/chatbots/${agent.id}`, { lead_capture_enabled: false });
    await api('POST', `/api/sources/chatbot/${agent.id}/website`, { url: `${site.url}/`, max_pages: 5 });
    const upload = await uploadFile(e2e.t, e2e.token, agent.id, 'manual.pdf', await manualPdf());
    expect(upload.statusCode, upload.body).toBe(201);
    await allReady(agent.id);
    // the one passage about the valve starts on page 3
    const pdfSource = (await api('GET', `/api/sources/chatbot/${agent.id}`)).find((s: Json) => s.type === 'file');
    const valvePassages = (await api('GET', `/api/sources/${pdfSource.id}/passages`)).passages.filter((p: Json) =>
      p.content.includes('relief valve'),
    );
    expect(valvePassages.map((p: Json) => [p.title, p.page])).toEqual([['Boiler manual', 3]]);

    const page = await sharePage(agent.id);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    const price = await ask(page, 'How much is a yearly boiler service?');
    await price.getByText('89 pounds').first().waitFor();
    expect(await citations(price).allTextContents()).toEqual(['Boiler service']);
    const link = citations(price).getByRole('link', { name: 'Boiler service' });
    expect(await link.getAttribute('href')).toBe(`${site.url}/service`);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');

    const valve = await ask(page, 'How often must the pressure relief valve be checked?');
    await valve.getByText('every spring').first().waitFor();
    expect(await citations(valve).allTextContents()).toEqual(['Boiler manual, page 3']);
    expect(await citations(valve).getByRole('link').count()).toBe(0); // an uploaded file has no address
    await shot(page, 'widget-citations.png');

    // after a reload, the answers kept in the browser show the same citations
    await page.reload();
    await page.getByRole('main').waitFor();
    expect(await page.locator('.sources li').allTextContents()).toEqual(['Boiler service', 'Boiler manual, page 3']);
    await page.close();

    // the owner hides the sources: the answer comes without them
    await api('PUT', `/api/chatbots/${agent.id}`, { show_sources: false });
    const hidden = await sharePage(agent.id, { session_id: 'visitor-hidden', lead_done: true, messages: [] });
    const answer = await ask(hidden, 'How much is a yearly boiler service?');
    await answer.getByText('89 pounds').first().waitFor();
    expect(await answer.locator('.sources').count()).toBe(0);
    expect(await answer.getByRole('link').count()).toBe(0);
    await hidden.close();
    expect(errors).toEqual([]);
  }, 60_000);

  it('a file by its title, else its file name without the extension, never linked; the page in the agent’s language', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Prijzen', language: 'nl' });
    await api('PUT', `/api/chatbots/${agent.id}`, { lead_capture_enabled: false });
    const files: Array<[string, Uint8Array]> = [
      ['price-list-2026.pdf', await pdfWith(['Prices', 'A chimney sweep visit costs 65 euros.'])],
      [
        'hours-v3-final.docx',
        await docxWith(['Opening', 'The showroom opens at nine on Saturdays.'], { title: 'Opening hours' }),
      ],
    ];
    for (const [filename, content] of files) {
      const res = await uploadFile(e2e.t, e2e.token, agent.id, filename, content);
      expect(res.statusCode, res.body).toBe(201);
    }
    await allReady(agent.id);
    const page = await sharePage(agent.id);
    const sweep = await ask(page, 'How much is a chimney sweep visit?');
    await sweep.getByText('65 euros').first().waitFor();
    expect(await citations(sweep).allTextContents()).toEqual(['price-list-2026, pagina 1']);
    const hours = await ask(page, 'When does the showroom open on Saturdays?');
    await hours.getByText('at nine').first().waitFor();
    expect(await citations(hours).allTextContents()).toEqual(['Opening hours']);
    // nowhere on the page (the answers' own source lines included) is a file name, and no file is a link
    const shown = await page.locator('.log').innerText();
    expect(shown).not.toContain('.pdf');
    expect(shown).not.toContain('.docx');
    expect(await page.locator('.sources a').count()).toBe(0);
    await shot(page, 'widget-citations-files.png');
    await page.close();
  }, 60_000);

  it('"Title, page N" linked to a web address; old answers without title or page; hostile values stay text', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Acme helper' });
    // an answer kept by an older widget: sources with a name and a URL only
    const stored = {
      session_id: 'visitor-old',
      lead_done: true,
      messages: [
        { role: 'user', content: 'Where are your prices?' },
        {
          role: 'assistant',
          content: 'On our price list.',
          sources: [
            { source_id: 'old-1', name: 'Price list', url: 'https://acme.example/prices' },
            { source_id: 'old-2', name: 'Notes', url: null },
          ],
        },
      ],
    };
    const page = await sharePage(agent.id, stored);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const old = page.locator('.msg.assistant', { hasText: 'On our price list.' });
    expect(await citations(old).allTextContents()).toEqual(['Price list', 'Notes']);
    expect(await citations(old).getByRole('link', { name: 'Price list' }).getAttribute('href')).toBe(
      'https://acme.example/prices',
    );

    // the answer as a server could send it: a PDF on the web cited by title and page, two places
    // in one source, and values that must not become markup or a script link
    await page.route(`**/api/public/chat/${agent.id}`, (route) =>
      route.fulfill({
        json: {
          message: 'Check the valve every spring.',
          conversation_id: 'c1',
          session_id: 'visitor-old',
          sources: [
            {
              source_id: 's1',
              name: 'manual.pdf',
              url: 'https://acme.example/manual.pdf',
              title: 'Boiler manual',
              page: 3,
            },
            {
              source_id: 's1',
              name: 'manual.pdf',
              url: 'https://acme.example/manual.pdf',
              title: 'Boiler manual',
              page: 7,
            },
            {
              source_id: 's1',
              name: 'manual.pdf',
              url: 'https://acme.example/manual.pdf',
              title: 'Boiler manual',
              page: 3,
            },
            {
              source_id: 's2',
              name: 'Notes',
              url: 'javascript:alert(1)',
              title: '<img src=x onerror=alert(1)>',
              page: null,
            },
            { source_id: 's3', name: 'FAQ', url: null, title: null, page: null },
          ],
        },
      }),
    );
    const answer = await ask(page, 'How often is the valve checked?');
    await answer.getByText('Check the valve every spring.').waitFor();
    expect(await citations(answer).allTextContents()).toEqual([
      'Boiler manual, page 3',
      'Boiler manual, page 7',
      '<img src=x onerror=alert(1)>',
      'FAQ',
    ]);
    const pdf = citations(answer).getByRole('link', { name: 'Boiler manual, page 3' });
    expect(await pdf.getAttribute('href')).toBe('https://acme.example/manual.pdf');
    expect(await pdf.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await citations(answer).getByRole('link').count()).toBe(2); // not the javascript: one
    expect(await answer.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  }, 60_000);
});
