/**
 * The widget's fixed texts in every language it speaks. No DOM here: the admin UI imports this
 * file for its placeholders, and a unit test checks it against the server's list of text keys.
 *
 * `TEXTS` holds the texts an owner may reword (the agent's `widget_texts`, keys exactly as the
 * server's WIDGET_TEXT_KEYS); `MORE_TEXTS` the ones only screen readers hear, or the pieces a
 * keyed text is built from, which are not reworded. `{name}`, `{wait}`, `{n}` and `{max}` are
 * filled in by the widget. Languages: the agent's `language`, or with `auto` the visitor's
 * browser (pickLanguage).
 */

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
  | 'handoff_timeout';

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
  | 'person_said';

export type Texts = Record<TextKey, string>;
export type MoreTexts = Record<MoreKey, string>;

export const TEXTS: Record<Lang, Texts> = {
  en: {
    placeholder: 'Type your message…',
    send: 'Send message',
    online: 'Online',
    offline: 'Offline',
    new_conversation: 'Start a new conversation',
    close: 'Close chat',
    open_chat: 'Open chat with {name}',
    lead_intro: 'Before we start, please tell us how to reach you.',
    lead_name: 'Name',
    lead_phone: 'Phone',
    lead_submit: 'Start chat',
    lead_skip: 'Not now',
    lead_consent: 'By sending your details you agree that we contact you about your request.',
    privacy_policy: 'Privacy policy',
    lead_phone_missing: 'Please enter a phone number.',
    lead_failed: 'Your details could not be sent. Please try again.',
    sources: 'Sources:',
    retry: 'Retry',
    error_network: 'Connection problem: the message could not be sent. Check your connection and try again.',
    error_busy: 'Too many messages right now. Please {wait}.',
    error_offline: 'This assistant is offline right now. Please try again later.',
    error_unavailable: 'This chat is not available at the moment.',
    error_generic: 'Something went wrong while answering. Please try again.',
    error_too_long: 'That message is too long (at most {max} characters).',
    feedback_up: 'Helpful',
    feedback_down: 'Not helpful',
    ask_person: 'Talk to a person',
    asked_person: 'We have asked a person to take over; they will get back to you here.',
    greeting_dismiss: 'Dismiss',
    person_label: 'Team member',
    person_joined: 'A person has joined the conversation.',
    person_left: 'The assistant is answering again.',
    handoff_timeout: 'Sorry, nobody is free right now. Leave your name and phone number and we will get back to you.',
  },
  es: {
    placeholder: 'Escriba su mensaje…',
    send: 'Enviar mensaje',
    online: 'En línea',
    offline: 'Desconectado',
    new_conversation: 'Iniciar una nueva conversación',
    close: 'Cerrar el chat',
    open_chat: 'Abrir el chat con {name}',
    lead_intro: 'Antes de empezar, díganos cómo podemos contactarle.',
    lead_name: 'Nombre',
    lead_phone: 'Teléfono',
    lead_submit: 'Iniciar chat',
    lead_skip: 'Ahora no',
    lead_consent: 'Al enviar sus datos, acepta que nos pongamos en contacto con usted sobre su consulta.',
    privacy_policy: 'Política de privacidad',
    lead_phone_missing: 'Introduzca un número de teléfono.',
    lead_failed: 'No se han podido enviar sus datos. Inténtelo de nuevo.',
    sources: 'Fuentes:',
    retry: 'Reintentar',
    error_network:
      'Problema de conexión: no se ha podido enviar el mensaje. Compruebe su conexión e inténtelo de nuevo.',
    error_busy: 'Demasiados mensajes en este momento. {wait}.',
    error_offline: 'Este asistente está desconectado en este momento. Inténtelo más tarde.',
    error_unavailable: 'Este chat no está disponible en este momento.',
    error_generic: 'Algo ha fallado al responder. Inténtelo de nuevo.',
    error_too_long: 'Ese mensaje es demasiado largo (máximo {max} caracteres).',
    feedback_up: 'Útil',
    feedback_down: 'No útil',
    ask_person: 'Hablar con una persona',
    asked_person: 'Hemos pedido que una persona se encargue; te responderá aquí.',
    greeting_dismiss: 'Cerrar',
    person_label: 'Miembro del equipo',
    person_joined: 'Una persona se ha unido a la conversación.',
    person_left: 'El asistente vuelve a responder.',
    handoff_timeout: 'Lo sentimos, ahora no hay nadie disponible. Déjanos tu nombre y teléfono y te contactaremos.',
  },
  fr: {
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
  },
  de: {
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
  },
  it: {
    placeholder: 'Scrivi un messaggio…',
    send: 'Invia messaggio',
    online: 'Online',
    offline: 'Offline',
    new_conversation: 'Inizia una nuova conversazione',
    close: 'Chiudi la chat',
    open_chat: 'Apri la chat con {name}',
    lead_intro: 'Prima di iniziare, dicci come possiamo contattarti.',
    lead_name: 'Nome',
    lead_phone: 'Telefono',
    lead_submit: 'Inizia la chat',
    lead_skip: 'Non ora',
    lead_consent: 'Inviando i tuoi dati accetti di essere contattato in merito alla tua richiesta.',
    privacy_policy: 'Informativa sulla privacy',
    lead_phone_missing: 'Inserisci un numero di telefono.',
    lead_failed: 'Non è stato possibile inviare i tuoi dati. Riprova.',
    sources: 'Fonti:',
    retry: 'Riprova',
    error_network: 'Problema di connessione: il messaggio non è stato inviato. Controlla la connessione e riprova.',
    error_busy: 'Troppi messaggi in questo momento. {wait}.',
    error_offline: 'Al momento questo assistente è offline. Riprova più tardi.',
    error_unavailable: 'Al momento questa chat non è disponibile.',
    error_generic: 'Si è verificato un errore durante la risposta. Riprova.',
    error_too_long: 'Il messaggio è troppo lungo (al massimo {max} caratteri).',
    feedback_up: 'Utile',
    feedback_down: 'Non utile',
    ask_person: 'Parla con una persona',
    asked_person: 'Abbiamo chiesto a una persona di subentrare; ti risponderà qui.',
    greeting_dismiss: 'Chiudi',
    person_label: 'Membro del team',
    person_joined: 'Una persona si è unita alla conversazione.',
    person_left: 'L’assistente risponde di nuovo.',
    handoff_timeout:
      'Spiacenti, al momento nessuno è disponibile. Lascia il tuo nome e numero di telefono e ti ricontatteremo.',
  },
  pt: {
    placeholder: 'Escreva a sua mensagem…',
    send: 'Enviar mensagem',
    online: 'Online',
    offline: 'Offline',
    new_conversation: 'Iniciar uma nova conversa',
    close: 'Fechar o chat',
    open_chat: 'Abrir o chat com {name}',
    lead_intro: 'Antes de começar, deixe-nos o seu nome e telefone.',
    lead_name: 'Nome',
    lead_phone: 'Telefone',
    lead_submit: 'Iniciar conversa',
    lead_skip: 'Agora não',
    lead_consent: 'Ao enviar os seus dados, aceita que lhe respondamos sobre o seu pedido.',
    privacy_policy: 'Política de privacidade',
    lead_phone_missing: 'Indique um número de telefone.',
    lead_failed: 'Não foi possível enviar os seus dados. Tente novamente.',
    sources: 'Fontes:',
    retry: 'Tentar novamente',
    error_network:
      'Problema de conexão: não foi possível enviar a mensagem. Verifique a sua conexão e tente novamente.',
    error_busy: 'Há muitas mensagens neste momento. {wait}.',
    error_offline: 'Este assistente está offline neste momento. Tente novamente mais tarde.',
    error_unavailable: 'Este chat não está disponível neste momento.',
    error_generic: 'Ocorreu um erro ao responder. Tente novamente.',
    error_too_long: 'Essa mensagem é muito longa (no máximo {max} caracteres).',
    feedback_up: 'Útil',
    feedback_down: 'Não foi útil',
    ask_person: 'Falar com uma pessoa',
    asked_person: 'Pedimos a uma pessoa que assuma a conversa; ela responderá por aqui.',
    greeting_dismiss: 'Fechar',
    person_label: 'Membro da equipe',
    person_joined: 'Uma pessoa entrou na conversa.',
    person_left: 'O assistente voltou a responder.',
    handoff_timeout: 'Desculpe, ninguém está disponível agora. Deixe seu nome e telefone e entraremos em contato.',
  },
  nl: {
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
  },
};

