import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { shootBothWidths } from '../helpers/admin.js';
import { auth, createAgent, PASSWORD, registerUser } from '../helpers/app.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Erasure in the admin UI, in real Chromium against the real app (issue 22.6): the owner opens a
 * visitor's conversation, deletes it from the transcript after a dialog that says the visitor's
 * leads go too; the list comes back without it, focus lands on the list, the other visitor stays.
 * Photographed at desktop width and at 375 px (test-artifacts/erasure-*.png).
 */

declare const document: any;

const e2e = useE2eApp();

/** Screenshots at desktop width and at 375 px; at 375 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) => shootBothWidths(page, 'erasure', name);

describe('erasing a visitor from the admin UI', () => {
  it('deletes the conversation and its leads after a confirmation; the other visitor stays', async () => {
    const { email, token } = await registerUser(e2e.t.app, { name: 'Olivia Owner' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Shop help' });
    const visit = async (session: string, name: string, text: string, phone: string) => {
      const chat = await e2e.t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${agent.id}`,
        payload: { message: text, session_id: session, user_name: name, user_email: `${session}@example.com` },
      });
      expect(chat.statusCode, chat.body).toBe(200);
      const lead = await e2e.t.app.inject({
        method: 'POST',
        url: `/api/public/lead/${agent.id}`,
        payload: { name, phone, session_id: session },
      });
      expect(lead.statusCode, lead.body).toBe(200);
      return { conversationId: chat.json().conversation_id as string, leadId: lead.json().id as string };
    };
    const walt = await visit('walt', 'Walt Stays', 'Do you sell gift cards?', '+31 20 555 0101');
    const vera = await visit('vera', 'Vera Forget', 'Please call me about my order', '+31 20 123 4567');

    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${e2e.appUrl}/`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/#\/agents$/);

    await page.goto(`${e2e.appUrl}/#/agents/${agent.id}/conversations/${vera.conversationId}`);
    const transcript = page.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Please call me about my order').waitFor();
    const deleteButton = transcript.getByRole('button', { name: 'Delete conversation' });

    // Escape cancels and gives focus back to the button
    await deleteButton.click();
    const dialog = page.getByRole('dialog', { name: 'Delete this conversation?' });
    await dialog.waitFor();
    // the dialog is ready for keys once it has put focus on Cancel (the safe choice)
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await deleteButton.evaluate((el) => el === document.activeElement)).toBe(true);

    await deleteButton.click();
    await dialog
      .getByText('It also deletes the leads (name and phone) this visitor left through Shop help in this chat')
      .waitFor();
    await dialog.getByText('Vera Forget and its 2 messages').waitFor();
    await shoot(page, 'dialog');
    await dialog.getByRole('button', { name: 'Delete conversation' }).click();

    await page.waitForURL(new RegExp(`#/agents/${agent.id}/conversations$`));
    await dialog.waitFor({ state: 'detached' });
    const list = page.getByRole('list', { name: 'Conversations, newest first' });
    await list.getByText('Walt Stays').waitFor();
    expect(await list.locator('.conv-name').allInnerTexts()).toEqual(['Walt Stays']);
    await page.getByRole('status').filter({ hasText: 'Conversation deleted' }).waitFor();
    const focused = await page.evaluate(() => ({
      tag: document.activeElement?.tagName,
      text: document.activeElement?.textContent?.trim(),
    }));
    expect(focused).toEqual({ tag: 'H2', text: 'Conversations' });
    await shoot(page, 'after');

    // the server agrees: the conversation and Vera's lead are gone, Walt's are there
    const conversations = await e2e.t.app.inject({
      method: 'GET',
      url: `/api/chat/conversations/${agent.id}`,
      headers: auth(token),
    });
    expect(conversations.json().map((c: { id: string }) => c.id)).toEqual([walt.conversationId]);
    const leads = await e2e.t.app.inject({
      method: 'GET',
      url: `/api/chatbot-leads/${agent.id}`,
      headers: auth(token),
    });
    expect(leads.json().map((l: { id: string }) => l.id)).toEqual([walt.leadId]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
