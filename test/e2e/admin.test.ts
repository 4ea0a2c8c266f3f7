import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn, setToken, shootBothWidths, storeToken } from '../helpers/admin.js';
import { apiOk, auth, PASSWORD, registerUser, startTestApp, uniqueEmail } from '../helpers/app.js';
import { listenOnLoopback, watchErrors, withPage } from '../helpers/browser.js';
import { useE2eApp, withOwnApp } from '../helpers/e2e.js';
import { saveSection } from '../helpers/e2e-admin-ui.js';

/**
 * The admin UI in real Chromium against the real app (real SQLite, a fake OpenAI server): the
 * owner's journeys from registering to reading analytics, and an administrator changing a plan.
 * Every page is photographed at desktop width and at 375 px (test-artifacts/admin-*.png); no page
 * may scroll sideways at 375 px, and no journey may log a console error.
 */

// The page's globals, used inside page.evaluate callbacks (which run in the browser); this file
// compiles without the DOM library, so they are declared here, for this module only.
declare const window: any, document: any, localStorage: any, getComputedStyle: any, DataTransfer: any;

const ANSWER = 'Parcels ship within two working days, and tracking arrives by e-mail.';
const FAQ = 'Shipping policy. Parcels ship within two working days. Returns are free for thirty days.';

/**
 * A name for this machine that is not a loopback name, as a VPS's domain or address would be:
 * Chromium maps it to 127.0.0.1 itself (--host-resolver-rules), so no DNS is asked and the test
 * runs offline; the page still sees `location.hostname` = this name.
 */
const OTHER_HOST = 'admin.example.test';

