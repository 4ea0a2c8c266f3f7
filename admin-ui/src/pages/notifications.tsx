import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { registerServiceWorker } from '../notifications.js';
import { Notice, SubmitButton, errorText, toast, useAsync, useSubmit } from '../ui.js';

interface Preferences {
  browser: boolean;
  push: boolean;
  email: boolean;
}

const CHOICES: Array<[keyof Preferences, string, string]> = [
  ['browser', 'In an open admin tab', 'a notification, a short sound and the count in the tab’s title'],
  ['push', 'Push notifications', 'with the admin closed, in the browsers where you allowed them below'],
  ['email', 'E-mail', 'the “A visitor asked for a person” e-mail (at most 10 an hour per agent)'],
];

/** The VAPID public key (base64url) as the bytes pushManager.subscribe wants. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

type PushState = 'unsupported' | 'denied' | 'off' | 'on';

async function pushState(): Promise<PushState> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window))
    return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  return subscription ? 'on' : 'off';
}

/**
 * The Account page's "Notifications" (docs/API-NOTES.md "Notifications"): how the signed-in person
 * is told that a visitor asked for a person or wrote into a conversation they took, and this
 * browser's permission and push subscription.
 */
export function NotificationsSection() {
  const prefs = useAsync(() => get<Preferences>('/api/notifications/preferences'), []);
  const [draft, setDraft] = useState<Preferences | null>(null);
  const [state, setState] = useState<PushState | null>(null);
  const [pushError, setPushError] = useState<string | null>(null);
  useEffect(() => {
    if (prefs.data) setDraft(prefs.data);
  }, [prefs.data]);
  useEffect(() => {
    void pushState().then(setState);
  }, []);

  const { busy, error, submit } = useSubmit(async () => {
    if (!draft) return;
    prefs.setData(await api<Preferences>('PUT', '/api/notifications/preferences', draft));
    toast('Notification settings saved');
  });

  const allow = async () => {
    setPushError(null);
    try {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') return setState(permission === 'denied' ? 'denied' : 'off');
      const registration = (await registerServiceWorker()) ?? (await navigator.serviceWorker.ready);
      await navigator.serviceWorker.ready;
      const { public_key } = await get<{ public_key: string }>('/api/notifications/vapid-public-key');
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(public_key),
      });
      await api('POST', '/api/notifications/push-subscriptions', subscription.toJSON());
      setState('on');
      toast('Notifications allowed in this browser');
    } catch (err) {
      setPushError(`This browser could not subscribe: ${errorText(err)}`);
    }
  };

  const stop = async () => {
    setPushError(null);
    try {
      const registration = await navigator.serviceWorker.getRegistration('/');
      const subscription = await registration?.pushManager.getSubscription();
      if (subscription) {
        await api('DELETE', '/api/notifications/push-subscriptions', { endpoint: subscription.endpoint });
        await subscription.unsubscribe();
      }
      setState('off');
    } catch (err) {
      setPushError(errorText(err));
    }
  };

  return (
    <form class="card section stack" onSubmit={submit} method="post" aria-labelledby="notifications">
      <div class="section-head">
        <h2 id="notifications">Notifications</h2>
        <p class="muted">
          When a visitor asks for a person, or writes into a conversation you took over. Your own choice: each teammate
          sets theirs.
        </p>
      </div>
      {prefs.error && <Notice kind="error">{prefs.error}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {draft && (
        <fieldset class="stack">
          <legend class="field-label">Tell me</legend>
          {CHOICES.map(([name, label, hint]) => (
            <label class="toggle" key={name}>
              <input
                type="checkbox"
                name={name}
                checked={draft[name]}
                onChange={(e) => setDraft({ ...draft, [name]: e.currentTarget.checked })}
              />
              <span>
                {label} <span class="muted">{hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <div class="stack">
        <p>
          <strong>This browser:</strong>{' '}
          {state === 'unsupported'
            ? 'cannot show notifications here (it needs https).'
            : state === 'denied'
              ? 'notifications are blocked; allow them in the browser’s site settings.'
              : state === 'on'
                ? 'push notifications are on.'
                : 'push notifications are off.'}
        </p>
        {pushError && <Notice kind="error">{pushError}</Notice>}
        <div class="actions">
          {state === 'off' && (
            <button type="button" class="btn" onClick={allow}>
              Allow notifications in this browser
            </button>
          )}
          {state === 'on' && (
            <button type="button" class="btn" onClick={stop}>
              Stop push notifications in this browser
            </button>
          )}
        </div>
      </div>
      <div class="actions">
        <SubmitButton busy={busy} label="Save notification settings" busyLabel="Saving…" />
      </div>
    </form>
  );
}
