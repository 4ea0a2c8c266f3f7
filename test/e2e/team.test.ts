import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/app.js';
import { expectRefusals, openLoggedIn, withPageAs } from '../helpers/admin.js';
import { withPage } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { inviteOnAccountPage, joinByApi, joinWithForm, ownProfile } from '../helpers/e2e-team.js';

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

    await withPage(e2e.browser.context, async (page) => {
      await joinWithForm(page, inv.link, 'Olga Operator');
      await page.waitForURL(/#\/agents$/);
      await page.getByRole('heading', { name: 'Agents' }).waitFor();
      const members = await e2e.api('GET', '/api/team/members');
      expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toContainEqual([
        email,
        'operator',
      ]);
    });

    // a fresh browser profile (nobody logged in) with the used link
    const again = await ownProfile(e2e.browser);
    await joinWithForm(again.page, inv.link, 'Someone');
    await again.page.getByText('This invitation is invalid, already used or expired. Ask for a new one.').waitFor();
    await again.context.close();
  });

  it('the owner invites and removes a teammate on the Account page; a teammate sees no Team section', async () => {
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, '#/account', async (page) => {
      const { team, link } = await inviteOnAccountPage(page, uniqueEmail('invited'), 'manager');
      expect(link.startsWith(`${e2e.appUrl}/#/join?token=`)).toBe(true);
      const memberToken = await joinByApi(e2e.t, link, 'Max Manager');

      // the teammate's Account page has no Team section (the team routes answer them 403)
      // its own browser profile: the stored token is per profile
      const mate = await ownProfile(e2e.browser);
      const asked = mate.page.waitForResponse((r) => r.url().endsWith('/api/team/members'));
      await openLoggedIn(mate.page, e2e.appUrl, memberToken, '#/account');
      expect((await asked).status()).toBe(403);
      await mate.page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      expect(await mate.page.getByRole('region', { name: 'Team' }).count()).toBe(0);
      expectRefusals(mate.errors, 0, 403);
      await mate.context.close();

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
    });
  });
});
