import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shootBothWidths, withPageAs } from '../helpers/admin.js';
import { auth, registerUser, type TestApp } from '../helpers/app.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { withOwnApp } from '../helpers/e2e.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * Admin > Server settings in real Chromium against the real app: the admin saves the mail server
 * and sends a test message (received by a real SMTP server on loopback), saves a provider key
 * (a fake OpenAI server) and sees its hint, never the key, anywhere in the page. A server whose
 * environment sets a provider and SMTP says so and offers no input for them. Screenshots at
 * desktop width and 375 px (test-artifacts/admin-server-settings-*.png); nothing scrolls sideways.
 */

declare const document: any;

const KEY = 'sk-e2e-QWERTYUIOPASDFGHJKL-7Hx3';

let browser: Browser;
let fake: FakeLlm;
let smtp: TestSmtp;

/** Screenshots at desktop width and at 375 px; at 375 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) => shootBothWidths(page, 'admin-server-settings', name, { settle: true });

type Admin = Awaited<ReturnType<typeof registerUser>>;

/**
 * An app of its own with `env` (on top of open registration and no embeddings), its first account
 * (an admin, with `admin`'s fields), and for `use` that admin's page once the server settings are drawn; no
 * console error may be left when `use` is done (withPage). The page and the app are closed
 * afterwards.
 */
async function withAdminPage(
  env: Record<string, string>,
  admin: { name?: string },
  use: (page: Page, t: TestApp, admin: Admin) => Promise<void>,
): Promise<void> {
  await withOwnApp({ env: { REGISTRATION: 'open', EMBEDDINGS: 'none', ...env } }, async (t, url) => {
    const { token, email } = await registerUser(t.app, admin);
    await withPageAs(browser.context, url, token, '#/admin', async (page) => {
      await page.getByRole('heading', { name: 'Server settings' }).waitFor();
      await page.getByRole('region', { name: 'E-mail (SMTP)' }).waitFor();
      await use(page, t, { token, email });
    });
  });
}

beforeAll(async () => {
  fake = await startFakeLlm('openai', { reply: 'OK' });
  smtp = await startSmtp();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await smtp?.close();
}, 60_000);

