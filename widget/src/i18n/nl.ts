import type { MoreTexts, Texts } from '../i18n.js';

/** Dutch (nl): the texts an owner may reword. */
export const texts: Texts = {
  placeholder: 'Typ uw bericht…',
  send: 'Bericht versturen',
  online: 'Online',
  offline: 'Offline',
  new_conversation: 'Nieuw gesprek starten',
  close: 'Chat sluiten',
  open_chat: 'Chat met {name} openen',
  lead_intro: 'Voordat we beginnen: hoe kunnen we u bereiken?',
  lead_name: 'Naam',
  lead_phone: 'Telefoon',
  lead_submit: 'Chat starten',
  lead_skip: 'Niet nu',
  lead_consent: 'Door uw gegevens te versturen, gaat u ermee akkoord dat wij contact met u opnemen over uw vraag.',
  privacy_policy: 'Privacybeleid',
  lead_phone_missing: 'Vul een telefoonnummer in.',
  lead_failed: 'Uw gegevens konden niet worden verstuurd. Probeer het opnieuw.',
  sources: 'Bronnen:',
  retry: 'Opnieuw proberen',
  error_network:
    'Verbindingsprobleem: het bericht kon niet worden verstuurd. Controleer uw verbinding en probeer het opnieuw.',
  error_busy: 'Te veel berichten op dit moment. {wait}.',
  error_offline: 'Deze assistent is nu offline. Probeer het later opnieuw.',
  error_unavailable: 'Deze chat is op dit moment niet beschikbaar.',
  error_generic: 'Er ging iets mis bij het beantwoorden. Probeer het opnieuw.',
  error_too_long: 'Dit bericht is te lang (maximaal {max} tekens).',
  feedback_up: 'Nuttig',
  feedback_down: 'Niet nuttig',
  ask_person: 'Met een persoon praten',
  asked_person: 'We hebben een medewerker gevraagd het over te nemen; die reageert hier.',
  greeting_dismiss: 'Sluiten',
  person_label: 'Teamlid',
  person_joined: 'Een medewerker neemt deel aan het gesprek.',
  person_left: 'De assistent antwoordt weer.',
  handoff_timeout:
    'Sorry, er is nu niemand beschikbaar. Laat uw naam en telefoonnummer achter, dan nemen we contact met u op.',
  handoff_closed:
    'Er is nu niemand beschikbaar. Laat uw gegevens achter, dan antwoorden we zodra we terug zijn: {time}.',
};

/** Dutch: what only screen readers hear, and the pieces of keyed texts. */
export const more: MoreTexts = {
  chat_with: 'Chat met {name}',
  messages: 'Berichten',
  you_said: 'U schreef:',
  assistant_said: 'De assistent schreef:',
  typing: 'De assistent typt',
  page: 'pagina {n}',
  wait_moment: 'Wacht even en probeer het opnieuw',
  wait_seconds: 'Wacht {n} seconden en probeer het opnieuw',
  wait_minutes: 'Probeer het over ongeveer {n} minuten opnieuw',
  wait_later: 'Probeer het later opnieuw',
  lead_intro_later: 'Zullen we contact met u opnemen? Laat uw naam en telefoonnummer achter.',
  lead_submit_later: 'Versturen',
  lead_thanks: 'Bedankt! We nemen contact met u op.',
  not_found: 'Deze chat bestaat niet.',
  person_said: 'Een teamlid schreef:',
};
