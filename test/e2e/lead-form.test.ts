import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { ROOMY_PLAN } from '../helpers/app.js';
import { shot } from '../helpers/browser.js';
import { ask, useE2eApp } from '../helpers/e2e.js';
import { animationsDone, openWidget as openWidgetAt } from '../helpers/widget-page.js';

/**
 * The widget's lead form (issue 22.6) in real Chromium, embedded on another site: off, asked
 * before the chat, or asked in the conversation after N answers with a "Not now" that is
 * remembered; a consent sentence and a link to the owner's privacy policy under it.
 */

type Json = Record<string, any>;

// roomy limits, so the plan never interferes
const e2e = useE2eApp({
  owner: true,
  plans: { free: ROOMY_PLAN },
  llm: { reply: 'Happy to help with that.', chunks: 2 },
});
const { api, newAgent } = e2e;

/** A customer's site embedding the agent with the one-line snippet; the widget opened on it. */
async function openWidget(agentId: string): Promise<{ page: Page; dialog: Locator }> {
  const url = await e2e.site(agentId);
  const page = await e2e.browser.context.newPage();
  const dialog = await openWidgetAt(page, url);
  return { page, dialog };
}

const messageBox = (dialog: Locator) => dialog.getByRole('textbox', { name: 'Type your message' });
const nameBox = (dialog: Locator) => dialog.getByRole('textbox', { name: 'Name' });
/** the form asked in the conversation, named by its introduction */
const laterForm = (dialog: Locator) =>
  dialog.getByRole('form', { name: 'Would you like us to get back to you? Leave your name and phone number.' });

const stored = (page: Page, agentId: string) =>
  page.evaluate(`JSON.parse(localStorage.getItem('chat-agent:${agentId}'))`) as Promise<Json>;

