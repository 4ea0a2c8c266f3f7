/**
 * When the office hours open next, as the visitor reads it: their own time zone (the browser's),
 * in `locale`, e.g. "Tuesday, March 3, 9:00 AM". Null for anything that is not a time (the value
 * may come from localStorage, where a page script could have put anything).
 */
export function formatOpening(at: unknown, locale: string): string | null {
  if (typeof at !== 'string') return null;
  const t = Date.parse(at);
  if (!Number.isFinite(t)) return null;
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  };
  try {
    return new Intl.DateTimeFormat(locale, options).format(t);
  } catch {
    return new Intl.DateTimeFormat(undefined, options).format(t);
  }
}

/**
 * The visitor's locale in the widget's language: the first of the browser's languages that is
 * `lang` (with its region: en-GB writes dates as the visitor expects), else `lang` itself.
 */
export function localeFor(lang: string, browserLanguages: readonly string[]): string {
  for (const tag of browserLanguages) {
    if (String(tag).split(/[-_]/)[0]!.toLowerCase() === lang) return String(tag);
  }
  return lang;
}
