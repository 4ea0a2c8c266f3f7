import { describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { uniqueEmail } from '../helpers/app.js';
import { shot } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import {
  expectPersonMessage,
  joinByApi,
  ownProfile,
  replyBox,
  takeOver,
  visitorAsksForPerson,
} from '../helpers/e2e-team.js';
import { FAVICON } from '../helpers/widget-page.js';

/**
 * The account's inbox in real Chromium (issue 34 part 2): an operator chooses the name visitors
 * see, keeps a saved reply, finds the visitor's conversation among every agent's (unassigned),
 * assigns it to themselves, takes it over, adds an internal note, inserts the saved reply by its
 * `/shortcut` and sends it; the visitor's open widget shows the reply under the operator's display
 * name, and never the note. Screenshots: test-artifacts/inbox-*.png.
 */

const e2e = useE2eApp({ owner: true });
const { api } = e2e;

const site = (agentId: string) => e2e.site(agentId, { extraPages: FAVICON });

async function joinAsOperator(name: string): Promise<string> {
  const inv = await api('POST', '/api/team/invitations', { email: uniqueEmail('operator'), role: 'operator' });
  return joinByApi(e2e.t, inv.link, name);
}

describe('the inbox in the browser (issue 34.2)', () => {
  it('an operator assigns, takes over, notes, inserts a saved reply by its shortcut; the visitor sees their display name', async () => {
    await api('POST', '/api/chatbots', { name: 'Other agent' });
    const agent = await api('POST', '/api/chatbots', { name: 'Acme helper', lead_capture_enabled: false });
    const url = await site(agent.id);
    const operatorToken = await joinAsOperator('Otto Operator');

    // the visitor asks, then asks for a person
    const {
      page: visitor,
      errors: visitorErrors,
      dialog,
    } = await visitorAsksForPerson(e2e.browser.context, url, 'Can I change my delivery address?');

    // the operator's own browser profile (the token is kept per profile)
    const { context, page: admin, errors: adminErrors } = await ownProfile(e2e.browser);

    // the name visitors see, on the Account page
    await openLoggedIn(admin, e2e.appUrl, operatorToken, '#/account');
    const nameForm = admin.getByRole('form', { name: 'Name shown to visitors' });
    await expect.poll(() => nameForm.getByLabel('Display name').inputValue()).toBe('Otto Operator');
    await nameForm.getByLabel('Display name').fill('Otto from Acme');
    await nameForm.getByRole('button', { name: 'Save display name' }).click();
    await admin.getByText('Visitors now see “Otto from Acme”').waitFor();

    // the Inbox, in the main navigation
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    await admin.getByRole('heading', { name: 'Inbox' }).waitFor();

    // a saved reply
    await admin.getByText('Saved replies', { exact: true }).click();
    const savedForm = admin.locator('.saved-replies form').last();
    await savedForm.getByLabel(/^Shortcut/).fill('address');
    await savedForm
      .getByLabel('Reply', { exact: true })
      .fill('You can change the delivery address until the parcel ships.');
    await savedForm.getByRole('button', { name: 'Add saved reply' }).click();
    await admin.getByRole('list', { name: 'Saved replies' }).getByText('/address').waitFor();

    // unassigned conversations of every agent: the visitor's is there, with its agent's name
    const list = admin.getByRole('list', { name: 'Conversations, newest first' });
    const assignedFilter = admin.locator('.conv-filters').getByLabel(/^Assigned/);
    await assignedFilter.selectOption('unassigned');
    await list.getByText('Acme helper').waitFor();
    await list.getByRole('link').first().click();
    const transcript = admin.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Can I change my delivery address?').waitFor();

    // assigned to themselves: it leaves the unassigned list, and is theirs under "Assigned to me"
    await transcript.getByLabel(/^Assigned to/).selectOption({ label: 'Otto Operator' });
    await admin.getByText('Assigned to Otto Operator').waitFor();
    await admin.getByText('No conversations match.').waitFor();
    await assignedFilter.selectOption('me');
    await list.getByText('Otto Operator').waitFor();

    await takeOver(transcript, dialog);

    // an internal note
    const notes = admin.getByRole('region', { name: 'Internal notes' });
    await notes.getByLabel('Add a note').fill('Asked to move the parcel to the office: check the warehouse.');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await notes.getByText('Asked to move the parcel to the office').waitFor();
    await notes.getByText('Otto Operator', { exact: false }).waitFor();

    // the saved reply by its shortcut: "/add", then Tab on the suggestion
    const reply = replyBox(transcript);
    await reply.click();
    await reply.pressSequentially('Hello! /add');
    const suggestions = transcript.getByRole('listbox', { name: 'Saved replies' });
    await suggestions.getByRole('option', { name: /\/address/ }).waitFor();
    await shot(admin, 'inbox-shortcut.png');
    await reply.press('Tab');
    await expect
      .poll(() => reply.inputValue())
      .toBe('Hello! You can change the delivery address until the parcel ships.');
    expect(await suggestions.count()).toBe(0);
    await reply.press('Enter');

    // the visitor sees it under the operator's display name, and never the note
    await expectPersonMessage(dialog, 'You can change the delivery address until the parcel ships.', 'Otto from Acme');
    expect(await dialog.innerText()).not.toContain('warehouse');
    await transcript.getByText('Otto from Acme').waitFor();
    await shot(admin, 'inbox-conversation.png');
    await shot(visitor, 'inbox-widget.png');

    // the team's record of who wrote it
    const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
    const messages = await api('GET', `/api/chat/messages/${conversation.id}`);
    expect(messages.at(-1)).toMatchObject({ from_person: true, sender_name: 'Otto from Acme' });
    // the Account page's owner-only sections (team, webhooks) are refused to an operator: nothing else failed
    expectRefusals(adminErrors, 0, 403);
    expect(adminErrors).toEqual([]);
    expect(visitorErrors).toEqual([]);
    await context.close();
    await visitor.close();
  }, 120_000); // two browser profiles and many steps: slow on a busy machine
});
