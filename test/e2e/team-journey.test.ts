import { afterAll, describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { PASSWORD, uniqueEmail } from '../helpers/app.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import {
  inviteOnAccountPage,
  joinWithForm,
  ownProfile,
  replyWithEnter,
  takeOver,
  visitorAsksForPerson,
} from '../helpers/e2e-team.js';
import { type PageNavigator, registrationId, watchShown } from '../helpers/push-browser.js';
import { startPushService, type TestPushService, verifyVapid } from '../helpers/push-service.js';
import { FAVICON } from '../helpers/widget-page.js';

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
    const email = uniqueEmail('dana');
    const { link } = await inviteOnAccountPage(owner, email, 'operator');

    // the teammate, in their own browser profile, joins with the link
    const { context: mateContext, page: mate, errors: mateErrors } = await ownProfile(e2e.browser);
    await mateContext.grantPermissions(['notifications'], { origin: e2e.appUrl });
    await joinWithForm(mate, link, 'Dana Operator');
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
    const {
      page: visitor,
      errors: visitorErrors,
      dialog,
    } = await visitorAsksForPerson(e2e.browser.context, url, 'Can I pick up my order at the shop?');

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
    await takeOver(transcript, dialog);
    // the visitor reads it under the teammate's name
    await replyWithEnter(
      transcript,
      dialog,
      'Yes: orders wait for you at the shop from the next working day.',
      'Dana Operator',
    );

    expect(ownerErrors).toEqual([]);
    // what an operator may not read (the owner's sections) is refused with 403, nothing else failed
    expectRefusals(mateErrors, 0, 403);
    expect(visitorErrors).toEqual([]);
    await mateContext.close();
    await visitor.close();
    await owner.close();
  }, 120_000); // two browser profiles and many steps: slow on a busy machine
});
