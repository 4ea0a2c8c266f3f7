import { afterAll, describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { PASSWORD, uniqueEmail } from '../helpers/app.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { type PageNavigator, registrationId, watchShown } from '../helpers/push-browser.js';
import { startPushService, type TestPushService, verifyVapid } from '../helpers/push-service.js';
import { askWidget, FAVICON, openWidget } from '../helpers/widget-page.js';

/**
 * Issue 34's journey with two browser profiles: the owner invites on the Account page, the
 * teammate opens the link in their own browser and joins; a visitor on a customer's page asks for a
 * person; the teammate's Web Push reaches the local push service (VAPID-signed, encrypted for
 * their subscription) and, delivered to their browser's service worker, shows as a notification
 * whose link is the conversation; the teammate takes it over and answers; the visitor reads the
 * answer under the teammate's name.
 */

let push: TestPushService;
// push endpoints on 127.0.0.1 are let through only with ALLOW_PRIVATE_URLS
const e2e = useE2eApp({
  owner: true,
  // the invitation link and the notification's link point at PUBLIC_URL: the app's own address
  publicUrl: true,
  env: async () => {
    push = await startPushService();
    return { ALLOW_PRIVATE_URLS: 'true' };
  },
});
afterAll(() => push?.close(), 10_000);

describe('a team answers a visitor (issue 34)', () => {
  it('invited, joined, pushed, taken over, answered under the teammate’s name', async () => {
    const agent = await e2e.newAgent({ name: 'Acme helper', lead_capture_enabled: false });

    // the owner invites an operator on the Account page and hands over the link shown there
    const owner = await e2e.browser.context.newPage();
    const ownerErrors = watchErrors(owner);
    await openLoggedIn(owner, e2e.appUrl, e2e.token, '#/account');
    const team = owner.getByRole('region', { name: 'Team' });
    await team.getByRole('list', { name: 'Team members' }).waitFor();
    const email = uniqueEmail('dana');
    await team.getByLabel('E-mail of the teammate').fill(email);
    await team.getByLabel('Role').selectOption('operator');
    await team.getByRole('button', { name: 'Invite' }).click();
    const link = await team.getByLabel('Invitation link').inputValue();

    // the teammate, in their own browser profile, joins with the link
    const mateContext = await e2e.browser.context.browser()!.newContext({ viewport: { width: 1400, height: 900 } });
    await mateContext.grantPermissions(['notifications'], { origin: e2e.appUrl });
    const mate = await mateContext.newPage();
    const mateErrors = watchErrors(mate);
    await mate.goto(link);
    await mate.getByRole('heading', { name: 'Join the team' }).waitFor();
    await mate.getByLabel('Your name').fill('Dana Operator');
    await mate.getByLabel(/^New password/).fill(PASSWORD);
    await mate.getByLabel('Repeat the new password').fill(PASSWORD);
    await mate.getByRole('button', { name: 'Join' }).click();
    await mate.waitForURL(/#\/agents$/);
    const scope = await mate.evaluate(
      async () => (await (navigator as unknown as PageNavigator).serviceWorker.ready).scope,
    );
    const worker = mateContext.serviceWorkers().find((w) => w.url() === `${e2e.appUrl}/sw.js`);
    expect(worker).toBeDefined();
    const shown = await watchShown(worker!);

    // their browser's subscription: pushManager.subscribe needs a vendor's push service, so the
    // endpoint and keys are the local push service's, registered as the admin UI registers one
    const login = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: PASSWORD },
    });
    expect(login.statusCode, login.body).toBe(200);
    const mateAuth = { authorization: `Bearer ${login.json().access_token as string}` };
    const subscription = push.subscription('/push/dana');
    const subscribed = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/notifications/push-subscriptions',
      headers: mateAuth,
      payload: { endpoint: subscription.endpoint, keys: subscription.keys },
    });
    expect(subscribed.statusCode, subscribed.body).toBe(201);

    // a visitor on the customer's page asks for a person
    const url = await e2e.site(agent.id, { extraPages: FAVICON });
    const visitor = await e2e.browser.context.newPage();
    const visitorErrors = watchErrors(visitor);
    const dialog = await openWidget(visitor, url);
    await askWidget(visitor, dialog, 'Can I pick up my order at the shop?');
    await dialog.getByRole('button', { name: 'Talk to a person' }).click();
    await dialog.getByText('We have asked a person to take over').waitFor();

    // the push reaches the teammate's subscription (nobody else subscribed), signed by the server
    const [request] = await push.waitFor(1);
    expect(request!.path).toBe('/push/dana');
    const { public_key } = await e2e.api('GET', '/api/notifications/vapid-public-key');
    await verifyVapid(request!.headers, public_key, push.origin);
    const message = JSON.parse(subscription.decrypt(request!.body));
    expect(message).toMatchObject({ title: 'A visitor asked for a person', chatbot_id: agent.id });

    // delivered to the teammate's service worker, it is a notification linking to the conversation
    const cdp = await mateContext.newCDPSession(mate);
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: e2e.appUrl,
      registrationId: await registrationId(cdp, scope),
      data: JSON.stringify(message),
    });
    const conversationLink = `${e2e.appUrl}/#/agents/${agent.id}/conversations/${message.conversation_id}`;
    await expect.poll(async () => (await shown())?.map((n) => n.url)).toEqual([conversationLink]);
    await cdp.detach();

    // the teammate opens it (what a click on the notification does), takes over and answers
    await mate.goto(conversationLink);
    const transcript = mate.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('Can I pick up my order at the shop?').waitFor();
    await transcript.getByRole('button', { name: 'Take over' }).click();
    await dialog.getByText('A person has joined the conversation.').waitFor();
    const reply = transcript.getByRole('textbox', { name: 'Your reply to the visitor' });
    await reply.fill('Yes: orders wait for you at the shop from the next working day.');
    await reply.press('Enter');

    // the visitor reads it under the teammate's name
    const personMessage = dialog.locator('.msg.person');
    await personMessage.getByText('Yes: orders wait for you at the shop from the next working day.').waitFor();
    expect(await personMessage.innerText()).toContain('Dana Operator');

    expect(ownerErrors).toEqual([]);
    // what an operator may not read (the owner's sections) is refused with 403, nothing else failed
    expectRefusals(mateErrors, 0, 403);
    expect(visitorErrors).toEqual([]);
    await mateContext.close();
    await visitor.close();
    await owner.close();
  }, 120_000); // two browser profiles and many steps: slow on a busy machine
});
