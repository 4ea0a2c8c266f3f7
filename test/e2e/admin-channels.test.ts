import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, shootBothWidths, withPageAs } from '../helpers/admin.js';
import { useE2eApp } from '../helpers/e2e.js';
import { type FakeTelegram, startFakeTelegram } from '../helpers/fake-telegram.js';

/**
 * Channels in the admin UI (issue 36), in real Chromium against the real app and a fake Telegram
 * Bot API on 127.0.0.1 (TELEGRAM_API_ROOT): the owner opens the agent's Channels tab, reads the
 * server's refusal of a token of the wrong form, connects a bot with a good token (its handle is
 * shown, the token never again), a person writes to the bot and gets the agent's answer, and that
 * conversation carries a Telegram badge in the agent's conversations, its transcript and the inbox
 * (a website conversation none); the agent's analytics count both channels; then Disconnect.
 * Screenshots: test-artifacts/channels-*.png.
 */

let fake: FakeTelegram;
const e2e = useE2eApp({
  owner: true,
  env: async () => {
    fake = e2e.track(await startFakeTelegram());
    return { TELEGRAM_API_ROOT: fake.root };
  },
});

const TOKEN = `123456789:${'A'.repeat(35)}`;
const shoot = (page: Page, name: string) => shootBothWidths(page, 'channels', name);

