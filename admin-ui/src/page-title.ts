import { useEffect } from 'preact/hooks';

/**
 * The tab's title: the page shown, then the app ("Settings: Acme helper – Chat Agent"), so each
 * route says where the person is (WCAG 2.4.2), with the count of conversations waiting in front
 * ("(2) Inbox – Chat Agent", notifications.ts). The one place that writes document.title.
 */

const APP_NAME = 'Chat Agent';
let page: string | null = null;
let waiting = 0;

function write(): void {
  const base = page ? `${page} – ${APP_NAME}` : APP_NAME;
  document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
}

/** The count of conversations waiting, in front of the title (0: none). */
export function setWaitingCount(n: number): void {
  waiting = n;
  write();
}

/** Names the page shown in the tab's title while the calling component is shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    page = title;
    write();
  }, [title]);
}
