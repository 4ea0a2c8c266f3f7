import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { ManualClock } from '../helpers/app.js';
import { shot, watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { WEEKDAY_HOURS } from '../helpers/office-hours.js';
import { FAVICON, askWidget, openWidget } from '../helpers/widget-page.js';

/**
 * Office hours and availability (issue 34.4) in real Chromium, the widget on another site: outside
 * the agent's office hours a visitor who asks for a person gets the contact form at once, with when
 * the office opens next in their own time and language, and nothing waits for the handoff's
 * timeout (the app's clock never moves here); the lead they leave reaches the owner linked to the
 * conversation. With everyone of the team away, likewise. Screenshot: test-artifacts/office-hours-*.png.
 */

type Json = Record<string, any>;

// Monday 2 March 2026, 20:00 in Berlin: after the office closed
const clock = new ManualClock('2026-03-02T19:00:00.000Z');
const e2e = useE2eApp({ owner: true, clock });
const { api } = e2e;

const site = (agentId: string) => e2e.site(agentId, { extraPages: FAVICON });

/** A visitor's page in `timeZone` (Chromium's own emulation) whose browser prefers `locale`. */
async function visitorPage(timeZone: string, locale: string): Promise<Page> {
  const page = await e2e.browser.context.newPage();
  const cdp = await e2e.browser.context.newCDPSession(page);
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: timeZone });
  await page.addInitScript((tag: string) => {
    Object.defineProperty(navigator, 'languages', { get: () => [tag, tag.split('-')[0]] });
    Object.defineProperty(navigator, 'language', { get: () => tag });
  }, locale);
  return page;
}

/** The visitor leaves name and phone in the form in the conversation. */
async function leaveContact(dialog: Locator, name: string, phone: string): Promise<void> {
  const form = dialog.locator('form.lead');
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('textbox', { name: 'Phone' }).fill(phone);
  await form.getByRole('button', { name: 'Send' }).click();
  await dialog.getByText('Thank you! We will be in touch.').waitFor();
}

