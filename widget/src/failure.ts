import { ApiFailure } from './api.js';
import { fill, type Lang, type MoreTexts, type Texts } from './i18n.js';

/** The server's cap (413 above it); checked here first so the visitor keeps their text. */
export const MAX_MESSAGE_CHARS = 4000;

/** What went wrong, in the visitor's words, and whether a Retry button makes sense. */
export interface Failure {
  text: string;
  retry: boolean;
}

/** "wait 20 seconds and try again", "try again in about 5 minutes", "try again later" */
function waitWords(seconds: number | null, more: MoreTexts): string {
  if (!seconds) return more.wait_moment;
  if (seconds <= 90) return fill(more.wait_seconds, { n: Math.ceil(seconds) });
  if (seconds <= 90 * 60) return fill(more.wait_minutes, { n: Math.ceil(seconds / 60) });
  return more.wait_later;
}

export function failureText(err: unknown, t: Texts, more: MoreTexts, lang: Lang): Failure {
  const f = err instanceof ApiFailure ? err : new ApiFailure(0, 'Network error');
  switch (f.status) {
    case 0:
      return { text: t.error_network, retry: true };
    case 429:
      // the owner's monthly quota: the server's sentence for visitors, and no Retry (it would fail
      // until the month ends); a short rate limit: when to try again, in words a person uses
      if (f.unavailable) return { text: f.detail, retry: false };
      return { text: fill(t.error_busy, { wait: waitWords(f.retryAfter, more) }), retry: true };
    case 400:
      return { text: t.error_offline, retry: true };
    case 402:
    case 403:
      return { text: t.error_unavailable, retry: false };
    case 413:
      return { text: fill(t.error_too_long, { max: MAX_MESSAGE_CHARS.toLocaleString(lang) }), retry: false };
    default:
      return { text: t.error_generic, retry: true };
  }
}
