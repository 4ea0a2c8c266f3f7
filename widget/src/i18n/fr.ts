import type { MoreTexts, Texts } from '../i18n.js';

/** French (fr): the texts an owner may reword. */
export const texts: Texts = {
  placeholder: 'Écrivez votre message…',
  send: 'Envoyer le message',
  online: 'En ligne',
  offline: 'Hors ligne',
  new_conversation: 'Commencer une nouvelle conversation',
  close: 'Fermer le chat',
  open_chat: 'Ouvrir le chat avec {name}',
  lead_intro: 'Avant de commencer, indiquez-nous comment vous joindre.',
  lead_name: 'Nom',
  lead_phone: 'Téléphone',
  lead_submit: 'Commencer le chat',
  lead_skip: 'Pas maintenant',
  lead_consent: 'En envoyant vos coordonnées, vous acceptez que nous vous contactions au sujet de votre demande.',
  privacy_policy: 'Politique de confidentialité',
  lead_phone_missing: 'Veuillez saisir un numéro de téléphone.',
  lead_failed: 'Vos coordonnées n’ont pas pu être envoyées. Veuillez réessayer.',
  sources: 'Sources\u00a0:',
  retry: 'Réessayer',
  error_network:
    'Problème de connexion\u00a0: le message n’a pas pu être envoyé. Vérifiez votre connexion et réessayez.',
  error_busy: 'Trop de messages pour le moment. {wait}.',
  error_offline: 'Cet assistant est hors ligne pour le moment. Veuillez réessayer plus tard.',
  error_unavailable: 'Ce chat n’est pas disponible pour le moment.',
  error_generic: 'Une erreur s’est produite pendant la réponse. Veuillez réessayer.',
  error_too_long: 'Ce message est trop long ({max} caractères au maximum).',
  feedback_up: 'Utile',
  feedback_down: 'Pas utile',
  ask_person: 'Parler à une personne',
  asked_person: 'Nous avons demandé à une personne de prendre le relais ; elle vous répondra ici.',
  greeting_dismiss: 'Fermer',
  person_label: 'Membre de l’équipe',
  person_joined: 'Une personne a rejoint la conversation.',
  person_left: 'L’assistant répond de nouveau.',
  handoff_timeout:
    'Désolés, personne n’est disponible pour le moment. Laissez votre nom et votre numéro de téléphone et nous vous recontacterons.',
  handoff_closed:
    'Personne n’est disponible pour le moment. Laissez vos coordonnées et nous vous répondrons à notre retour : {time}.',
};

/** French: what only screen readers hear, and the pieces of keyed texts. */
export const more: MoreTexts = {
  chat_with: 'Chat avec {name}',
  messages: 'Messages',
  you_said: 'Vous avez dit\u00a0:',
  assistant_said: 'L’assistant a dit\u00a0:',
  typing: 'L’assistant écrit',
  page: 'page {n}',
  wait_moment: 'Patientez un instant puis réessayez',
  wait_seconds: 'Patientez {n}\u00a0secondes puis réessayez',
  wait_minutes: 'Réessayez dans environ {n}\u00a0minutes',
  wait_later: 'Réessayez plus tard',
  lead_intro_later: 'Souhaitez-vous que nous vous recontactions\u00a0? Laissez-nous votre nom et votre numéro.',
  lead_submit_later: 'Envoyer',
  lead_thanks: 'Merci\u00a0! Nous vous recontacterons.',
  not_found: 'Ce chat n’existe pas.',
  person_said: 'Un membre de l’équipe a dit\u00a0:',
};
