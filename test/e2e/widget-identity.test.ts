import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { ROOMY_PLAN } from '../helpers/app.js';
import { ask, useE2eApp } from '../helpers/e2e.js';
import { openWidget } from '../helpers/widget-page.js';

/**
 * Verified visitors in the widget (issue 35.5) in real Chromium: the embed tag's data-user-*
 * travel with each message as `user`, the conversation is verified as that user, and the lead
 * form's name is prefilled. The site computes the hash as an integrator's server would.
 */

const e2e = useE2eApp({ owner: true, plans: { free: ROOMY_PLAN }, llm: { reply: 'Happy to help.', chunks: 2 } });
const { api, newAgent } = e2e;

const htmlAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

describe('a signed-in visitor on the site', () => {
  it('is verified: the conversation carries their id, name and e-mail; the lead form has their name', async () => {
    const agent = await newAgent();
    const { secret } = await api('POST', `/api/chatbots/${agent.id}/identity-secret`);
    const userId = 'customer-42';
    const hash = createHmac('sha256', secret).update(userId).digest('hex');
    const url = await e2e.site(agent.id, {
      scriptAttributes: [
        `data-user-id="${userId}"`,
        `data-user-hash="${hash}"`,
        `data-user-name="${htmlAttr('Ada "Countess" Lovelace')}"`,
        'data-user-email="ada@example.com"',
      ].join(' '),
    });
    const page = await e2e.browser.context.newPage();
    const sent = page.waitForRequest((r) => r.url().includes('/api/public/chat/') && r.method() === 'POST');
    const dialog = await openWidget(page, url);
    await ask(page, dialog.getByRole('textbox', { name: 'Type your message' }), 'Where is my order?', 1);
    expect((await sent).postDataJSON().user).toEqual({
      id: userId,
      hash,
      name: 'Ada "Countess" Lovelace',
      email: 'ada@example.com',
    });
    const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({
      verified: true,
      visitor_user_id: userId,
      user_name: 'Ada "Countess" Lovelace',
      user_email: 'ada@example.com',
    });
    // the lead form asked after the first answer starts with the site's name for the visitor
    expect(await dialog.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Ada "Countess" Lovelace');
    await page.close();

    // the owner's conversation list and transcript say "Verified", naming the user id in its title
    const admin = await e2e.browser.context.newPage();
    await openLoggedIn(admin, e2e.appUrl, e2e.token, `#/agents/${agent.id}/conversations`);
    const list = admin.getByRole('list', { name: 'Conversations, newest first' });
    await list.getByText('Verified').waitFor();
    await list.getByText('Ada "Countess" Lovelace').click();
    const transcript = admin.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Where is my order?').waitFor();
    expect(await transcript.getByTitle(`Signed in on your site as ${userId}`).innerText()).toBe('Verified');
    await admin.close();
  });

  it('a hash that does not verify leaves the visitor anonymous, and the chat works as ever', async () => {
    const agent = await newAgent();
    await api('POST', `/api/chatbots/${agent.id}/identity-secret`);
    const url = await e2e.site(agent.id, {
      scriptAttributes: `data-user-id="customer-42" data-user-hash="${'0'.repeat(64)}" data-user-name="Mallory"`,
    });
    const page = await e2e.browser.context.newPage();
    const dialog = await openWidget(page, url);
    await ask(page, dialog.getByRole('textbox', { name: 'Type your message' }), 'Hello?', 1);
    const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({ verified: false, visitor_user_id: null, user_name: null });
    await page.close();
  });
});