describe('channels in the admin UI', () => {
  it('connects a Telegram bot by its token, badges its conversations, counts them, and disconnects it', async () => {
    const agent = await e2e.newAgent();
    fake.addBot({ token: TOKEN, username: 'acme_help_bot', first_name: 'Acme help' });
    // a website conversation, which shows no channel badge
    const web = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}`,
      payload: { message: 'Do you ship to Norway?', session_id: 'web-visitor', user_name: 'Wendy Web' },
    });
    expect(web.statusCode, web.body).toBe(200);

    await withPageAs(
      e2e.browser.context,
      e2e.appUrl,
      e2e.token,
      `#/agents/${agent.id}/channels`,
      async (page, errors) => {
        const tabs = page.getByRole('navigation', { name: 'Agent sections' });
        expect(await tabs.getByRole('link', { name: 'Channels' }).getAttribute('aria-current')).toBe('page');
        const card = page.getByRole('region', { name: 'Telegram' });
        await card.getByText('Not connected').waitFor();
        await card.getByRole('link', { name: '@BotFather' }).waitFor();
        await card.getByText('/newbot').waitFor();
        const field = card.getByLabel('Bot token');
        expect(await field.getAttribute('type')).toBe('password');
        await shoot(page, 'not-connected');

        // a token of the wrong form: the server's detail, naming bot_token, beside the form
        const before = errors.length;
        await field.fill('not-a-token');
        await card.getByRole('button', { name: 'Connect', exact: true }).click();
        await card
          .getByRole('alert')
          .getByText(/^bot_token: not a Telegram bot token/)
          .waitFor();
        expectRefusals(errors, before, 400);
        await shoot(page, 'refused');

        // a good token: the bot's handle, a link to its chat; the token is nowhere on the page
        await field.fill(TOKEN);
        await card.getByRole('button', { name: 'Connect', exact: true }).click();
        const handle = card.getByRole('link', { name: '@acme_help_bot' });
        await handle.waitFor();
        expect(await handle.getAttribute('href')).toBe('https://t.me/acme_help_bot');
        await card.getByText('Connected', { exact: true }).waitFor();
        await card.getByText(/^Long polling/).waitFor();
        await card.getByText('None yet').waitFor();
        expect(await card.getByLabel(/bot token/i).count()).toBe(0);
        expect(await page.content()).not.toContain(TOKEN);
        const [telegram] = await e2e.api('GET', `/api/chatbots/${agent.id}/channels`);
        expect(telegram).toMatchObject({ channel: 'telegram', state: 'connected', account_name: '@acme_help_bot' });
        await shoot(page, 'connected');

        // a person writes to the bot and gets the agent's answer
        fake.pushMessage(TOKEN, {
          chatId: 4242,
          from: { id: 4242, first_name: 'Tom' },
          text: 'Do you ship to Norway?',
        });
        const [answer] = await fake.waitForSent(TOKEN, 1);
        expect(answer!.chat_id).toBe(4242);
        await card.getByRole('button', { name: 'Refresh' }).click();
        await card.getByText('None yet').waitFor({ state: 'detached' });

        // the conversation carries the Telegram badge in the list and the transcript; the website's none
        await tabs.getByRole('link', { name: 'Conversations' }).click();
        const list = page.getByRole('list', { name: 'Conversations, newest first' });
        const tom = list.getByRole('link', { name: /Tom/ });
        await tom.getByText('Telegram', { exact: true }).waitFor();
        const wendy = list.getByRole('link', { name: /Wendy Web/ });
        await wendy.waitFor();
        expect(await wendy.getByText('Telegram', { exact: true }).count()).toBe(0);
        await tom.click();
        const transcript = page.getByRole('region', { name: 'Transcript' });
        await transcript.getByRole('heading', { name: 'Tom' }).waitFor();
        await transcript.getByText('Telegram', { exact: true }).waitFor();
        await transcript.getByText('Do you ship to Norway?').waitFor();
        await shoot(page, 'transcript');

        // the agent's analytics count conversations per channel
        await tabs.getByRole('link', { name: 'Analytics' }).click();
        const table = page.getByRole('table', { name: 'Conversations per channel' });
        await table.waitFor();
        expect(await table.locator('tbody tr td:first-child').allInnerTexts()).toEqual(['Website', 'Telegram']);
        await expect
          .poll(async () => (await table.getByRole('row').nth(2).getByRole('cell').allInnerTexts()).slice(0, 2))
          .toEqual(['Telegram', '1']);
        await shoot(page, 'analytics');

        // disconnect, after confirming: the token field is back
        await tabs.getByRole('link', { name: 'Channels' }).click();
        await card.getByRole('button', { name: 'Disconnect' }).click();
        const dialog = page.getByRole('dialog', { name: 'Disconnect @acme_help_bot?' });
        await dialog.getByRole('button', { name: 'Disconnect' }).click();
        await card.getByText('Not connected').waitFor();
        expect(await card.getByLabel('Bot token').inputValue()).toBe('');
        const [after] = await e2e.api('GET', `/api/chatbots/${agent.id}/channels`);
        expect(after).toMatchObject({ channel: 'telegram', state: 'not_connected', account_name: null });
      },
    );

    // the inbox shows the badge too, after the bot is gone (the conversation stays)
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, '#/inbox', async (page) => {
      const list = page.getByRole('list', { name: 'Conversations, newest first' });
      await list.getByRole('link', { name: /Tom/ }).getByText('Telegram', { exact: true }).waitFor();
      expect(
        await list
          .getByRole('link', { name: /Wendy Web/ })
          .getByText('Telegram', { exact: true })
          .count(),
      ).toBe(0);
      await shoot(page, 'inbox');
    });
  }, 90_000);

  it("a bot whose token stopped working shows Telegram's reason and takes a new token", async () => {
    const agent = await e2e.newAgent();
    const base = `/api/chatbots/${agent.id}/channels`;
    const old = `555000111:${'B'.repeat(35)}`;
    const renewed = `555000111:${'C'.repeat(35)}`;
    fake.addBot({ token: old, id: 555000111, username: 'shop_help_bot' });
    await e2e.api('PUT', `${base}/telegram`, { bot_token: old });
    await fake.waitForPoll(old);
    // revoked in BotFather: the next poll is refused and the channel stops
    fake.revoke(old);
    await expect.poll(async () => (await e2e.api('GET', base))[0].state).toBe('error');
    const [stopped] = await e2e.api('GET', base);
    expect(stopped.error).toBeTruthy();

    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, `#/agents/${agent.id}/channels`, async (page) => {
      const card = page.getByRole('region', { name: 'Telegram' });
      await card.getByText('Stopped', { exact: true }).waitFor();
      await card.getByRole('alert').getByText(stopped.error).waitFor();
      await card.getByRole('link', { name: '@shop_help_bot' }).waitFor();
      await shoot(page, 'stopped');

      // BotFather's new token for the same bot connects it again
      fake.addBot({ token: renewed, id: 555000111, username: 'shop_help_bot' });
      await card.getByLabel('New bot token').fill(renewed);
      await card.getByRole('button', { name: 'Connect', exact: true }).click();
      await card.getByText('Connected', { exact: true }).waitFor();
      expect(await card.getByRole('alert').count()).toBe(0);
      expect(await card.getByLabel(/bot token/i).count()).toBe(0);
      expect(await page.content()).not.toContain(renewed);
    });
    expect((await e2e.api('GET', base))[0]).toMatchObject({ state: 'connected', error: null });
  });
});
