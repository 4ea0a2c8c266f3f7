import { describe, expect, it } from 'vitest';
import { openLoggedIn, withPageAs } from '../helpers/admin.js';
import { say } from '../helpers/app.js';
import { withPage } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { type PageNavigator, registrationId, watchShown } from '../helpers/push-browser.js';

/**
 * Notifications that reach a person (issue 34 part 3) in real Chromium: the admin page registers
 * its service worker; a push message delivered with the DevTools protocol
 * (ServiceWorker.deliverPushMessage: no outside push service is reachable here) makes the worker
 * show a notification; in an open tab an escalation puts the count of waiting conversations in the
 * title until the conversation is opened; the Account page keeps the person's choices.
 */
const e2e = useE2eApp({ owner: true });

/** what the page's window gives the recorder below (the tests have no DOM types) */
interface PageWindow {
  Notification: new (title: string, options?: { body?: string; tag?: string }) => object;
  AudioContext: new () => { createOscillator(): object };
  notified?: Array<{ title: string; tag: string | undefined }>;
  chimes?: number;
}

/**
 * Before the page's own scripts: records the system notifications the page makes and the tones it
 * plays (both still reach the browser's own Notification and AudioContext).
 */
function recordAlerts(): void {
  const w = globalThis as unknown as PageWindow;
  w.notified = [];
  w.chimes = 0;
  const RealNotification = w.Notification;
  w.Notification = class extends RealNotification {
    constructor(title: string, options?: { body?: string; tag?: string }) {
      super(title, options);
      w.notified!.push({ title, tag: options?.tag });
    }
  };
  const RealAudio = w.AudioContext;
  w.AudioContext = class extends RealAudio {
    override createOscillator() {
      w.chimes! += 1;
      return super.createOscillator();
    }
  };
}

describe('notifications in the browser (issue 34.3)', () => {
  it('the service worker shows a pushed message as a notification', async () => {
    await e2e.browser.context.grantPermissions(['notifications'], { origin: e2e.appUrl });
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, '#/agents', async (page) => {
      const scope = await page.evaluate(
        async () => (await (navigator as unknown as PageNavigator).serviceWorker.ready).scope,
      );
      expect(scope).toBe(`${e2e.appUrl}/`);
      const worker = e2e.browser.context.serviceWorkers().find((w) => w.url() === `${e2e.appUrl}/sw.js`);
      expect(worker).toBeDefined();
      const shown = await watchShown(worker!);

      const cdp = await e2e.browser.context.newCDPSession(page);
      const id = await registrationId(cdp, scope);
      const payload = {
        title: 'A visitor asked for a person',
        body: 'Helpdesk: take the conversation over',
        url: 'http://localhost:3000/#/agents/a1/conversations/c1',
        conversation_id: 'c1',
        chatbot_id: 'a1',
      };
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: e2e.appUrl,
        registrationId: id,
        data: JSON.stringify(payload),
      });
      // a click opens the conversation on the admin's own origin, whatever host PUBLIC_URL names
      await expect
        .poll(shown)
        .toEqual([
          { title: payload.title, body: payload.body, tag: 'c1', url: `${e2e.appUrl}/#/agents/a1/conversations/c1` },
        ]);
      await cdp.detach();
    });
  });

  it('in an open tab, an escalation puts the count in the title until the conversation is opened', async () => {
    const agent = await e2e.newAgent();
    await withPage(e2e.browser.context, async (page) => {
      await page.addInitScript(recordAlerts);
      const streamOpen = page.waitForResponse((r) => r.url().endsWith('/api/notifications/events'));
      await openLoggedIn(page, e2e.appUrl, e2e.token, '#/agents');
      await streamOpen;
      await expect.poll(() => page.title()).toBe('Agents – Chat Agent');

      const ids: string[] = [];
      for (const session of ['v1', 'v2']) {
        const turn = await say(e2e.t, agent.id, session, 'Hello');
        ids.push(turn.conversation_id);
        const res = await e2e.t.app.inject({
          method: 'POST',
          url: `/api/public/chat/${agent.id}/escalate`,
          payload: { session_id: session },
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      await expect.poll(() => page.title()).toBe('(2) Agents – Chat Agent');
      // a system notification each (notifications were allowed above) and a chime each
      const alerts = () =>
        page.evaluate(() => {
          const w = globalThis as unknown as PageWindow;
          return { notified: w.notified, chimes: w.chimes };
        });
      expect(await alerts()).toEqual({
        notified: ids.map((tag) => ({ title: 'A visitor asked for a person', tag })),
        chimes: 4,
      });

      await page.goto(`${e2e.appUrl}/#/agents/${agent.id}/conversations/${ids[0]}`);
      await expect.poll(() => page.title()).toBe('(1) Conversations: Acme helper – Chat Agent');
      await page.goto(`${e2e.appUrl}/#/agents/${agent.id}/conversations/${ids[1]}`);
      await expect.poll(() => page.title()).toBe('Conversations: Acme helper – Chat Agent');
    });
  });

  it("the Account page keeps the person's choices", async () => {
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, '#/account', async (page) => {
      const section = page.getByRole('form', { name: 'Notifications' });
      const email = section.getByRole('checkbox', { name: /^E-mail/ });
      await expect.poll(() => email.isChecked()).toBe(true);
      await email.uncheck();
      await section.getByRole('button', { name: 'Save notification settings' }).click();
      await page.getByText('Notification settings saved').waitFor();
      expect(await e2e.api('GET', '/api/notifications/preferences')).toEqual({
        browser: true,
        push: true,
        email: false,
      });
      await section.getByText('This browser:').waitFor();
    });
  });
});