describe('the lead form', () => {
  it('a new agent asks after the first answer, in the conversation; the lead sent there reaches the owner', async () => {
    const agent = await newAgent();
    expect(agent).toMatchObject({
      lead_capture_enabled: true,
      lead_form_timing: 'after_messages',
      lead_form_after_messages: 1,
      privacy_policy_url: null,
    });
    const { page, dialog } = await openWidget(agent.id);

    // not before: the visitor can write straight away
    await messageBox(dialog).waitFor();
    expect(await nameBox(dialog).count()).toBe(0);
    await ask(page, messageBox(dialog), 'Do you deliver on Saturdays?', 1);

    // after the first answer: the form in the conversation, below the answer; the message box stays
    const form = laterForm(dialog);
    await form.waitFor();
    expect(await form.evaluate((el: any) => el.closest('[role=log]') !== null)).toBe(true);
    expect(await messageBox(dialog).isEnabled()).toBe(true);
    await form.getByText('By sending your details you agree that we contact you about your request.').waitFor();
    expect(await form.getByRole('link').count()).toBe(0); // no privacy policy set: no link
    expect(await form.getByRole('button', { name: 'Not now' }).isVisible()).toBe(true);
    // the form does not take the focus from the message box the visitor is writing in
    expect(
      await page.evaluate(
        `document.querySelector('chat-agent-widget').shadowRoot.activeElement?.getAttribute('aria-label')`,
      ),
    ).toBe('Type your message');
    await shot(page, 'lead-form-after-first-answer.png');

    const leadResponse = page.waitForResponse((r) => r.url().includes('/api/public/lead/'));
    await form.getByRole('textbox', { name: 'Name' }).fill('Grace Hopper');
    await form.getByRole('textbox', { name: 'Phone' }).fill('+1 555 0142');
    await form.getByRole('button', { name: 'Send', exact: true }).click();
    expect((await leadResponse).status()).toBe(200);
    await dialog.getByRole('status').filter({ hasText: 'Thank you! We will be in touch.' }).waitFor();
    expect(await laterForm(dialog).count()).toBe(0);
    const { session_id } = await stored(page, agent.id);
    const leads = await api('GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toEqual([expect.objectContaining({ name: 'Grace Hopper', phone: '+1 555 0142', session_id })]);

    // the name travels with the next message; after a reload the form is not asked again
    await ask(page, messageBox(dialog), 'And on Sundays?', 2);
    const conversations = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversations).toEqual([expect.objectContaining({ session_id, user_name: 'Grace Hopper' })]);
    await page.reload();
    await page.getByRole('button', { name: /chat/i }).first().click();
    await dialog.getByText('And on Sundays?').waitFor();
    expect(await laterForm(dialog).count()).toBe(0);
    expect(await nameBox(dialog).count()).toBe(0);
    await page.close();
  });

  it('before_chat asks first, instead of the message box, with the consent text and privacy link', async () => {
    const agent = await newAgent({
      lead_form_timing: 'before_chat',
      lead_consent_text: 'We only call you back about this question.',
      privacy_policy_url: 'https://acme.example/privacy',
    });
    const { page, dialog } = await openWidget(agent.id);
    const form = dialog.getByRole('form', { name: 'Before we start, please tell us how to reach you.' });
    await form.waitFor();
    expect(await messageBox(dialog).count()).toBe(0);
    expect(await form.getByRole('button', { name: 'Not now' }).count()).toBe(0); // before the chat it is not optional
    await form.getByText('We only call you back about this question.').waitFor();
    const privacy = form.getByRole('link', { name: 'Privacy policy' });
    expect(await privacy.getAttribute('href')).toBe('https://acme.example/privacy');
    expect(await privacy.getAttribute('target')).toBe('_blank');
    expect(await privacy.getAttribute('rel')).toBe('noopener noreferrer');
    await animationsDone(dialog);
    await shot(page, 'lead-form-before-chat.png');

    await form.getByRole('textbox', { name: 'Name' }).fill('Alan Turing');
    await form.getByRole('textbox', { name: 'Phone' }).fill('+44 161 496 0000');
    await form.getByRole('button', { name: 'Start chat' }).click();
    await messageBox(dialog).waitFor();
    await ask(page, messageBox(dialog), 'Hello', 1);
    expect(await nameBox(dialog).count()).toBe(0);
    expect(await api('GET', `/api/chatbot-leads/${agent.id}`)).toEqual([
      expect.objectContaining({ name: 'Alan Turing' }),
    ]);
    await page.close();
  });

  it('"Never" in the admin UI turns lead_capture_enabled off, and the widget never asks', async () => {
    const agent = await newAgent();
    const admin = await e2e.browser.context.newPage();
    await openLoggedIn(admin, e2e.appUrl, e2e.token, `#/agents/${agent.id}/settings`);
    const leads = admin.getByRole('form', { name: 'Lead capture and e-mail alerts' });
    const when = leads.getByLabel('Ask for name and phone');
    expect(await when.inputValue()).toBe('after_messages');
    expect(await leads.getByLabel('Answers before asking').inputValue()).toBe('1');
    await when.selectOption('never');
    expect(await leads.getByLabel('Answers before asking').count()).toBe(0);
    await leads.getByRole('button', { name: 'Save' }).click();
    await admin.getByText('Lead capture and e-mail alerts saved').waitFor();
    expect(await api('GET', `/api/chatbots/${agent.id}`)).toMatchObject({
      lead_capture_enabled: false,
      lead_form_timing: 'after_messages',
    });
    await admin.reload();
    expect(
      await admin
        .getByRole('form', { name: 'Lead capture and e-mail alerts' })
        .getByLabel('Ask for name and phone')
        .inputValue(),
    ).toBe('never');
    await admin.close();

    const { page, dialog } = await openWidget(agent.id);
    await ask(page, messageBox(dialog), 'First question', 1);
    await ask(page, messageBox(dialog), 'Second question', 2);
    expect(await nameBox(dialog).count()).toBe(0);
    expect(await dialog.locator('form.lead').count()).toBe(0);
    await page.close();
  });

  it('after 2 answers with N = 2; "Not now" hides it for the conversation, also after a reload; a new conversation asks again', async () => {
    const agent = await newAgent({
      lead_form_after_messages: 2,
      privacy_policy_url: 'https://acme.example/privacy?lang=en&x=1',
    });
    const { page, dialog } = await openWidget(agent.id);
    await ask(page, messageBox(dialog), 'First question', 1);
    expect(await laterForm(dialog).count()).toBe(0);
    await ask(page, messageBox(dialog), 'Second question', 2);
    const form = laterForm(dialog);
    await form.waitFor();
    await form.getByText('By sending your details you agree that we contact you about your request.').waitFor();
    const privacy = form.getByRole('link', { name: 'Privacy policy' });
    expect(await privacy.getAttribute('href')).toBe('https://acme.example/privacy?lang=en&x=1');
    expect(await privacy.getAttribute('target')).toBe('_blank');
    expect(await privacy.getAttribute('rel')).toBe('noopener noreferrer');
    await shot(page, 'lead-form-after-two-answers.png');

    await form.getByRole('button', { name: 'Not now' }).click();
    expect(await laterForm(dialog).count()).toBe(0);
    expect(await stored(page, agent.id)).toMatchObject({ lead_skipped: true, lead_done: false, answers: 2 });
    // chatting on does not bring it back, nor does a reload
    await ask(page, messageBox(dialog), 'Third question', 3);
    expect(await laterForm(dialog).count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: /chat/i }).first().click();
    await dialog.getByText('Third question').waitFor();
    await messageBox(dialog).waitFor();
    expect(await laterForm(dialog).count()).toBe(0);
    expect(await api('GET', `/api/chatbot-leads/${agent.id}`)).toEqual([]);

    // a new conversation is a new visit: asked again after 2 answers
    await dialog.getByRole('button', { name: 'Start a new conversation' }).click();
    await ask(page, messageBox(dialog), 'New first question', 1);
    expect(await laterForm(dialog).count()).toBe(0);
    await ask(page, messageBox(dialog), 'New second question', 2);
    await laterForm(dialog).waitFor();
    await page.close();
  });
});
