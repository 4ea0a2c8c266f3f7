import { describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { shot } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { widgetAnimationsDone, widgetIdle } from '../helpers/widget-page.js';

/**
 * Issue 23 in real Chromium: the greeting bubble beside the closed widget, starter questions, a
 * visitor's thumbs down and "Talk to a person"; then the owner finds the conversation escalated
 * and unread in the admin UI, filters by status, searches the transcripts and marks it resolved.
 * Screenshots: test-artifacts/feedback-*.png.
 */

const e2e = useE2eApp({ owner: true });
const { api, site } = e2e;

describe('widget and admin UI (issue 23)', () => {
  it('greets once after the delay while closed, and the greeting can be dismissed', async () => {
    const agent = await api('POST', '/api/chatbots', {
      name: 'Acme helper',
      lead_capture_enabled: false,
      greeting_message: 'Need a hand? Ask me anything.',
      greeting_delay_s: 1,
    });
    const url = await site(agent.id);
    const page = await e2e.browser.context.newPage();
    await page.goto(url);
    const greeting = page.getByRole('button', { name: 'Need a hand? Ask me anything.' });
    await expect.poll(() => greeting.isVisible(), { timeout: 5000 }).toBe(true);
    await widgetAnimationsDone(page);
    await shot(page, 'feedback-greeting.png');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await greeting.count()).toBe(0);
    // once per visitor session: not again after a reload
    await page.reload();
    await page.getByRole('button', { name: /chat/i }).first().waitFor();
    await page.waitForTimeout(2000);
    expect(await greeting.count()).toBe(0);
    await page.close();
  });

  it('a visitor uses a starter question, gives a thumbs down and asks for a person; the owner sees, filters, searches and resolves', async () => {
    const agent = await api('POST', '/api/chatbots', {
      name: 'Acme helper',
      lead_capture_enabled: false,
      starter_questions: ['What are your opening hours?', 'Do you ship abroad?'],
    });
    const page = await e2e.browser.context.newPage();
    await page.goto(await site(agent.id));
    await page.getByRole('button', { name: /chat/i }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const starter = dialog.getByRole('button', { name: 'What are your opening hours?' });
    await starter.waitFor();
    expect(await dialog.getByRole('button', { name: 'Talk to a person' }).count()).toBe(0);
    await widgetAnimationsDone(page);
    await shot(page, 'feedback-starters.png');
    await starter.click();
    await expect.poll(() => dialog.locator('.msg.assistant:not(:has(.typing))').count()).toBe(2);
    await widgetIdle(page);
    expect(await dialog.getByRole('button', { name: 'Do you ship abroad?' }).count()).toBe(0);
    expect(await dialog.locator('.msg.user').innerText()).toContain('What are your opening hours?');

    const down = dialog.getByRole('button', { name: 'Not helpful' });
    await down.click();
    await expect.poll(() => down.getAttribute('aria-pressed')).toBe('true');
    await dialog.getByRole('button', { name: 'Talk to a person' }).click();
    await dialog.getByText('We have asked a person to take over').waitFor();
    expect(await dialog.getByRole('button', { name: 'Talk to a person' }).count()).toBe(0);
    await shot(page, 'feedback-widget.png');
    // a thumbs-down pressed again clears it
    await down.click();
    await expect.poll(() => down.getAttribute('aria-pressed')).toBe('false');
    await down.click();
    await expect.poll(() => down.getAttribute('aria-pressed')).toBe('true');

    const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({ status: 'escalated', unread: true, rating: 1 });

    // the owner's admin UI
    const admin = await e2e.browser.context.newPage();
    await admin.setViewportSize({ width: 1280, height: 800 });
    await openLoggedIn(admin, e2e.appUrl, e2e.token, `#/agents/${agent.id}/conversations`);
    const list = admin.getByRole('list', { name: 'Conversations, newest first' });
    await list.waitFor();
    await list.getByRole('img', { name: 'Unread' }).waitFor();
    expect(await list.getByText('escalated').count()).toBe(1);
    await shot(admin, 'feedback-admin-list.png');

    const status = admin.getByRole('combobox', { name: 'Status' });
    await status.selectOption('resolved');
    await admin.getByText('No conversations match.').waitFor();
    await status.selectOption('escalated');
    await list.waitFor();
    expect(await list.getByRole('listitem').count()).toBe(1);
    await status.selectOption('');
    const search = admin.getByRole('searchbox', { name: 'Search transcripts' });
    await search.fill('nothing-like-this');
    await search.press('Enter');
    await admin.getByText('No conversations match.').waitFor();
    await search.fill('OPENING hours');
    await search.press('Enter');
    await list.waitFor();
    expect(await list.getByRole('listitem').count()).toBe(1);

    await list.getByRole('link').first().click();
    const transcript = admin.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Visitor’s feedback: not helpful').waitFor();
    await transcript.getByRole('button', { name: 'Mark resolved' }).click();
    await transcript.getByRole('button', { name: 'Reopen' }).waitFor();
    await shot(admin, 'feedback-admin-resolved.png');
    const [after] = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(after).toMatchObject({ status: 'resolved', unread: false });
    await admin.close();
    await page.close();
  });
});
