import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { lazy } from '../lazy.js';

/** loaded at the first send, not at start (see platform/lazy.ts) */
const nodemailerModule = lazy(() => import('nodemailer'));

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** an iCalendar invitation (METHOD:REQUEST): mail clients show it as an event to accept */
  ics?: string;
  /** the sender instead of the mailer's own (an e-mail channel's address) */
  from?: string;
  /** threading: the Message-ID answered, and the thread's ids (the visitor's mail program groups them) */
  inReplyTo?: string;
  references?: string[];
}

/** Sends one e-mail; throws when the server refuses or cannot be reached (the outbox retries). */
export interface Mailer {
  readonly configured: boolean;
  /** `signal` (shutdown) ends the wait at once: the message stays queued and is sent again later */
  send(message: MailMessage, signal?: AbortSignal): Promise<void>;
}

/**
 * A mail server that accepts the connection and then says nothing must not hold a send (and with
 * it a queue slot and the shutdown) for nodemailer's defaults of 30 s greeting / 10 min idle.
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** The mail server to use: an SMTP URL (nodemailer connection URL) and the sender. */
export interface SmtpSettings {
  url?: string;
  from?: string;
}

/** nodemailer over SMTP_URL, from SMTP_FROM; `configured` false without SMTP_URL (mail stays queued). */
export function createMailer(smtp: SmtpSettings): Mailer {
  if (!smtp.url) {
    return {
      configured: false,
      send: async () => {
        throw new Error('mail is not configured (SMTP_URL)');
      },
    };
  }
  const url = smtp.url;
  let transport: Transporter | undefined;
  const from = smtp.from ?? 'chat-agent@localhost';
  return {
    configured: true,
    send: async (message, signal) => {
      signal?.throwIfAborted();
      if (!transport) {
        const { createTransport } = await nodemailerModule();
        // timeouts the URL's own query parameters do not set
        transport ??= createTransport({ ...TIMEOUTS, url }, { from: smtp.from });
      }
      await sendOn(transport, from, message, signal);
    },
  };
}

/**
 * A mailer for a server given by its connection options, made afresh for each message
 * (`connect` resolves and checks the host each time: an e-mail channel's own SMTP server).
 */
export function mailerWith(connect: () => Promise<SMTPTransport.Options>, from: string): Mailer {
  return {
    configured: true,
    send: async (message, signal) => {
      signal?.throwIfAborted();
      const [{ createTransport }, options] = await Promise.all([nodemailerModule(), connect()]);
      signal?.throwIfAborted();
      const transport = createTransport({ ...TIMEOUTS, ...options });
      try {
        await sendOn(transport, from, message, signal);
      } finally {
        transport.close();
      }
    },
  };
}

/** Sends on `transport`; `signal` (shutdown) stops the wait, the send is abandoned. */
async function sendOn(transport: Transporter, from: string, message: MailMessage, signal?: AbortSignal) {
  signal?.throwIfAborted();
  const sending = transport.sendMail({
    from: message.from ?? from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo, references: message.references } : {}),
    ...(message.ics ? { icalEvent: { method: 'request', filename: 'invitation.ics', content: message.ics } } : {}),
  });
  if (!signal) {
    await sending;
    return;
  }
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      sending,
      new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(signal.reason ?? new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    sending.catch(() => undefined); // an abandoned send may still fail later; nobody waits for it
  }
}

/**
 * A mailer that follows the settings as they are *now*: `configured` and every `send` read
 * `current()`, so an SMTP server an admin saves (or removes) applies without a restart, to lead
 * alerts and reset links alike. The nodemailer transport is made once per set of settings (it
 * opens a connection per message, so a replaced one holds nothing open).
 */
export function dynamicMailer(current: () => SmtpSettings): Mailer {
  let made: { fingerprint: string; mailer: Mailer } | undefined;
  const mailer = (): Mailer => {
    const smtp = current();
    const fingerprint = JSON.stringify([smtp.url ?? null, smtp.from ?? null]);
    if (made?.fingerprint !== fingerprint) made = { fingerprint, mailer: createMailer(smtp) };
    return made.mailer;
  };
  return {
    get configured() {
      return mailer().configured;
    },
    send: (message, signal) => mailer().send(message, signal),
  };
}
