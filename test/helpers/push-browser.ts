import type { CDPSession, Worker } from 'playwright-core';

/**
 * The admin's service worker in Chromium, for the push tests: its registration id (to deliver a
 * push message with the DevTools protocol: no outside push service is reachable here) and a
 * record of the notifications it shows.
 */

/** The service worker's registration id for the admin's root scope, from the DevTools protocol. */
export async function registrationId(cdp: CDPSession, scope: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const mine = registrations.find((r) => r.scopeURL === scope && !r.isDeleted);
      if (mine) resolve(mine.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return found;
}

/** what the page's `navigator.serviceWorker` gives here (the tests' TypeScript has no DOM types) */
export interface PageNavigator {
  serviceWorker: {
    ready: Promise<{ scope: string }>;
  };
}

/** the worker's global scope as far as the spy below needs it (the tests have no DOM types) */
export interface WorkerScope {
  registration: {
    showNotification(title: string, options: { body: string; tag: string; data: { url: string } }): Promise<void>;
  };
  shown?: Array<{ title: string; body: string; tag: string; url: string }>;
}

/**
 * Records what the worker shows, once the browser took it (showNotification resolved). Read from
 * the worker, not from registration.getNotifications(): this headless Chromium drops a shown
 * notification from that list at random (about one run in two, right after showNotification
 * resolved: its notification display keeps none).
 */
export async function watchShown(worker: Worker): Promise<() => Promise<WorkerScope['shown']>> {
  await worker.evaluate(() => {
    const scope = globalThis as unknown as WorkerScope;
    const registration = scope.registration;
    const show = registration.showNotification.bind(registration);
    scope.shown = [];
    registration.showNotification = async (title, options) => {
      await show(title, options);
      scope.shown!.push({ title, body: options.body, tag: options.tag, url: options.data.url });
    };
  });
  return () => worker.evaluate(() => (globalThis as unknown as WorkerScope).shown);
}
