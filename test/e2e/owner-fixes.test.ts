import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withPageAs } from '../helpers/admin.js';
import { createAgent, registerUser } from '../helpers/app.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * What an owner found in the admin UI (issue 31 owner 8 and 9), each shown in real Chromium
 * against the real app (real SQLite, no AI provider: agents answer from their knowledge).
 */

const e2e = useE2eApp();

/** withPage logged in as `token` at `hash` (see withPageAs). */
const asUser = (token: string, hash: string, use: (page: Page, errors: string[]) => Promise<void>) =>
  withPageAs(e2e.browser.context, e2e.appUrl, token, hash, use);

async function post(url: string, payload: Record<string, unknown>): Promise<any> {
  const res = await e2e.t.app.inject({ method: 'POST', url, payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('widget leads in the admin (issue 31 owner 8)', () => {
  it('each lead links to its conversation, can be deleted after a confirmation, and a phone that is no number is flagged', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Lea Leads' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Shop helper' });
    // Chatty wrote in the chat, then left her details; Silent left hers before writing anything
    const { conversation_id } = await post(`/api/public/chat/${agent.id}`, {
      message: 'Do you deliver?',
      session_id: 'sess-chatty',
    });
    await post(`/api/public/lead/${agent.id}`, { name: 'Chatty', phone: '+31 20 123 4567', session_id: 'sess-chatty' });
    await post(`/api/public/lead/${agent.id}`, { name: 'Silent', phone: 'call me maybe', session_id: 'sess-silent' });

    for (const [hash, label] of [
      [`#/agents/${agent.id}/leads`, 'Widget leads'],
      ['#/leads', 'Widget leads of all agents'],
    ] as const) {
      await asUser(token, hash, async (page) => {
        const table = page.getByRole('table', { name: label });
        const chatty = table.getByRole('row').filter({ hasText: 'Chatty' });
        const silent = table.getByRole('row').filter({ hasText: 'Silent' });
        await chatty.waitFor();
        // the phone stays as typed; one that does not look like a number gets a warning
        await silent.getByText('call me maybe').waitFor();
        expect(await silent.getByText('Does not look like a phone number').count()).toBe(1);
        expect(await chatty.getByText('Does not look like a phone number').count()).toBe(0);
        // the conversation link (none for a visitor who has not written)
        const link = chatty.getByRole('link', { name: 'Conversation with Chatty' });
        expect(await link.getAttribute('href')).toBe(`#/agents/${agent.id}/conversations/${conversation_id}`);
        expect(await silent.getByRole('link', { name: /^Conversation/ }).count()).toBe(0);
      });
    }

    await asUser(token, `#/agents/${agent.id}/leads`, async (page) => {
      const table = page.getByRole('table', { name: 'Widget leads' });
      // the link opens the transcript
      await table.getByRole('link', { name: 'Conversation with Chatty' }).click();
      await page.getByText('Do you deliver?').waitFor();
      await page.goBack();
      // Delete asks first; Cancel keeps the lead
      await table.getByRole('button', { name: 'Delete lead Silent' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this lead?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await table.getByRole('row').filter({ hasText: 'Silent' }).count()).toBe(1);
      await table.getByRole('button', { name: 'Delete lead Silent' }).click();
      await dialog.getByRole('button', { name: 'Delete lead' }).click();
      await page.getByText('Lead deleted').waitFor();
      await table.getByRole('row').filter({ hasText: 'Silent' }).waitFor({ state: 'detached' });
      expect(await table.getByRole('row').filter({ hasText: 'Chatty' }).count()).toBe(1);
      // gone on the server too
      const left = await e2e.t.app.inject({
        method: 'GET',
        url: `/api/chatbot-leads/${agent.id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(left.json().map((l: { name: string }) => l.name)).toEqual(['Chatty']);
    });
  }, 60_000);
});

describe('small defects (issue 31 owner 9)', () => {
  it('one thumbs-down on one answer reads as that, not as a one-star conversation', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Rita Ratings' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Rated helper' });
    const first = await post(`/api/public/chat/${agent.id}`, { message: 'First question', session_id: 'sess-r' });
    await post(`/api/public/chat/${agent.id}`, { message: 'Second question', session_id: 'sess-r' });
    await post(`/api/public/chat/${agent.id}/feedback`, {
      session_id: 'sess-r',
      message_id: first.message_id,
      value: -1,
    });

    await asUser(token, `#/agents/${agent.id}/conversations/${first.conversation_id}`, async (page) => {
      const item = page.getByRole('link', { name: /Anonymous visitor/ });
      await item.waitFor();
      const line = await item.innerText();
      expect(line).toContain('👍 0 👎 1');
      expect(line).not.toContain('/5');
      await page.getByRole('img', { name: '0 thumbs up, 1 thumbs down' }).waitFor();
      expect(await page.getByLabel(/Rated \d of 5/).count()).toBe(0);
      expect(await page.getByText('★').count()).toBe(0);
    });
  }, 60_000);

  it('the dashboard says which messages each figure counts: all of them ever, or those sent to agents this month', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Dana Dashboard' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Counted helper' });
    // three visitor messages, three answers: 6 messages stored, 3 counted against the plan
    for (const message of ['One', 'Two', 'Three']) {
      await post(`/api/public/chat/${agent.id}`, { message, session_id: 'sess-count' });
    }
    await asUser(token, '#/analytics', async (page) => {
      const stat = page.getByTestId('stat-messages');
      await stat.getByText('6', { exact: true }).waitFor();
      expect(await stat.innerText()).toMatch(/Messages \(all time\)[\s\S]*visitors’ and agents’/);
      const meter = page.locator('[data-usage="Messages to agents this month"]');
      await meter.getByText('3 of 1,000').waitFor();
      // no figure left that reads as "the messages" without saying which
      expect(await page.getByText('Messages this month', { exact: true }).count()).toBe(0);
      expect(await page.locator('.stat-label', { hasText: /^Messages$/ }).count()).toBe(0);
    });
  }, 60_000);
});