export const MORE_TEXTS: Record<Lang, MoreTexts> = {
  en: {
    chat_with: 'Chat with {name}',
    messages: 'Messages',
    you_said: 'You said:',
    assistant_said: 'Assistant said:',
    typing: 'Assistant is typing',
    page: 'page {n}',
    wait_moment: 'wait a moment and try again',
    wait_seconds: 'wait {n} seconds and try again',
    wait_minutes: 'try again in about {n} minutes',
    wait_later: 'try again later',
    lead_intro_later: 'Would you like us to get back to you? Leave your name and phone number.',
    lead_submit_later: 'Send',
    lead_thanks: 'Thank you! We will be in touch.',
    not_found: 'This chat does not exist.',
    person_said: 'A team member said:',
  },
  es: {
    chat_with: 'Chat con {name}',
    messages: 'Mensajes',
    you_said: 'Usted dijo:',
    assistant_said: 'El asistente dijo:',
    typing: 'El asistente está escribiendo',
    page: 'página {n}',
    wait_moment: 'Espere un momento e inténtelo de nuevo',
    wait_seconds: 'Espere {n} segundos e inténtelo de nuevo',
    wait_minutes: 'Vuelva a intentarlo dentro de unos {n} minutos',
    wait_later: 'Vuelva a intentarlo más tarde',
    lead_intro_later: '¿Quiere que le contactemos? Déjenos su nombre y su teléfono.',
    lead_submit_later: 'Enviar',
    lead_thanks: '¡Gracias! Nos pondremos en contacto con usted.',
    not_found: 'Este chat no existe.',
    person_said: 'Un miembro del equipo dijo:',
  },
  fr: {
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
  },
  de: {
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
  },
  it: {
    chat_with: 'Chat con {name}',
    messages: 'Messaggi',
    you_said: 'Hai scritto:',
    assistant_said: 'L’assistente ha scritto:',
    typing: 'L’assistente sta scrivendo',
    page: 'pagina {n}',
    wait_moment: 'Attendi un momento e riprova',
    wait_seconds: 'Attendi {n} secondi e riprova',
    wait_minutes: 'Riprova tra circa {n} minuti',
    wait_later: 'Riprova più tardi',
    lead_intro_later: 'Vuoi essere ricontattato? Lasciaci il tuo nome e il tuo numero di telefono.',
    lead_submit_later: 'Invia',
    lead_thanks: 'Grazie! Ti ricontatteremo presto.',
    not_found: 'Questa chat non esiste.',
    person_said: 'Un membro del team ha scritto:',
  },
  pt: {
    chat_with: 'Chat com {name}',
    messages: 'Mensagens',
    you_said: 'A sua mensagem:',
    assistant_said: 'Resposta do assistente:',
    typing: 'Resposta do assistente em preparação',
    page: 'página {n}',
    wait_moment: 'Aguarde um momento e tente novamente',
    wait_seconds: 'Aguarde {n} segundos e tente novamente',
    wait_minutes: 'Tente novamente dentro de cerca de {n} minutos',
    wait_later: 'Tente novamente mais tarde',
    lead_intro_later: 'Quer que lhe liguemos? Deixe-nos o seu nome e telefone.',
    lead_submit_later: 'Enviar',
    lead_thanks: 'Obrigado! Responderemos em breve.',
    not_found: 'Este chat não existe.',
    person_said: 'Um membro da equipe escreveu:',
  },
  nl: {
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
  },
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
