// The admin UI's service worker, served at /sw.js (scope /): shows a Web Push message (docs/API-NOTES.md
// "Notifications") as a notification, and a click on it opens the conversation: in an open admin
// tab (focused, told to go there) or in a new one. Built apart from the page (scripts/build-admin.mjs).

interface PushPayload {
  title?: string;
  body?: string;
  url?: string;
  conversation_id?: string;
}
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  data: { json(): unknown; text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  notification: Notification;
}
interface WindowClient {
  url: string;
  focus(): Promise<WindowClient>;
  postMessage(message: unknown): void;
}
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  location: Location;
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
}

const scope = self as unknown as WorkerScope;

/** The admin page at this origin with the link's route (the link's host may be PUBLIC_URL's name for it). */
function adminLink(url: string | undefined): string {
  let hash = '';
  try {
    hash = url ? new URL(url).hash : '';
  } catch {
    /* no route: the admin's start page */
  }
  return `${scope.location.origin}/${hash.startsWith('#/') ? hash : ''}`;
}

scope.addEventListener('install', (event) => event.waitUntil(scope.skipWaiting()));
scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));

scope.addEventListener('push', (event) => {
  let payload: PushPayload = {};
  try {
    payload = (event.data?.json() ?? {}) as PushPayload;
  } catch {
    payload = { body: event.data?.text() ?? '' };
  }
  event.waitUntil(
    scope.registration.showNotification(payload.title ?? 'Chat Agent', {
      body: payload.body ?? '',
      // one notification per conversation: a newer message replaces the older
      tag: payload.conversation_id ?? 'chat-agent',
      data: { url: adminLink(payload.url) },
    }),
  );
});

scope.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data as { url?: string } | null)?.url ?? `${scope.location.origin}/`;
  event.waitUntil(
    (async () => {
      const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === scope.location.origin);
      if (!open) return scope.clients.openWindow(url);
      await open.focus();
      open.postMessage({ type: 'open', hash: new URL(url).hash });
    })(),
  );
});
