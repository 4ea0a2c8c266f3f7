import { describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { shot, watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import type { RecordedRequest } from '../helpers/fake-llm.js';
import { FAVICON, askWidget, openWidget } from '../helpers/widget-page.js';

/**
 * A drafted reply (issue 34 part 5) in real Chromium, the widget on another origin: a visitor asks;
 * the owner takes the conversation over and the reply box fills with a suggested reply from the
 * knowledge base (the fake model's, asked with the passage in its prompt), marked as such; they ask
 * for another, edit it and send it; the visitor's open widget shows the edited text, and the
 * transcript holds only what was sent. Screenshots: test-artifacts/draft-reply-*.png.
 */

type Json = Record<string, any>;

const PASSAGE = 'Worn jackets can be returned within 30 days when the receipt is included.';
const FIRST_DRAFT = 'Yes, worn jackets can be returned within 30 days with the receipt.';
const SECOND_DRAFT = 'Hello! You can return a worn jacket within 30 days, as long as you have the receipt.';
const EDITED = 'Hi, Anna here. You can return a worn jacket within 30 days, as long as you have the receipt.';

const isDraft = (r: RecordedRequest) =>
  (r.body?.messages as Json[] | undefined)?.some(
    (m) => m.role === 'system' && String(m.content).includes('You are drafting the next reply'),
  ) ?? false;

let drafts = 0;
const e2e = useE2eApp({
  owner: true,
  llm: { reply: (r) => (isDraft(r) ? (++drafts === 1 ? FIRST_DRAFT : SECOND_DRAFT) : 'The agent answers.') },
});
const { api } = e2e;

const site = (agentId: string) => e2e.site(agentId, { extraPages: FAVICON });

describe('drafted reply in the browser (issue 34.5)', () => {
  it('the owner takes over, the reply box fills with a suggested reply; they edit and send it to the open widget', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Acme helper', lead_capture_enabled: false });
    await api('POST', `/api/sources/chatbot/${agent.id}/text`, { name: 'Returns', content: PASSAGE });

    const page = await e2e.browser.context.newPage();
    const visitorErrors = watchErrors(page);
    const dialog = await openWidget(page, await site(agent.id));
    await askWidget(page, dialog, 'Can I return a worn jacket?');
    await expect.poll(() => dialog.locator('.msg.assistant').count()).toBe(2);

    const admin = await e2e.browser.context.newPage();
    const adminErrors = watchErrors(admin);
    await admin.setViewportSize({ width: 1280, height: 800 });
    await openLoggedIn(admin, e2e.appUrl, e2e.token, `#/agents/${agent.id}/conversations`);
    const list = admin.getByRole('list', { name: 'Conversations, newest first' });
    await list.getByRole('link').first().click();
    const transcript = admin.getByRole('region', { name: 'Transcript' });
    await transcript.getByRole('button', { name: 'Take over' }).click();
    await dialog.getByText('A person has joined the conversation.').waitFor();

    // the reply box fills with the draft, marked as a suggestion with where it comes from
    const reply = transcript.getByRole('textbox', { name: 'Your reply to the visitor' });
    await expect.poll(() => reply.inputValue()).toBe(FIRST_DRAFT);
    await transcript.getByText('Suggested reply — edit before sending.').waitFor();
    await transcript.getByText('From: Returns.').waitFor();
    await shot(transcript, 'draft-reply-suggested.png');
    const asked = e2e.llm.requests.filter(isDraft);
    expect(asked).toHaveLength(1);
    const system = (asked[0]!.body.messages as Json[]).find((m) => m.role === 'system')!.content;
    expect(system).toContain(PASSAGE);
    expect(asked[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Can I return a worn jacket?' });

    // another suggestion replaces it; the owner edits it and sends it
    await transcript.getByRole('button', { name: 'Suggest another reply' }).click();
    await expect.poll(() => reply.inputValue()).toBe(SECOND_DRAFT);
    await reply.fill(EDITED);
    await transcript.getByText('Suggested reply — edit before sending.').waitFor();
    await reply.press('Enter');
    await dialog.locator('.msg.person').getByText(EDITED).waitFor();
    await transcript.getByText(EDITED).waitFor();
    await expect.poll(() => reply.inputValue()).toBe('');
    expect(await transcript.getByText('Suggested reply — edit before sending.').count()).toBe(0);
    await shot(page, 'draft-reply-widget.png');

    // only what was sent is in the conversation; no draft was stored
    const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
    const messages: Json[] = await api('GET', `/api/chat/messages/${conversation.id}`);
    expect(messages.map((m) => [m.role, m.from_person, m.content])).toEqual([
      ['user', false, 'Can I return a worn jacket?'],
      ['assistant', false, 'The agent answers.'],
      ['assistant', true, EDITED],
    ]);
    expect(e2e.llm.requests.filter(isDraft)).toHaveLength(2);

    expect(visitorErrors).toEqual([]);
    expect(adminErrors).toEqual([]);
    await page.close();
    await admin.close();
  });
});
