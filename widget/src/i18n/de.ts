import type { MoreTexts, Texts } from '../i18n.js';

/** German (de): the texts an owner may reword. */
export const texts: Texts = {
  placeholder: 'Nachricht eingeben…',
  send: 'Nachricht senden',
  online: 'Online',
  offline: 'Offline',
  new_conversation: 'Neues Gespräch beginnen',
  close: 'Chat schließen',
  open_chat: 'Chat mit {name} öffnen',
  lead_intro: 'Bevor es losgeht: Wie können wir Sie erreichen?',
  lead_name: 'Name',
  lead_phone: 'Telefon',
  lead_submit: 'Chat starten',
  lead_skip: 'Jetzt nicht',
  lead_consent: 'Mit dem Absenden Ihrer Angaben sind Sie einverstanden, dass wir Sie zu Ihrer Anfrage kontaktieren.',
  privacy_policy: 'Datenschutzerklärung',
  lead_phone_missing: 'Bitte geben Sie eine Telefonnummer ein.',
  lead_failed: 'Ihre Angaben konnten nicht gesendet werden. Bitte versuchen Sie es erneut.',
  sources: 'Quellen:',
  retry: 'Erneut versuchen',
  error_network:
    'Verbindungsproblem: Die Nachricht konnte nicht gesendet werden. Bitte prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  error_busy: 'Gerade kommen zu viele Nachrichten. Bitte {wait}.',
  error_offline: 'Dieser Assistent ist gerade offline. Bitte versuchen Sie es später erneut.',
  error_unavailable: 'Dieser Chat ist im Moment nicht verfügbar.',
  error_generic: 'Beim Antworten ist etwas schiefgelaufen. Bitte versuchen Sie es erneut.',
  error_too_long: 'Diese Nachricht ist zu lang (höchstens {max} Zeichen).',
  feedback_up: 'Hilfreich',
  feedback_down: 'Nicht hilfreich',
  ask_person: 'Mit einer Person sprechen',
  asked_person: 'Wir haben eine Person gebeten, zu übernehmen; sie meldet sich hier bei Ihnen.',
  greeting_dismiss: 'Schließen',
  person_label: 'Teammitglied',
  person_joined: 'Eine Person ist dem Gespräch beigetreten.',
  person_left: 'Der Assistent antwortet wieder.',
  handoff_timeout:
    'Leider ist gerade niemand frei. Hinterlassen Sie Ihren Namen und Ihre Telefonnummer, dann melden wir uns bei Ihnen.',
  handoff_closed:
    'Gerade ist niemand erreichbar. Hinterlassen Sie Ihre Kontaktdaten, wir antworten, sobald wir wieder da sind: {time}.',
};

/** German: what only screen readers hear, and the pieces of keyed texts. */
export const more: MoreTexts = {
  chat_with: 'Chat mit {name}',
  messages: 'Nachrichten',
  you_said: 'Sie schrieben:',
  assistant_said: 'Der Assistent schrieb:',
  typing: 'Der Assistent schreibt',
  page: 'Seite {n}',
  wait_moment: 'warten Sie einen Moment und versuchen Sie es erneut',
  wait_seconds: 'warten Sie {n} Sekunden und versuchen Sie es erneut',
  wait_minutes: 'versuchen Sie es in etwa {n} Minuten erneut',
  wait_later: 'versuchen Sie es später erneut',
  lead_intro_later: 'Sollen wir uns bei Ihnen melden? Hinterlassen Sie uns Ihren Namen und Ihre Telefonnummer.',
  lead_submit_later: 'Senden',
  lead_thanks: 'Danke! Wir melden uns bei Ihnen.',
  not_found: 'Diesen Chat gibt es nicht.',
  person_said: 'Ein Teammitglied schrieb:',
};
