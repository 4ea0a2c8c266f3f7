import { describe, expect, it } from 'vitest';
import { expectRefusals, shootBothWidths } from '../helpers/admin.js';
import { apiOk, PASSWORD, startTestApp } from '../helpers/app.js';
import { listenOnLoopback, watchErrors, withPage } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Issue 31 point 2: the first screen of a new server said "Log in" although no account existed
 * yet. Until the first account exists it offers creating the owner account; from then on it is
 * the login page. In real Chromium against the real app (REGISTRATION at its default, first-only).
 */

declare const localStorage: any;

// the server's default; the test helpers' own default is open
const e2e = useE2eApp({ env: { REGISTRATION: 'first-only' } });

describe('the first screen of a new server', () => {
  it('offers creating the owner account, refuses a common password, then shows Log in once the owner exists', async () => {
    await withPage(e2e.browser.context, async (page, errors) => {
      await page.goto(`${e2e.appUrl}/`);
      await page.waitForURL(/#\/login$/);
      await page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Log in' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Log in' }).count()).toBe(0);
      await page.getByText('This server has no account yet').waitFor();
      await shootBothWidths(page, 'first-run', 'owner-account');

      await page.getByLabel('Name').fill('Olivia Owner');
      await page.getByLabel('E-mail').fill('olivia@example.com');
      // issue 31 point 4 on the page: the reason is shown and nothing is created
      await page.getByLabel('Password').fill('password');
      const refusedAt = errors.length;
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('is one of the most commonly used passwords').waitFor();
      expectRefusals(errors, refusedAt, 400);
      expect((await e2e.t.app.inject({ method: 'GET', url: '/api/auth/registration' })).json()).toMatchObject({
        has_accounts: false,
      });

      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(/#\/agents$/);
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      const token = (await page.evaluate(() => localStorage.getItem('chat-agent.token')))!;
      expect(await apiOk(e2e.t.app, token, 'GET', '/api/auth/me')).toMatchObject({
        email: 'olivia@example.com',
        role: 'admin',
      });

      // logged out, the same first screen is now the login page, with no sign-up (first-only is taken)
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/#\/login$/);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await page.locator('[data-registration="closed"]').waitFor();
      expect(await page.getByRole('heading', { name: 'Create the owner account' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
      await page.getByLabel('E-mail').fill('olivia@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/#\/agents$/);
    });
  }, 60_000);

  it('with registration closed and no account: the login page says how to create the owner on the server', async () => {
    const closed = await startTestApp({ env: { REGISTRATION: 'closed' } });
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    try {
      const url = `http://127.0.0.1:${await listenOnLoopback(closed)}`;
      await page.goto(`${url}/`);
      await page.waitForURL(/#\/login$/);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await page.getByText('This server has no account yet and registration is closed').waitFor();
      await page.getByText('chat-agent users create').waitFor();
      expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await closed.cleanup();
    }
  }, 60_000);
});