describe('office hours and availability in the browser (issue 34.4)', () => {
  it('outside the office hours: "Talk to a person" gives the contact form at once, with the next opening in the visitor\'s time; the lead reaches the owner linked to the conversation', async () => {
    const agent = await api('POST', '/api/chatbots', {
      name: 'Office bot',
      lead_capture_enabled: false,
      office_hours: { time_zone: 'Europe/Berlin', days: { tue: [{ from: '09:00', to: '17:00' }] } },
    });
    const info = (await (await fetch(`${e2e.appUrl}/api/public/chatbot/${agent.id}`)).json()) as Json;
    expect(info.handoff).toEqual({ available: false, next_opening: '2026-03-03T08:00:00.000Z' });

    // a visitor in New York reading British English: Tuesday 09:00 in Berlin is 03:00 there
    const page = await visitorPage('America/New_York', 'en-GB');
    const errors = watchErrors(page);
    const dialog = await openWidget(page, await site(agent.id));
    await askWidget(page, dialog, 'Can somebody call me about my order?');
    expect(await dialog.locator('form.lead').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Talk to a person' }).click();

    // at once: the clock has not moved, so no timeout could have come
    const note = dialog.locator('.note-handoff_closed');
    await note.waitFor();
    expect(await note.textContent()).toBe(
      'Nobody is available right now. Leave your contact and we will answer when we are back: Tuesday 3 March at 3:00.',
    );
    expect(await dialog.getByText('We have asked a person to take over').count()).toBe(0);
    await dialog.locator('form.lead').waitFor();
    expect(await dialog.getByRole('button', { name: 'Talk to a person' }).count()).toBe(0);
    await shot(page, 'office-hours-closed.png');
    await leaveContact(dialog, 'Nora Night', '+1 212 555 0199');

    // the owner finds the lead, linked to the conversation it came from
    const conversations = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversations).toHaveLength(1);
    const leads = await api('GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads.map((l: Json) => [l.name, l.phone, l.conversation_id])).toEqual([
      ['Nora Night', '+1 212 555 0199', conversations[0].id],
    ]);
    const admin = await e2e.browser.context.newPage();
    const adminErrors = watchErrors(admin);
    await openLoggedIn(admin, e2e.appUrl, e2e.token, `#/agents/${agent.id}/leads`);
    await admin.getByRole('cell', { name: 'Nora Night', exact: true }).waitFor();
    const open = admin.getByRole('link', { name: 'Conversation with Nora Night' });
    expect(await open.getAttribute('href')).toContain(conversations[0].id);

    // a reload keeps the note in its place, said once
    await page.reload();
    await page.getByRole('button', { name: /chat/i }).first().click();
    await page.getByRole('dialog').getByText('Can somebody call me about my order?').waitFor();
    expect(await page.getByRole('dialog').locator('.note-handoff_closed').count()).toBe(1);
    expect(errors).toEqual([]);
    expect(adminErrors).toEqual([]);
    await admin.close();
    await page.close();
  });

  it('within the office hours but everyone away: the contact form at once, without a time', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Away bot', lead_capture_enabled: false });
    await api('PUT', '/api/team/me/availability', { availability: 'away' });
    try {
      const page = await visitorPage('Europe/Berlin', 'en-US');
      const errors = watchErrors(page);
      const dialog = await openWidget(page, await site(agent.id));
      await askWidget(page, dialog, 'Is anyone there?');
      await dialog.getByRole('button', { name: 'Talk to a person' }).click();
      await dialog.getByText('Sorry, nobody is free right now.').waitFor();
      await dialog.locator('form.lead').waitFor();
      await leaveContact(dialog, 'Otto Away', '030 1234567');
      const [conversation] = await api('GET', `/api/chat/conversations/${agent.id}`);
      const leads = await api('GET', `/api/chatbot-leads/${agent.id}`);
      expect(leads.map((l: Json) => [l.name, l.conversation_id])).toEqual([['Otto Away', conversation.id]]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await api('PUT', '/api/team/me/availability', { availability: 'online' });
    }
  });

  it('the owner sets office hours in the agent settings and goes away in the top bar', async () => {
    const agent = await api('POST', '/api/chatbots', { name: 'Settings bot' });
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await openLoggedIn(page, e2e.appUrl, e2e.token, `#/agents/${agent.id}/settings`);
    const form = page.getByRole('form', { name: 'Office hours' });
    await form.getByRole('switch', { name: /Only during office hours/ }).check();
    await form.getByRole('combobox', { name: 'Time zone' }).selectOption('Europe/Berlin');
    // Monday to Friday 9 to 5 to begin with; Tuesday gets a lunch break, Saturday a morning
    await form.getByRole('textbox', { name: 'Tuesday closes' }).fill('12:00');
    await form.getByRole('button', { name: 'Add hours on Tuesday' }).click();
    await form.getByRole('textbox', { name: 'Tuesday opens' }).nth(1).fill('13:00');
    await form.getByRole('textbox', { name: 'Tuesday closes' }).nth(1).fill('17:00');
    await form.getByRole('button', { name: 'Add hours on Saturday' }).click();
    await form.getByRole('textbox', { name: 'Saturday closes' }).fill('12:00');
    await form.getByRole('button', { name: 'Remove Friday 09:00–17:00' }).click();
    await shot(form, 'office-hours-settings.png');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Office hours saved').waitFor();
    const saved = await api('GET', `/api/chatbots/${agent.id}`);
    // Monday and Tuesday as the suites' weekday hours; Wednesday and Thursday as Monday
    const { mon, tue } = WEEKDAY_HOURS.days;
    expect(saved.office_hours).toEqual({
      time_zone: WEEKDAY_HOURS.time_zone,
      days: { mon, tue, wed: mon, thu: mon, fri: [], sat: [{ from: '09:00', to: '12:00' }], sun: [] },
    });
    // a wrong time is the server's 400, shown in the section; nothing stored changes
    await form.getByRole('textbox', { name: 'Monday opens' }).fill('9am');
    const before = errors.length;
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('office_hours.days.mon.0.from: must be HH:MM').waitFor();
    expectRefusals(errors, before, 400);
    expect((await api('GET', `/api/chatbots/${agent.id}`)).office_hours).toEqual(saved.office_hours);
    await form.getByRole('button', { name: 'Discard changes' }).click();

    // the person's own online/away switch
    const away = page.getByRole('switch', { name: 'Online for visitors' });
    expect(await away.getAttribute('aria-checked')).toBe('true');
    await away.click();
    await expect.poll(() => away.getAttribute('aria-checked')).toBe('false');
    expect(await api('GET', '/api/team/me/availability')).toEqual({ availability: 'away' });
    await shot(page.locator('header'), 'office-hours-away.png');
    await away.click();
    await expect.poll(() => away.getAttribute('aria-checked')).toBe('true');
    expect(await api('GET', '/api/team/me/availability')).toEqual({ availability: 'online' });
    expect(errors).toEqual([]);
    await page.close();
  });
});
