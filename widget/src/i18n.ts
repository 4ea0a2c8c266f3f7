/**
 * The widget's fixed texts in every language it speaks. No DOM here: the admin UI imports this
 * file for its placeholders, and a unit test checks it against the server's list of text keys.
 *
 * `TEXTS` holds the texts an owner may reword (the agent's `widget_texts`, keys exactly as the
 * server's WIDGET_TEXT_KEYS); `MORE_TEXTS` the ones only screen readers hear, or the pieces a
 * keyed text is built from, which are not reworded. `{name}`, `{wait}`, `{n}`, `{max}`, `{time}`, `{request}` and `{zone}` are
 * filled in by the widget. Languages: the agent's `language`, or with `auto` the visitor's
 * browser (pickLanguage).
 *
 * One file per language in i18n/ (`texts` and `more`, typed by the keys below, so a missing or
 * unknown key does not compile); this file is their index. A new language: a file like
 * i18n/en.ts, its code in LANGUAGES, and its entry in both tables.
 */

import * as en from './i18n/en.js';
import * as es from './i18n/es.js';
import * as fr from './i18n/fr.js';
import * as de from './i18n/de.js';
import * as it from './i18n/it.js';
import * as pt from './i18n/pt.js';
import * as nl from './i18n/nl.js';

export const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const;
export type Lang = (typeof LANGUAGES)[number];

export type TextKey =
  | 'placeholder'
  | 'send'
  | 'online'
  | 'offline'
  | 'new_conversation'
  | 'close'
  | 'open_chat'
  | 'lead_intro'
  | 'lead_name'
  | 'lead_phone'
  | 'lead_submit'
  | 'lead_skip'
  | 'lead_consent'
  | 'privacy_policy'
  | 'lead_phone_missing'
  | 'lead_failed'
  | 'sources'
  | 'retry'
  | 'error_network'
  | 'error_busy'
  | 'error_offline'
  | 'error_unavailable'
  | 'error_generic'
  | 'error_too_long'
  | 'feedback_up'
  | 'feedback_down'
  | 'ask_person'
  | 'asked_person'
  | 'greeting_dismiss'
  | 'person_label'
  | 'person_joined'
  | 'person_left'
  | 'handoff_timeout'
  | 'handoff_closed';

export type MoreKey =
  | 'chat_with'
  | 'messages'
  | 'you_said'
  | 'assistant_said'
  | 'typing'
  | 'page'
  | 'wait_moment'
  | 'wait_seconds'
  | 'wait_minutes'
  | 'wait_later'
  | 'lead_intro_later'
  | 'lead_submit_later'
  | 'lead_thanks'
  | 'not_found'
  | 'person_said'
  | 'actions'
  | 'action_confirm'
  | 'action_cancel'
  | 'action_sends'
  | 'action_card'
  | 'booking_card'
  | 'booking_slots'
  | 'booking_email'
  | 'booking_name'
  | 'action_start'
  | 'action_optional'
  | 'action_done'
  | 'action_not_done'
  | 'action_cancelled'
  | 'action_expired'
  | 'action_running';

export type Texts = Record<TextKey, string>;
export type MoreTexts = Record<MoreKey, string>;

export const TEXTS: Record<Lang, Texts> = {
  en: en.texts,
  es: es.texts,
  fr: fr.texts,
  de: de.texts,
  it: it.texts,
  pt: pt.texts,
  nl: nl.texts,
};
export const MORE_TEXTS: Record<Lang, MoreTexts> = {
  en: en.more,
  es: es.more,
  fr: fr.more,
  de: de.more,
  it: it.more,
  pt: pt.more,
  nl: nl.more,
};

const isLang = (code: string): code is Lang => (LANGUAGES as readonly string[]).includes(code);

/**
 * The language to speak: the agent's own when it is not `auto`, else the first of the browser's
 * languages (navigator.languages, most preferred first) whose primary subtag we have, else en.
 */
export function pickLanguage(setting: string | null | undefined, browserLanguages: readonly string[]): Lang {
  if (setting && isLang(setting)) return setting;
  for (const tag of browserLanguages) {
    const primary = String(tag).split(/[-_]/)[0]!.toLowerCase();
    if (isLang(primary)) return primary;
  }
  return 'en';
}

/** The language's texts with the owner's wording over them (non-empty strings of known keys only). */
export function textsFor(lang: Lang, owner: Record<string, unknown> | null | undefined): Texts {
  const texts = { ...TEXTS[lang] };
  if (owner && typeof owner === 'object') {
    for (const key of Object.keys(texts) as TextKey[]) {
      const v = owner[key];
      if (typeof v === 'string' && v.trim()) texts[key] = v;
    }
  }
  return texts;
}

/** `{name}`-style holes filled from `values`; a hole without a value stays as written. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (hole, k: string) => (k in values ? String(values[k]) : hole));
}
