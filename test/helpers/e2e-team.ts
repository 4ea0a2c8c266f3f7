import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { PASSWORD, type TestApp } from './app.js';
import { type Browser, watchErrors } from './browser.js';
import { askWidget, openWidget } from './widget-page.js';

/**
 * A team answering visitors, in a browser test: the owner invites on the Account page, a teammate
 * joins (by the join page or the API) in their own browser profile; a visitor asks for a person in
 * the widget; a person takes the conversation over in the admin's transcript and replies.
 */

/**
 * On the Account page open in `page`, the owner invites `email` as `role`: the Team region, and the
 * invitation link it shows.
 */
export async function inviteOnAccountPage(
  page: Page,
  email: string,
  role: 'manager' | 'operator',
): Promise<{ team: Locator; link: string }> {
  const team = page.getByRole('region', { name: 'Team' });
  await team.getByRole('list', { name: 'Team members' }).waitFor();
  await team.getByLabel('E-mail of the teammate').fill(email);
  await team.getByLabel('Role').selectOption(role);
  await team.getByRole('button', { name: 'Invite' }).click();
  return { team, link: await team.getByLabel('Invitation link').inputValue() };
}

/** Opens invitation `link` in `page` and sends its join form as `name`, with PASSWORD. */
export async function joinWithForm(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Join the team' }).waitFor();
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel(/^New password/).fill(PASSWORD);
  await page.getByLabel('Repeat the new password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
}

/** Joins the team through the API with invitation `link`'s token, as `name` with PASSWORD: the new member's token. */
export async function joinByApi(t: TestApp, link: string, name: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/team/join',
    payload: { token: link.split('token=')[1], name, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().access_token as string;
}

/**
 * A browser profile of its own (the admin UI keeps its token per profile) in the test's Chromium, at
 * 1400 × 900, and a page in it with its errors watched; the caller closes `context`.
 */
export async function ownProfile(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.context.browser()!.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page) };
}

/** The visitor presses "Talk to a person" in the widget's `dialog`, which says a person was asked. */
export async function askForPerson(dialog: Locator): Promise<void> {
  await dialog.getByRole('button', { name: 'Talk to a person' }).click();
  await dialog.getByText('We have asked a person to take over').waitFor();
}

/**
 * A visitor: a new page of `context` (its errors watched) opens the widget on `url`, asks `question`,
 * then asks for a person.
 */
export async function visitorAsksForPerson(
  context: BrowserContext,
  url: string,
  question: string,
): Promise<{ page: Page; errors: string[]; dialog: Locator }> {
  const page = await context.newPage();
  const errors = watchErrors(page);
  const dialog = await openWidget(page, url);
  await askWidget(page, dialog, question);
  await askForPerson(dialog);
  return { page, errors, dialog };
}

/** The person takes the conversation over in the admin's `transcript`; the visitor's `dialog` says a person joined. */
export async function takeOver(transcript: Locator, dialog: Locator): Promise<void> {
  await transcript.getByRole('button', { name: 'Take over' }).click();
  await dialog.getByText('A person has joined the conversation.').waitFor();
}

/** The transcript's box for the person's reply to the visitor. */
export const replyBox = (transcript: Locator): Locator =>
  transcript.getByRole('textbox', { name: 'Your reply to the visitor' });

/** The visitor's `dialog` shows a person's message with `text`, under the name `shownAs`. */
export async function expectPersonMessage(dialog: Locator, text: string, shownAs: string): Promise<void> {
  const personMessage = dialog.locator('.msg.person');
  await personMessage.getByText(text).waitFor();
  expect(await personMessage.innerText()).toContain(shownAs);
}

/**
 * The person types `text` in the transcript's reply box and sends it with Enter; the visitor's
 * `dialog` shows it under `shownAs`. The reply box, for more replies.
 */
export async function replyWithEnter(
  transcript: Locator,
  dialog: Locator,
  text: string,
  shownAs: string,
): Promise<Locator> {
  const reply = replyBox(transcript);
  await reply.fill(text);
  await reply.press('Enter');
  await expectPersonMessage(dialog, text, shownAs);
  return reply;
}
