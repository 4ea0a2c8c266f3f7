import { describe, expect, it } from 'vitest';
import { PASSWORD, uniqueEmail } from '../helpers/app.js';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Joining a team in the admin UI, in real Chromium against the real app (issue 34.1): the owner's
 * invitation link opens the join page; the teammate picks a name and a password and lands logged
 * in on the agents page; a used link is refused with a clear message.
 */
const e2e = useE2eApp({ publicUrl: true, owner: true });

describe('joining a team in the admin UI', () => {
  it('the invitation link opens the join page, which logs the teammate in; used again it is refused', async () => {
    const email = uniqueEmail('mate');
    const inv = await e2e.api('POST', '/api/team/invitations', { email, role: 'operator' });
    expect(inv.link.startsWith(`${e2e.appUrl}/#/join?token=`)).toBe(true);

    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(inv.link);
    await page.getByRole('heading', { name: 'Join the team' }).waitFor();
    await page.getByLabel('Your name').fill('Olga Operator');
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await page.getByLabel('Repeat the new password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.waitForURL(/#\/agents$/);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    const members = await e2e.api('GET', '/api/team/members');
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toContainEqual([email, 'operator']);
    expect(errors).toEqual([]);
    await page.close();

    // a fresh browser profile (nobody logged in) with the used link
    const again = await e2e.browser.context.browser()!.newContext();
    const second = await again.newPage();
    await second.goto(inv.link);
    await second.getByRole('heading', { name: 'Join the team' }).waitFor();
    await second.getByLabel('Your name').fill('Someone');
    await second.getByLabel(/^New password/).fill(PASSWORD);
    await second.getByLabel('Repeat the new password').fill(PASSWORD);
    await second.getByRole('button', { name: 'Join' }).click();
    await second.getByText('This invitation is invalid, already used or expired. Ask for a new one.').waitFor();
    await again.close();
  });

  it('the owner invites and removes a teammate on the Account page; a teammate sees no Team section', async () => {
    const page = await e2e.browser.context.newPage();
    const errors = watchErrors(page);
    await openLoggedIn(page, e2e.appUrl, e2e.token, '#/account');
    const team = page.getByRole('region', { name: 'Team' });
    await team.getByRole('list', { name: 'Team members' }).waitFor();
    const email = uniqueEmail('invited');
    await team.getByLabel('E-mail of the teammate').fill(email);
    await team.getByLabel('Role').selectOption('manager');
    await team.getByRole('button', { name: 'Invite' }).click();
    const link = await team.getByLabel('Invitation link').inputValue();
    expect(link.startsWith(`${e2e.appUrl}/#/join?token=`)).toBe(true);

    const token = link.split('token=')[1];
    const joined = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/team/join',
      payload: { token, name: 'Max Manager', password: PASSWORD },
    });
    expect(joined.statusCode).toBe(201);
    const memberToken = joined.json().access_token as string;

    // the teammate's Account page has no Team section (the team routes answer them 403)
    // its own browser profile: the stored token is per profile
    const mateContext = await e2e.browser.context.browser()!.newContext();
    const mate = await mateContext.newPage();
    const mateErrors = watchErrors(mate);
    const asked = mate.waitForResponse((r) => r.url().endsWith('/api/team/members'));
    await openLoggedIn(mate, e2e.appUrl, memberToken, '#/account');
    expect((await asked).status()).toBe(403);
    await mate.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(await mate.getByRole('region', { name: 'Team' }).count()).toBe(0);
    expectRefusals(mateErrors, 0, 403);
    await mateContext.close();

    await page.reload();
    await team.getByRole('button', { name: 'Remove Max Manager' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Max Manager was removed from the team.').waitFor();
    await expect.poll(() => team.getByRole('button', { name: 'Remove Max Manager' }).count()).toBe(0);
    const after = await e2e.t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${memberToken}` },
    });
    expect(after.statusCode).toBe(401);
    expect(errors).toEqual([]);
    await page.close();
  });
});
