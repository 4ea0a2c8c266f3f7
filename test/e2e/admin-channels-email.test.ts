import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, shootBothWidths, withPageAs } from '../helpers/admin.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * The E-mail card of the admin's Channels tab (issue 37), in real Chromium against the real app:
 * the server (without ALLOW_PRIVATE_URLS) refuses a mailbox on a private address, and its detail,
 * naming imap_url, shows above the form without the URL's password; the fields are labelled, the
 * URLs plain text the browser does not remember. Screenshots: test-artifacts/channels-email-*.png.
 */

const e2e = useE2eApp({ owner: true });

const shoot = (page: Page, name: string) => shootBothWidths(page, 'channels-email', name);

describe('the E-mail card in the admin UI', () => {
  it('shows the steps and the form, and the server’s refusal of a private IMAP host without the password', async () => {
    const agent = await e2e.newAgent();
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await withPageAs(
      e2e.browser.context,
      e2e.appUrl,
      e2e.token,
      `#/agents/${agent.id}/channels`,
      async (page, errors) => {
        const card = page.getByRole('region', { name: 'E-mail' });
        await card.getByText('Not connected').waitFor();
        await card.getByText(/app password/).waitFor();
        await card.getByText(/at most 10 answers a day/).waitFor();
        // this server has no SMTP settings: the optional SMTP URL's hint says replies would wait
        await card.getByText(/replies wait until an admin sets them/).waitFor();
        const imap = card.getByLabel('IMAP URL');
        const address = card.getByLabel('Address');
        const smtp = card.getByLabel('SMTP URL (optional)');
        for (const [field, type] of [
          [imap, 'text'],
          [address, 'email'],
          [smtp, 'text'],
        ] as const) {
          expect(await field.getAttribute('type')).toBe(type);
          expect(await field.getAttribute('autocomplete')).toBe('off');
        }
        expect(await imap.getAttribute('spellcheck')).toBe('false');
        expect(await imap.getAttribute('required')).not.toBeNull();
        expect(await smtp.getAttribute('required')).toBeNull();
        await shoot(page, 'not-connected');

        // a mailbox on 127.0.0.1: the server refuses it before connecting; its detail names imap_url
        const before = errors.length;
        await imap.fill(`imaps://support%40acme.test:${password}@127.0.0.1:1`);
        await address.fill('support@acme.test');
        await card.getByRole('button', { name: 'Connect', exact: true }).click();
        const alert = card.getByRole('alert');
        await alert.getByText(/^imap_url: 127\.0\.0\.1 is not a public address/).waitFor();
        expectRefusals(errors, before, 400);
        expect(await alert.textContent()).not.toContain(password);
        expect(await page.content()).not.toContain(password);
        await card.getByText('Not connected').waitFor();
        await shoot(page, 'refused');

        const [, , email] = await e2e.api('GET', `/api/chatbots/${agent.id}/channels`);
        expect(email).toMatchObject({ channel: 'email', state: 'not_connected', account_name: null });
      },
    );
  }, 90_000);
});
