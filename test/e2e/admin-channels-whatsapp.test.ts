import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, shootBothWidths, withPageAs } from '../helpers/admin.js';
import { useE2eApp } from '../helpers/e2e.js';
import { type FakeWhatsApp, startFakeWhatsApp, textMessageBody } from '../helpers/fake-whatsapp.js';

/**
 * The WhatsApp card of the admin's Channels tab (issue 37), in real Chromium against the real app
 * and a fake Graph API on 127.0.0.1 (WHATSAPP_API_ROOT): the server's refusal of a field of the
 * wrong form shows above the form, the four fields connect the number (shown back, with the webhook
 * URL to paste in Meta; no secret on the page), a person's signed message is answered and its
 * conversation carries a WhatsApp badge; then Disconnect. Screenshots: test-artifacts/channels-whatsapp-*.png.
 */

let fake: FakeWhatsApp;
const e2e = useE2eApp({
  owner: true,
  env: async () => {
    fake = e2e.track(await startFakeWhatsApp());
    return { WHATSAPP_API_ROOT: fake.root };
  },
});

const shoot = (page: Page, name: string) => shootBothWidths(page, 'channels-whatsapp', name);

describe('the WhatsApp card in the admin UI', () => {
  it('connects a number by its four fields, shows the webhook URL, badges its conversations, and disconnects it', async () => {
    const agent = await e2e.newAgent();
    const c = {
      phone_number_id: '106540352242922',
      access_token: `EAAG${randomBytes(40).toString('base64url')}`,
      app_secret: randomBytes(16).toString('hex'),
      verify_token: `verify-${randomBytes(8).toString('hex')}`,
    };
    fake.addNumber({
      phoneNumberId: c.phone_number_id,
      token: c.access_token,
      display: '+1 555-078-3881',
      name: 'Acme',
    });

    await withPageAs(
      e2e.browser.context,
      e2e.appUrl,
      e2e.token,
      `#/agents/${agent.id}/channels`,
      async (page, errors) => {
        const card = page.getByRole('region', { name: 'WhatsApp' });
        await card.getByText('Not connected').waitFor();
        const hook = `${e2e.appUrl}/api/channels/whatsapp/${agent.id}`;
        expect(await card.getByLabel('Webhook callback URL').inputValue()).toMatch(
          new RegExp(`/api/channels/whatsapp/${agent.id}$`),
        );
        for (const label of ['Access token', 'App secret', 'Verify token'])
          expect(await card.getByLabel(label).getAttribute('type'), label).toBe('password');
        await card.getByLabel('Phone number ID').fill(c.phone_number_id);
        await card.getByLabel('Access token').fill(c.access_token);
        await card.getByLabel('App secret').fill('not-the-secret');
        await card.getByLabel('Verify token').fill(c.verify_token);
        await shoot(page, 'not-connected');

        // a field of the wrong form: the server's detail, naming it, above the form
        const before = errors.length;
        await card.getByRole('button', { name: 'Connect', exact: true }).click();
        await card
          .getByRole('alert')
          .getByText(/^app_secret: not an app secret/)
          .waitFor();
        expectRefusals(errors, before, 400);

        await card.getByLabel('App secret').fill(c.app_secret);
        await card.getByRole('button', { name: 'Connect', exact: true }).click();
        await card.getByText('Connected', { exact: true }).waitFor();
        await card.getByText('+1 555-078-3881').waitFor();
        expect(await card.getByLabel('Access token').count()).toBe(0);
        const content = await page.content();
        for (const secret of [c.access_token, c.app_secret, c.verify_token]) expect(content).not.toContain(secret);
        await shoot(page, 'connected');

        // Meta posts a person's message, signed: the agent answers on WhatsApp
        const body = textMessageBody({
          phoneNumberId: c.phone_number_id,
          from: '31612345678',
          name: 'Tom',
          id: 'wamid.e2e1',
          text: 'Do you ship to Norway?',
        });
        expect((await fake.deliver(hook, body, c.app_secret)).status).toBe(200);
        const [answer] = await fake.waitForSent(c.phone_number_id, 1);
        expect(answer!.to).toBe('31612345678');

        const tabs = page.getByRole('navigation', { name: 'Agent sections' });
        await tabs.getByRole('link', { name: 'Conversations' }).click();
        const list = page.getByRole('list', { name: 'Conversations, newest first' });
        await list.getByRole('link', { name: /Tom/ }).getByText('WhatsApp', { exact: true }).waitFor();

        await tabs.getByRole('link', { name: 'Channels' }).click();
        await card.getByRole('button', { name: 'Disconnect' }).click();
        const dialog = page.getByRole('dialog', { name: 'Disconnect +1 555-078-3881?' });
        await dialog.getByRole('button', { name: 'Disconnect' }).click();
        await card.getByText('Not connected').waitFor();
        const [, after] = await e2e.api('GET', `/api/chatbots/${agent.id}/channels`);
        expect(after).toMatchObject({ channel: 'whatsapp', state: 'not_connected', account_name: null });
      },
    );
  }, 90_000);
});
