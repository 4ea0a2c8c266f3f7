import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, shootBothWidths } from '../helpers/admin.js';
import { auth, PASSWORD, registerUser, uniqueEmail } from '../helpers/app.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp, withOwnApp } from '../helpers/e2e.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * Passwords in the admin UI, in real Chromium against the real app and a real SMTP server on
 * 127.0.0.1 (issue 22.1): changing the password on the Account page (other sessions end), and
 * "Forgot password?" → e-mail → the reset page → logging in with the new password. Pages are
 * photographed at desktop width and at 375 px (test-artifacts/account-*.png); nothing may scroll
 * sideways at 375 px, and no console error may appear but the refusals the test asks for.
 */

let smtp: TestSmtp;
// PUBLIC_URL must be the address the browser uses: the e-mailed link points there
const e2e = useE2eApp({
  publicUrl: true,
  env: async () => {
    smtp = e2e.track(await startSmtp());
    return { SMTP_URL: smtp.url, SMTP_FROM: 'accounts@chat-agent.test' };
  },
});

/** Screenshots at desktop width and at 375 px; at 375 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) => shootBothWidths(page, 'account', name);

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/#\/agents$/);
  await page.getByRole('heading', { name: 'Agents' }).waitFor();
}

describe('passwords in the admin UI', () => {
  it('changes the password on the Account page: a wrong current one is refused, other sessions end, the new one logs in', async () => {
    const { email } = await registerUser(e2e.t.app, { name: 'Ada Account' });
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${e2e.appUrl}/`);
    await logIn(page, email, PASSWORD);
    // another session of the same account (another browser) besides the one registering made: the change ends both
    const other = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: PASSWORD },
    });
    const otherToken = other.json().access_token as string;

    // the account page is behind the user's own name in the top bar
    await page
      .getByRole('banner')
      .getByRole('link', { name: / \(account\)$/ })
      .click();
    await page.waitForURL(/#\/account$/);
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    // the Details list (the Team section names the owner too)
    await page.getByRole('region', { name: 'Details' }).getByText(email).waitFor();
    const form = page.getByRole('form', { name: 'Change password' });
    await shoot(page, 'page');

    const before = errors.length;
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel(/^New password/).fill('a fresh passphrase');
    await form.getByLabel('Repeat the new password').fill('a fresh passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The current password is not correct.').waitFor();
    expectRefusals(errors, before, 400);
    await shoot(page, 'wrong-current');

    // the repetition must match before anything is sent
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('Repeat the new password').fill('a fresh passphrasE');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The new password and its repetition differ.').waitFor();

    await form.getByLabel('Repeat the new password').fill('a fresh passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('Password changed. 2 other sessions were logged out.').waitFor();
    expect(await form.getByLabel('Current password').inputValue()).toBe('');
    await shoot(page, 'changed');

    expect((await e2e.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(otherToken) })).statusCode).toBe(
      401,
    );
    // this browser is still logged in
    await page.reload();
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/#\/login$/);
    const refused = errors.length;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Incorrect email or password').waitFor();
    expectRefusals(errors, refused, 401);
    await page.getByLabel('Password').fill('a fresh passphrase');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/#\/agents$/);
    // logged out again: the next journey starts in the same browser profile
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/#\/login$/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('forgot password: the e-mailed link opens the reset page, the new password logs in, the link works once', async () => {
    const { email, token: oldSession } = await registerUser(e2e.t.app, {
      name: 'Bob Forgetful',
      email: uniqueEmail('forgetful'),
    });
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${e2e.appUrl}/#/login`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
    await shoot(page, 'login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(/#\/forgot-password$/);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await shoot(page, 'forgot');
    await page.getByLabel('E-mail').fill(email);
    const mailsBefore = smtp.messages.length;
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('If an account exists for that address, a reset link has been sent.').waitFor();
    await shoot(page, 'forgot-sent');

    const mail = await smtp.waitFor(mailsBefore + 1);
    expect(mail.to).toEqual([email]);
    const link = /(http\S+#\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(mail.body)![1]!;
    expect(link.startsWith(`${e2e.appUrl}/#/reset-password?token=`)).toBe(true);

    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await shoot(page, 'reset');
    await page.getByLabel(/^New password/).fill('remembered at last');
    await page.getByLabel('Repeat the new password').fill('remembered at last');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    await shoot(page, 'reset-done');
    expect((await e2e.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(oldSession) })).statusCode).toBe(
      401,
    );

    await page.getByRole('button', { name: 'Go to log in' }).click();
    await page.waitForURL(/#\/login$/);
    await logIn(page, email, 'remembered at last');

    // the same link again (logged in or not, the page opens): refused, with a way to ask again
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel(/^New password/).fill('a second attempt');
    await page.getByLabel('Repeat the new password').fill('a second attempt');
    const before = errors.length;
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('This link is invalid, already used or expired. Ask for a new one.').waitFor();
    expectRefusals(errors, before, 400);
    await shoot(page, 'reset-used');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('without mail the login page offers no "Forgot password?"', async () => {
    await withOwnApp({ env: { EMBEDDINGS: 'none' } }, async (plain, url) => {
      // with no account the first screen creates the owner's; the login page comes once one exists
      await registerUser(plain.app);
      const page = await e2e.browser.context.newPage();
      const availability = page.waitForResponse((r) => r.url().endsWith('/api/auth/password-reset'));
      await page.goto(`${url}/#/login`);
      expect(await (await availability).json()).toEqual({ available: false });
      await page.locator('.auth-card[data-registration]').waitFor();
      expect(await page.getByRole('link', { name: 'Forgot password?' }).count()).toBe(0);
      await page.close();
    });
  }, 60_000);
});