describe('Admin > Server settings', () => {
  it('a typed key can be tested before it is saved; saving it takes the "No AI provider" banner away on the same page (issue 31 owner 9)', async () => {
    await withAdminPage({}, { name: 'Tess Tester' }, async (page) => {
      const openai = page.getByRole('region', { name: 'OpenAI', exact: true });
      const banner = page.getByText('No AI provider is configured');
      await banner.waitFor();
      const test = openai.getByRole('button', { name: 'Test' });
      // nothing typed, nothing saved: nothing to test
      expect(await test.isDisabled()).toBe(true);
      await openai.getByLabel('API key').fill(KEY);
      await openai.getByLabel('Base URL').fill(fake.baseURL);
      expect(await test.isDisabled()).toBe(false);
      const before = fake.requests.length;
      await test.click();
      await openai.getByText('The openai provider answered with the key typed here').waitFor();
      expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(fake.requests.length).toBe(before + 1);
      // tested, not saved: still "Not set", the key still in its box, the banner still up
      await openai.getByText('Not set', { exact: true }).waitFor();
      expect(await openai.getByLabel('API key').inputValue()).toBe(KEY);
      expect(await banner.count()).toBe(1);

      await openai.getByRole('button', { name: 'Save' }).click();
      await openai.getByText('Saved here', { exact: true }).waitFor();
      // the banner goes without a reload or a page change
      await banner.waitFor({ state: 'detached' });
      expect(page.url()).toContain('#/admin');
      // the saved key tests as before
      await test.click();
      await openai.getByText('The openai provider answered (model').waitFor();
    });
  }, 60_000);

  it('the admin saves the mail server, sends a test message, saves a provider key and only ever sees its hint', async () => {
    await withAdminPage({}, { name: 'Ada Admin' }, async (page, t, admin) => {
      const mail = page.getByRole('region', { name: 'E-mail (SMTP)' });
      const openai = page.getByRole('region', { name: 'OpenAI', exact: true });
      await mail.getByText('Not set', { exact: true }).waitFor();
      await openai.getByText('Not set', { exact: true }).waitFor();
      expect(await mail.getByRole('button', { name: 'Send a test message' }).isDisabled()).toBe(true);
      await page.getByText('are set in the server’s environment only').waitFor(); // embeddings
      await shoot(page, 'empty');

      // the mail server: saved, then a test message to the admin's own address
      await mail.getByLabel('SMTP URL').fill(smtp.url);
      await mail.getByLabel('From').fill('Alerts <alerts@chat-agent.test>');
      await mail.getByRole('button', { name: 'Save' }).click();
      await mail.getByText('Saved here', { exact: true }).waitFor();
      await mail.getByText(`smtp://127.0.0.1:${smtp.port}`, { exact: true }).waitFor();
      expect(await mail.getByLabel('SMTP URL').inputValue()).toBe('');
      await mail.getByRole('button', { name: 'Send a test message' }).click();
      await mail.getByText(`A test message was sent to ${admin.email}.`).waitFor();
      const received = await smtp.waitFor(1);
      expect(received.to).toEqual([admin.email]);
      expect(received.from).toBe('alerts@chat-agent.test');
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(admin.token) })).json().mail
          .configured,
      ).toBe(true);

      // a provider key: saved, its hint shown, the key itself nowhere in the page
      await openai.getByLabel('API key').fill(KEY);
      await openai.getByLabel('Base URL').fill(fake.baseURL);
      await openai.getByRole('button', { name: 'Save' }).click();
      await openai.getByText('Saved here', { exact: true }).waitFor();
      await openai.getByText(`…${KEY.slice(-4)}`, { exact: true }).waitFor();
      expect(await openai.getByLabel('API key').inputValue()).toBe('');
      expect(await page.content()).not.toContain(KEY);
      expect(await page.evaluate(() => document.body.innerText)).not.toContain(KEY);
      await openai.getByRole('button', { name: 'Test' }).click();
      await openai.getByText('The openai provider answered').waitFor();
      expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(await page.content()).not.toContain(KEY);
      await shoot(page, 'saved');

      // the set-up banners follow at the next page, without a reload
      await page.getByRole('link', { name: 'Agents', exact: true }).click();
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      await page.getByText('No AI provider is configured').waitFor({ state: 'detached' });
      expect(await page.getByText('E-mail is not configured').count()).toBe(0);
      await page.getByRole('link', { name: 'Admin', exact: true }).click();
      await page.getByRole('heading', { name: 'Server settings' }).waitFor();

      // removed again: the card says so
      await openai.getByRole('button', { name: 'Remove' }).click();
      await openai.getByText('Not set', { exact: true }).waitFor();
    });
  }, 60_000);

  it('what the environment sets is shown as such, with no input to change it', async () => {
    await withAdminPage({ OPENAI_API_KEY: 'sk-env-0123456789-envKEY9', SMTP_URL: smtp.url }, {}, async (page) => {
      const openai = page.getByRole('region', { name: 'OpenAI', exact: true });
      const mail = page.getByRole('region', { name: 'E-mail (SMTP)' });
      await openai.getByText('From the environment', { exact: true }).waitFor();
      expect(await openai.getByText('Set by OPENAI_API_KEY on the server; change it there.').count()).toBe(1);
      expect(await openai.getByLabel('API key').isDisabled()).toBe(true);
      expect(await openai.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      await openai.getByText('…KEY9', { exact: true }).waitFor();
      expect(await mail.getByText('Set by SMTP_URL on the server; change it there.').count()).toBe(1);
      expect(await mail.getByLabel('SMTP URL').isDisabled()).toBe(true);
      // the environment's mail server can still be tried
      expect(await mail.getByRole('button', { name: 'Send a test message' }).isDisabled()).toBe(false);
      // a provider the environment leaves alone is open to the admin
      expect(await page.getByRole('region', { name: 'Anthropic' }).getByLabel('API key').isDisabled()).toBe(false);
      expect(await page.content()).not.toContain('sk-env-0123456789-envKEY9');
      await shoot(page, 'environment');
    });
  }, 60_000);
});