/** Screenshots at desktop width and at 375 px (test-artifacts/admin-*.png); at 375 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) => shootBothWidths(page, 'admin', name, { settle: true });

const apiAs = (
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload?: Record<string, unknown>,
) => apiOk(e2e.t.app, token, method, url, payload);

const e2e = useE2eApp({
  // REGISTRATION open, so the admin test can have a second account; first-only has its own test
  env: { REGISTRATION: 'open' },
  llm: { reply: ANSWER, chunks: 4 },
  browser: { args: [`--host-resolver-rules=MAP ${OTHER_HOST} 127.0.0.1`] },
});

describe('the owner runs the business from the browser', () => {
  let page: Page;
  let errors: string[];
  let agentId: string;
  let ownerToken: string;
  const owner = { name: 'Olivia Owner', email: uniqueEmail('owner'), password: PASSWORD };
  /** Follows the link `name` of the main navigation to its page, `#/<route>`. */
  const navigate = async (name: string, route: string) => {
    await page.getByRole('link', { name, exact: true }).first().click();
    await page.waitForURL(new RegExp(`#/${route}$`));
  };

  beforeAll(async () => {
    page = await e2e.browser.context.newPage();
    errors = watchErrors(page);
  }, 60_000);
  afterAll(async () => {
    await page?.close();
  }, 60_000);

  it('registers the first account on the first screen, which offers creating the owner account', async () => {
    await page.goto(`${e2e.appUrl}/`);
    await page.waitForURL(/#\/login$/);
    // no account yet: nothing to log in to (issue 31 point 2; test/e2e/first-run.test.ts)
    await page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
    await shoot(page, 'register');
    await page.getByLabel('Name').fill(owner.name);
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/#\/agents$/);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.getByText('No agents yet').waitFor();
    // the server has an OpenAI key (no "no provider" banner) but no mail
    await page.getByText('E-mail is not configured').waitFor();
    expect(await page.getByText('No AI provider is configured').count()).toBe(0);
    ownerToken = (await page.evaluate(() => localStorage.getItem('chat-agent.token')))!;
    const me = await apiAs(ownerToken, 'GET', '/api/auth/me');
    expect(me).toMatchObject({ email: owner.email, role: 'admin' });
    await shoot(page, 'agents-empty');
  }, 60_000);

  it('creates an agent and edits its settings, with a live preview', async () => {
    await page.getByRole('button', { name: 'New agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await form.getByLabel('Name').fill('Parcel helper');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(/#\/agents\/[^/]+\/settings$/);
    agentId = decodeURIComponent(page.url().split('#/agents/')[1]!.split('/')[0]!);
    await page.getByRole('heading', { level: 1, name: 'Parcel helper' }).waitFor();

    // behaviour: instructions and temperature, saved with the section's own button
    const behaviour = page.getByRole('form', { name: 'Behaviour' });
    await behaviour.getByLabel('Instructions').fill('You are the parcel desk of Acme. Be brief.');
    await behaviour.getByLabel('Max tokens per answer').fill('300');
    // the owner's synonyms (issue 33): one group a line, commas read as "=", blank lines dropped
    await behaviour.getByLabel('Synonyms').fill('parcel = package\n\nbox, carton');
    await saveSection(behaviour, 'Behaviour');
    await expect.poll(() => behaviour.getByLabel('Synonyms').inputValue()).toBe('parcel = package\nbox = carton');
    // a line with one word is refused with the server's reason, and nothing is stored
    const refusedFrom = errors.length;
    await behaviour.getByLabel('Synonyms').fill('parcel');
    await behaviour.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/two or more words or phrases/).waitFor();
    expectRefusals(errors, refusedFrom, 400);
    await behaviour.getByLabel('Synonyms').fill('parcel = package\nbox = carton');

    // appearance: the preview follows the colour before it is saved
    const appearance = page.getByRole('form', { name: 'Appearance' });
    // (the preview is the widget itself, in an open shadow root: CSS locators reach into it)
    const launcher = page.getByTestId('widget-preview').locator('.launcher');
    expect(await launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(124, 58, 237)');
    await appearance.getByLabel('Primary color', { exact: true }).fill('#0f766e');
    await expect.poll(() => launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(15, 118, 110)');
    await appearance.getByLabel('Position').selectOption('top-left');
    await page.getByTestId('widget-preview').locator('.root.pos-top-left').waitFor({ state: 'attached' });
    await saveSection(appearance, 'Appearance');

    // lead capture with an e-mail alert; allowed domains
    const leads = page.getByRole('form', { name: 'Lead capture and e-mail alerts' });
    await leads.getByLabel('E-mail me when a new lead arrives').check();
    await leads.getByLabel('Alert address').fill('alerts@example.com');
    await saveSection(leads, 'Lead capture and e-mail alerts');
    const domains = page.getByRole('form', { name: 'Allowed domains' });
    await domains.getByLabel('Domains').fill('https://www.acme.example/shop\n*.acme.example');
    await saveSection(domains, 'Allowed domains');
    // the server normalised the pasted address to its host, and the box shows what was stored
    expect(await domains.getByLabel('Domains').inputValue()).toBe('www.acme.example\n*.acme.example');

    const stored = await apiAs(ownerToken, 'GET', `/api/chatbots/${agentId}`);
    expect(stored).toMatchObject({
      instructions: 'You are the parcel desk of Acme. Be brief.',
      max_tokens: 300,
      synonyms: ['parcel = package', 'box = carton'],
      primary_color: '#0f766e',
      widget_position: 'top-left',
      email_alerts_enabled: true,
      email_alert_address: 'alerts@example.com',
      allowed_domains: ['www.acme.example', '*.acme.example'],
    });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shoot(page, 'agent-settings');

    // the embed snippet and the share link, each with a copy button
    await page.getByRole('link', { name: 'Embed & share' }).click();
    const snippet = await page.getByLabel('Embed snippet').innerText();
    expect(snippet.trim()).toBe(
      `<script src="${e2e.t.config.publicUrl}/widget.js" data-chatbot-id="${agentId}" defer></script>`,
    );
    expect(await page.getByLabel('Share link').inputValue()).toBe(`${e2e.t.config.publicUrl}/chat/${agentId}`);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    await shoot(page, 'agent-share');
  }, 60_000);

  it('uploads a file by drag and drop and watches it complete; adds text', async () => {
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByText('No sources yet').waitFor();
    const drop = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'shipping-faq.txt', { type: 'text/plain' }));
      return dt;
    }, FAQ);
    await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer: drop });
    const row = page.locator('.source', { hasText: 'shipping-faq.txt' });
    await row.waitFor();
    // the list reads itself again while the file is processed, until it is ready
    await page
      .locator('.source[data-status="completed"]', { hasText: 'shipping-faq.txt' })
      .waitFor({ timeout: 20_000 });
    await row.getByText('Ready').waitFor();

    await page.getByRole('button', { name: 'Text', exact: true }).click();
    const text = page.getByRole('form', { name: 'Add text' });
    await text.getByLabel('Title').fill('Opening hours');
    await text.getByLabel('Text').fill('The parcel desk is open Monday to Friday, 9:00 to 17:00.');
    await text.getByRole('button', { name: 'Add text' }).click();
    await page.locator('.source[data-status="completed"]', { hasText: 'Opening hours' }).waitFor();
    const sources = await apiAs(ownerToken, 'GET', `/api/sources/chatbot/${agentId}`);
    expect(sources.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['Opening hours', 'completed'],
      ['shipping-faq.txt', 'completed'],
    ]);
    await page.getByRole('button', { name: 'Files', exact: true }).click();
  }, 60_000);

  it('a failed source shows its error; a refused upload says why', async () => {
    // a PDF header over garbage passes the upload check and fails in the parser
    await page.locator('input[type=file]').setInputFiles({
      name: 'broken.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.7\nthis is not really a PDF\n'),
    });
    const failed = page.locator('.source[data-status="failed"]', { hasText: 'broken.pdf' });
    await failed.waitFor({ timeout: 20_000 });
    await failed.getByText('Failed').waitFor();
    const message = (await failed.locator('.source-error').innerText()).trim();
    const stored = (await apiAs(ownerToken, 'GET', `/api/sources/chatbot/${agentId}`)).find(
      (s: { name: string }) => s.name === 'broken.pdf',
    );
    expect(message).toBe(stored.error_message);

    // content that is not what its extension says is refused at upload (a 400 the browser logs)
    const before = errors.length;
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'fake.pdf', mimeType: 'application/pdf', buffer: Buffer.from('this is not a PDF') });
    const refused = page.locator('.upload-row', { hasText: 'fake.pdf' });
    await refused.getByRole('alert').waitFor();
    expect((await refused.getByRole('alert').innerText()).length).toBeGreaterThan(5);
    expectRefusals(errors, before, 400);
    await refused.getByRole('button', { name: 'Dismiss' }).click();

    await failed.getByRole('button', { name: 'Delete broken.pdf' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await failed.waitFor({ state: 'detached' });
    await shoot(page, 'agent-knowledge');
  }, 60_000);

  it('chats in the test panel with a streamed answer', async () => {
    await page.getByRole('link', { name: 'Try it' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('How fast do parcels ship?');
    await box.press('Enter');
    const answer = page.locator('.try-log .chat-assistant').last();
    await answer.getByText(ANSWER).waitFor();
    await page.getByText('Sources:').waitFor();
    expect(e2e.llm.requests.filter((r) => r.kind === 'chat').length).toBeGreaterThanOrEqual(1);
    await shoot(page, 'agent-try-it');
  }, 60_000);

  it('sees the conversation with its transcript, and a visitor lead', async () => {
    // a visitor leaves a lead and chats through the public routes (what the widget does)
    const visitor = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agentId}`,
      payload: {
        message: 'Do you ship to Norway?',
        session_id: 'visitor-1',
        user_name: 'Vera Visitor',
        user_email: 'vera@example.com',
      },
    });
    expect(visitor.statusCode, visitor.body).toBe(200);
    const lead = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/public/lead/${agentId}`,
      payload: { name: 'Vera Visitor', phone: '+47 555 01 234', session_id: 'visitor-1' },
    });
    expect(lead.statusCode, lead.body).toBe(200);

    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('list', { name: 'Conversations, newest first' });
    await list.getByText('Vera Visitor').waitFor();
    const names = await list.locator('.conv-name').allInnerTexts();
    expect(names).toEqual(['Vera Visitor', 'Anonymous visitor']); // newest first
    await list.getByText('Vera Visitor').click();
    const transcript = page.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Do you ship to Norway?').waitFor();
    await transcript.getByText(ANSWER).waitFor();
    await transcript.getByText('vera@example.com').waitFor();
    await shoot(page, 'agent-conversations');

    // the lead-alert e-mail links here
    await page.goto(`${e2e.appUrl}/#/agents/${agentId}/leads`);
    const table = page.getByRole('table', { name: 'Widget leads' });
    await table.getByText('+47 555 01 234').waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync((await (await download).path())!, 'utf8');
    expect(csv).toContain('Vera Visitor');
    await shoot(page, 'agent-leads');

    // the agents list with its counts
    await navigate('Agents', 'agents');
    const card = page.locator('.agent-card', { hasText: 'Parcel helper' });
    await card.getByText('2 conversations').waitFor();
    await shoot(page, 'agents');
  }, 60_000);

  it('sees the analytics: cards, the chart and the 7/30/90-day switch', async () => {
    await navigate('Analytics', 'analytics');
    await page.getByTestId('stat-conversations').getByText('2').waitFor();
    await page.getByTestId('stat-leads').getByText('1').waitFor();
    await page.getByTestId('stat-response-time').locator('.stat-value').filter({ hasNotText: '…' }).waitFor();
    await page.locator('[data-testid="daily-chart"] canvas').waitFor();
    // uPlot's legend shows the series; the 7-day window has 7 points
    await page.getByRole('button', { name: '7 days' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-pressed="true"]')?.textContent === '7 days');
    await page.locator('[data-testid="daily-chart"] canvas').waitFor();
    expect(await page.locator('[data-testid="daily-chart"] .u-legend').innerText()).toContain('Conversations');
    await shoot(page, 'analytics');

    // the agent's own chart
    await page.goto(`${e2e.appUrl}/#/agents/${agentId}/analytics`);
    await page.locator('[data-testid="daily-chart"] canvas').waitFor();
    await shoot(page, 'agent-analytics');
  }, 60_000);

  it('keeps account leads: create, change status and notes, export, delete', async () => {
    await navigate('Leads', 'leads');
    const form = page.getByRole('form', { name: 'New lead' });
    await form.getByLabel('Name').fill('Bob Buyer');
    await form.getByRole('textbox', { name: /^Contact/ }).fill('bob@example.com');
    await form.getByLabel('Notes').fill('Wants 40 boxes a month');
    await form.getByRole('button', { name: 'Add lead' }).click();
    const card = page.locator('.lead-card', { hasText: 'Bob Buyer' });
    await card.waitFor();
    await card.getByLabel('Status').selectOption('Contacted');
    await page.getByText('Lead updated').first().waitFor();
    await card.getByLabel('Notes').fill('Called on Monday; sending a quote.');
    await card.getByRole('button', { name: 'Save notes' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.toast').length > 0);
    await expect
      .poll(async () => (await apiAs(ownerToken, 'GET', '/api/leads'))[0])
      .toMatchObject({ name: 'Bob Buyer', status: 'Contacted', notes: 'Called on Monday; sending a quote.' });
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    expect(readFileSync((await (await download).path())!, 'utf8')).toContain('Bob Buyer');
    await shoot(page, 'account-leads');

    await card.getByRole('button', { name: 'Delete lead Bob Buyer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete lead' }).click();
    await page.getByText('No leads yet.').waitFor();
    expect(await apiAs(ownerToken, 'GET', '/api/leads')).toEqual([]);
  }, 60_000);

  it('the administrator changes a user’s plan', async () => {
    const bob = await registerUser(e2e.t.app, { name: 'Sam Second' });
    await navigate('Admin', 'admin');
    const plan = page.getByLabel('Plan of Sam Second', { exact: true });
    await plan.waitFor();
    expect(await plan.inputValue()).toBe('free');
    await plan.selectOption('pro');
    await page.getByText('Sam Second: plan set to pro').waitFor();
    const users = await apiAs(ownerToken, 'GET', '/api/admin/users');
    expect(users.find((u: { email: string }) => u.email === bob.email)).toMatchObject({ plan_id: 'pro' });
    // the last admin cannot demote themself: the refusal is shown and the select goes back
    const before = errors.length;
    await page.getByLabel('Role of Olivia Owner').selectOption('user');
    await page.getByRole('alert').filter({ hasText: 'the last active admin cannot be demoted' }).waitFor();
    await expect.poll(() => page.getByLabel('Role of Olivia Owner').inputValue()).toBe('admin');
    expectRefusals(errors, before, 400);
    await shoot(page, 'admin-users');
  }, 60_000);

  it('deletes the agent after confirming', async () => {
    await page.goto(`${e2e.appUrl}/#/agents/${agentId}/settings`);
    await page.getByRole('button', { name: 'Delete agent…' }).click();
    const dialog = page.getByRole('dialog');
    await shoot(page, 'agent-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await page.waitForURL(/#\/agents$/);
    await page.getByText('No agents yet').waitFor();
  }, 60_000);

  it('logs out; the token no longer opens anything', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/#\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('chat-agent.token'))).toBeNull();
    const me = await e2e.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(ownerToken) });
    expect(me.statusCode).toBe(401);
  });

  it('logged no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});

describe('sessions and set-up banners', () => {
  it('a 401 (expired or revoked token) goes back to login and returns to the page after logging in', async () => {
    const { token, email } = await registerUser(e2e.t.app);
    await withPage(e2e.browser.context, async (page, errors) => {
      await storeToken(page, e2e.appUrl, token);
      // revoke it server-side, then open the page an alert e-mail would link to
      await e2e.t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(token) });
      await page.goto('about:blank'); // a fresh load, not a hash change in the same document
      await page.goto(`${e2e.appUrl}/#/leads`);
      await page.waitForURL(/#\/login$/);
      expect(await page.evaluate(() => localStorage.getItem('chat-agent.token'))).toBeNull();
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/#\/leads$/);
      await page.getByRole('heading', { name: 'Leads' }).waitFor();
      // the refused calls are the only errors the browser logged
      expectRefusals(errors, 0, 401);
    });
  }, 60_000);

  it('with no provider key and first-only registration taken: the banner says so, registration is hidden', async () => {
    await withOwnApp({ env: { REGISTRATION: 'first-only' } }, async (bare, url) => {
      const { token } = await registerUser(bare.app);
      await withPage(e2e.browser.context, async (page) => {
        await page.goto(`${url}/#/login`);
        await page.getByRole('heading', { name: 'Log in' }).waitFor();
        await page.locator('[data-registration="closed"]').waitFor();
        expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
        await page.goto(`${url}/#/register`);
        await page.getByText('already has its owner account').waitFor();

        await setToken(page, token);
        await page.goto('about:blank');
        await page.goto(`${url}/#/agents`);
        await page.getByText('No AI provider is configured').waitFor();
        await page.getByText('E-mail is not configured').waitFor();
        await shoot(page, 'banners');
        // put away for this browser session, and it stays away on the next page
        await page
          .getByRole('status')
          .filter({ hasText: 'E-mail is not configured' })
          .getByRole('button', { name: 'Dismiss' })
          .click();
        await page.getByText('E-mail is not configured').waitFor({ state: 'detached' });
        await page.getByRole('link', { name: 'Leads', exact: true }).click();
        await page.getByRole('heading', { name: 'Leads' }).waitFor();
        expect(await page.getByText('E-mail is not configured').count()).toBe(0);
        await page.getByText('No AI provider is configured').waitFor();
      });
    });
  }, 60_000);

  it('a damaged database and failing scheduled backups: banners say what happened and what to do', async () => {
    await withOwnApp({ env: { BACKUP_INTERVAL_H: '24' } }, async (ailing, url) => {
      const { token } = await registerUser(ailing.app); // the admin: the backup's own error is shown
      // the backups folder cannot be made (a file is in its place), and the integrity check found damage
      writeFileSync(ailing.config.backup.dir, 'not a folder');
      await ailing.app.backups!.runOnce();
      ailing.app.databaseCondition.integrityChecked('Tree 7 page 41: btree page type invalid');
      await withPage(e2e.browser.context, async (page) => {
        await openLoggedIn(page, url, token, '#/agents');
        const damaged = page.getByRole('alert').filter({ hasText: 'The database is damaged.' });
        await damaged.waitFor();
        expect(await damaged.textContent()).toContain('chat-agent restore <backup file>');
        // not something to put away
        expect(await damaged.getByRole('button', { name: 'Dismiss' }).count()).toBe(0);
        const backups = page.getByRole('status').filter({ hasText: 'Scheduled backups are failing.' });
        await backups.waitFor();
        expect(await backups.textContent()).toContain('No scheduled backup has succeeded yet');
        await shoot(page, 'database-banners');
      });
    });
  }, 60_000);
});

describe('PUBLIC_URL banner', () => {
  const BANNER = 'PUBLIC_URL is not set';

  /**
   * Chromium's note on every page load from a plain-http origin that is not potentially
   * trustworthy (not localhost): the Cross-Origin-Opener-Policy header (helmet's) is ignored
   * there. It is the browser's, not the app's, and is what HTTPS (docs/DEPLOY.md) removes.
   */
  const untrustworthyOrigin = (errors: string[]) =>
    errors.filter(
      (e) => !/Cross-Origin-Opener-Policy header has been ignored, because the URL's origin was untrustworthy/.test(e),
    );

  /** Opens `origin`'s admin UI logged in with `token` and waits until the set-up banners are drawn. */
  async function openAgents(origin: string, token: string): Promise<{ page: Page; errors: string[] }> {
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await openLoggedIn(page, origin, token, '#/agents');
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    // neither app has mail: this banner is there once the status has been read
    await page.getByText('E-mail is not configured').waitFor();
    return { page, errors };
  }

  it('without PUBLIC_URL, opened at another host name: says links point at localhost and suggests this address', async () => {
    const { token } = await registerUser(e2e.t.app);
    const port = new URL(e2e.appUrl).port;
    const origin = `http://${OTHER_HOST}:${port}`;
    const { page, errors } = await openAgents(origin, token);
    try {
      expect(await page.evaluate(() => window.location.hostname)).toBe(OTHER_HOST);
      const banner = page.getByRole('status').filter({ hasText: BANNER });
      await banner.waitFor();
      const text = (await banner.textContent()) ?? '';
      // what the server would put in snippets (PORT is the default 3000 here; the test listens elsewhere)
      expect(e2e.t.config.publicUrl).toBe('http://localhost:3000');
      expect(text).toContain('point at http://localhost:3000');
      expect(text).toContain(`PUBLIC_URL=${origin}`);
      expect(text).toContain('docs/DEPLOY.md');
      await shoot(page, 'public-url-banner');
      // put away for this browser session, like the others
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      await page.getByText(BANNER).waitFor({ state: 'detached' });
      expect(untrustworthyOrigin(errors)).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('without PUBLIC_URL, opened at localhost or 127.0.0.1: no banner (the links work there)', async () => {
    const { token } = await registerUser(e2e.t.app);
    const port = new URL(e2e.appUrl).port;
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const { page, errors } = await openAgents(origin, token);
      try {
        expect(await page.getByText(BANNER).count(), origin).toBe(0);
        expect(errors, origin).toEqual([]);
      } finally {
        await page.close();
      }
    }
  }, 60_000);

  it('with PUBLIC_URL set, opened at another host name: no banner, and snippets use PUBLIC_URL', async () => {
    const configured = await startTestApp({ env: { PUBLIC_URL: 'https://chat.example.test' } });
    try {
      const port = await listenOnLoopback(configured);
      const { token } = await registerUser(configured.app);
      const agent = (
        await configured.app.inject({
          method: 'POST',
          url: '/api/chatbots',
          headers: auth(token),
          payload: { name: 'Configured' },
        })
      ).json();
      const { page, errors } = await openAgents(`http://${OTHER_HOST}:${port}`, token);
      try {
        expect(await page.getByText(BANNER).count()).toBe(0);
        await page.goto(`http://${OTHER_HOST}:${port}/#/agents/${agent.id}/share`);
        await page.getByLabel('Share link').waitFor();
        expect(await page.getByLabel('Share link').inputValue()).toBe(`https://chat.example.test/chat/${agent.id}`);
        expect(await page.getByText(BANNER).count()).toBe(0);
        expect(untrustworthyOrigin(errors)).toEqual([]);
      } finally {
        await page.close();
      }
    } finally {
      await configured.cleanup();
    }
  }, 60_000);
});

describe('the source list polls politely', () => {
  it('every 3 s only while something is processing, never after the page is left; a 429 is shown and polling goes on', async () => {
    const { token } = await registerUser(e2e.t.app);
    const agent = await apiAs(token, 'POST', '/api/chatbots', { name: 'Polling bot' });
    const source = {
      id: 'src-1',
      chatbot_id: agent.id,
      type: 'website',
      name: 'https://www.acme.example/',
      url: 'https://www.acme.example/',
      file_type: null,
      file_size: null,
      status: 'processing',
      error_message: null,
      progress: 0.4,
      pages_done: 4,
      pages_found: 10,
      created_at: new Date().toISOString(),
    };
    // the list the page reads is served by the test, so "processing" lasts exactly as long as wanted
    let answer: 'processing' | 'limited' | 'completed' = 'processing';
    let hits = 0;
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await page.route(`**/api/sources/chatbot/${agent.id}`, async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      hits++;
      if (answer === 'limited')
        return route.fulfill({
          status: 429,
          headers: { 'retry-after': '3' },
          json: { detail: 'Rate limit exceeded: at most 60 requests in this window; try again in 3 s' },
        });
      return route.fulfill({
        json: [answer === 'completed' ? { ...source, status: 'completed', progress: 1, pages_done: 10 } : source],
      });
    });
    // a fake clock: the page's timers run only when the test moves time on
    await page.clock.install();
    try {
      await openLoggedIn(page, e2e.appUrl, token, `#/agents/${agent.id}/knowledge`);
      const row = page.locator('.source', { hasText: 'acme.example' });
      // effects run after paint (animation frames): move time in small steps until the list is there
      await expect
        .poll(async () => {
          await page.clock.runFor(20);
          return row.isVisible();
        })
        .toBe(true);
      await row.getByText('4 of 10 pages').waitFor();
      await row.getByRole('progressbar').waitFor();
      expect(hits).toBe(1);

      /** A request that is answered after any the page has already sent (same origin, in order). */
      const roundTrip = () => page.evaluate(() => fetch('/api/health').then((r: { status: number }) => r.status));

      await page.clock.runFor(2_500);
      await roundTrip();
      expect(hits, 'no second read before 3 s').toBe(1);
      await page.clock.runFor(600);
      await expect.poll(() => hits).toBe(2);

      // leave the page: no more reads, however long
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('form', { name: 'General' }).waitFor();
      await page.clock.runFor(60_000);
      await roundTrip();
      expect(hits, 'no reads after leaving the page').toBe(2);

      // back: one read; a 429 is shown politely and the next turn reads again
      await page.getByRole('link', { name: 'Knowledge', exact: true }).click();
      await expect
        .poll(async () => {
          await page.clock.runFor(20);
          return hits;
        })
        .toBe(3);
      answer = 'limited';
      await page.clock.runFor(3_100);
      await expect.poll(() => hits).toBe(4);
      await page.getByRole('alert').filter({ hasText: 'Too many requests' }).waitFor();
      await row.waitFor(); // the list stays on screen
      answer = 'completed';
      await page.clock.runFor(3_100);
      await expect.poll(() => hits).toBe(5);
      await row.getByText('Ready').waitFor();
      // nothing is processing any more: polling stops
      await page.clock.runFor(60_000);
      await roundTrip();
      expect(hits, 'no reads once nothing is processing').toBe(5);
      expectRefusals(errors, 0, 429);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
