import { useEffect, useRef } from 'preact/hooks';
import { followEventStream } from './api.js';
import { setWaitingCount } from './page-title.js';
import { navigate } from './router.js';

/**
 * Notifications in an open admin tab (docs/ADMIN-UI.md "Notifications"): the person's stream
 * `/api/notifications/events` (only what is meant for them, and only with "browser" on): each
 * notification shows a system Notification when permitted, plays a short sound and counts in the
 * tab's title, "(2) Agents – Chat Agent", until that conversation is opened. Registers the service worker
 * (Web Push with the admin closed) and follows its "open this conversation" messages.
 */

export interface LiveNotification {
  kind: 'escalated' | 'visitor_message';
  title: string;
  body: string;
  url: string;
  conversation_id: string;
  chatbot_id: string;
}

/** The service worker's registration, when the browser has them (secure context: https or localhost). */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => null);
}

let audio: AudioContext | null = null;

/** A short two-tone chime made with WebAudio (no audio file); silent where the browser refuses sound. */
export function chime(): void {
  try {
    audio ??= new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.15);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.15 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.15 + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.15);
      osc.stop(now + i * 0.15 + 0.15);
    }
  } catch {
    /* no sound: the notification and the title still tell */
  }
}

/** The conversation a route shows, if any: #/agents/<id>/conversations/<id> or #/inbox/<agent id>/<id>. */
function openConversation(route: string[]): string | undefined {
  if (route[0] === 'inbox') return route[2];
  return route[0] === 'agents' && route[2] === 'conversations' ? route[3] : undefined;
}

/** `route`: the current route, so opening a conversation takes it off the count. */
export function useNotifications(route: string[]): void {
  const waiting = useRef(new Set<string>());
  const routeRef = useRef(route);
  routeRef.current = route;

  const showCount = () => setWaitingCount(waiting.current.size);

  useEffect(() => {
    void registerServiceWorker();
    const onMessage = (e: MessageEvent) => {
      const data = e.data as { type?: string; hash?: string } | null;
      if (data?.type === 'open' && data.hash?.startsWith('#/')) navigate(data.hash);
    };
    navigator.serviceWorker?.addEventListener('message', onMessage);
    const controller = new AbortController();
    followEventStream(
      '/api/notifications/events',
      {
        onConnected: () => undefined,
        onDisconnected: () => undefined,
        onEvent: (event, payload) => {
          if (event !== 'notification') return;
          const n = payload as unknown as LiveNotification;
          const hash = new URL(n.url, location.href).hash;
          if (openConversation(routeRef.current) !== n.conversation_id) {
            waiting.current.add(n.conversation_id);
            showCount();
          }
          chime();
          if ('Notification' in window && Notification.permission === 'granted') {
            const shown = new Notification(n.title, { body: n.body, tag: n.conversation_id });
            shown.onclick = () => {
              window.focus();
              if (hash.startsWith('#/')) navigate(hash);
              shown.close();
            };
          }
        },
      },
      controller.signal,
    );
    return () => {
      controller.abort();
      navigator.serviceWorker?.removeEventListener('message', onMessage);
      setWaitingCount(0);
    };
  }, []);

  // opening a conversation is seeing it: it leaves the count
  const open = openConversation(route);
  useEffect(() => {
    if (open && waiting.current.delete(open)) showCount();
  }, [open]);
}
