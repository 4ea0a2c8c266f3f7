import { isIP } from 'node:net';
import type { ImapFlow } from 'imapflow';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { lazy } from '../../platform/lazy.js';
import { type Mailer, mailerWith } from '../../platform/mail/index.js';
import { resolvePublicHost } from '../../platform/net/safe-fetch.js';
import { UnsafeUrlError } from '../../platform/net/types.js';
import {
  type ChannelClient,
  type ChannelDefinition,
  ChannelError,
  type ClientOptions,
  type Credential,
  type UpdateBatch,
} from './contract.js';
import { readMail } from './email-message.js';

const imapflowModule = lazy(() => import('imapflow'));
const nodemailerModule = lazy(() => import('nodemailer'));

/** messages read per poll: a full mailbox is worked through in turns, each batch stored with its offset */
const BATCH = 20;
/** a message's first bytes only: the text is at the start, attachments after it */
const MAX_SOURCE_BYTES = 1024 * 1024;
/** without IDLE on the server, how often imapflow asks (NOOP) whether mail came */
const NO_IDLE_POLL_MS = 10_000;
/** answers one sender address may get a day (a forged From cannot burn the owner's quota) */
const ANSWERS_PER_SENDER_DAILY = 10;

/** A mail server as the owner's URL names it. */
interface MailServer {
  host: string;
  port: number;
  /** TLS from the first byte (imaps, smtps); otherwise STARTTLS */
  secure: boolean;
  user: string;
  pass: string;
  /** IMAP: the folder to read, INBOX unless the URL's path names one */
  folder: string;
}

const PORTS = { 'imap:': 143, 'imaps:': 993, 'smtp:': 587, 'smtps:': 465 } as const;

/** the server a URL names, or what is wrong with it */
function serverOf(raw: string | undefined, kind: 'imap' | 'smtp'): MailServer | string {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    return `not a URL (e.g. ${kind}s://user:password@${kind}.example.com)`;
  }
  if (url.protocol !== `${kind}:` && url.protocol !== `${kind}s:`)
    return `must start with ${kind}s:// (TLS) or ${kind}:// (STARTTLS)`;
  if (!url.hostname) return 'has no host';
  if (kind === 'imap' && (!url.username || !url.password))
    return 'needs the mailbox user name and password (imaps://user:password@host; write @ in a user name as %40)';
  const folder = decodeURIComponent(url.pathname.replace(/^\/+/, '')) || 'INBOX';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : PORTS[url.protocol as keyof typeof PORTS],
    secure: url.protocol.endsWith('s:'),
    user: decodeURIComponent(url.username),
    pass: decodeURIComponent(url.password),
    folder,
  };
}

function server(raw: string | undefined, kind: 'imap' | 'smtp'): MailServer {
  const found = serverOf(raw, kind);
  if (typeof found === 'string') throw new ChannelError('undeliverable', found, undefined, `${kind}_url`);
  return found;
}

/** where to connect: the host's checked address (no private ones unless allowed), TLS naming the host */
async function target(s: MailServer, field: string, options: ClientOptions) {
  const address = await resolvePublicHost(s.host, options.allowPrivateUrls).catch((err: unknown) => {
    throw err instanceof UnsafeUrlError
      ? new ChannelError(
          'undeliverable',
          err.message.replace(/can(not)? be fetched/, 'can$1 be connected to'),
          undefined,
          field,
        )
      : new ChannelError('unavailable', `could not resolve ${s.host}`, undefined, field);
  });
  return { address, servername: isIP(s.host.replace(/^\[|\]$/g, '')) ? undefined : s.host };
}

/** nodemailer's options for the channel's own SMTP server (its host checked like the IMAP one) */
async function smtpOptions(credential: Credential, options: ClientOptions): Promise<SMTPTransport.Options> {
  const s = server(credential.smtp_url, 'smtp');
  const { address, servername } = await target(s, 'smtp_url', options);
  return {
    host: address,
    port: s.port,
    secure: s.secure,
    servername,
    // a password never crosses the Internet in clear: STARTTLS is required on a public server
    requireTLS: !s.secure && !options.allowPrivateUrls,
    ...(s.user ? { auth: { user: s.user, pass: s.pass } } : {}),
  };
}

/**
 * The mailer of an e-mail channel with its own `smtp_url` (null: the server's SMTP settings send
 * its replies). The mail outbox delivers through it.
 */
export function emailChannelMailer(credential: Credential, options: ClientOptions): Mailer | null {
  if (!credential.smtp_url) return null;
  return mailerWith(() => smtpOptions(credential, options), credential.address ?? '');
}

/**
 * One mailbox over IMAP (imapflow): the connection stays open between polls; new mail is noticed
 * by IDLE where the server offers it, by imapflow's NOOP polling where it does not. The poll's
 * offset is the highest UID read, stored with the messages (a crash reads them again; the
 * Message-ID keeps each once).
 */
class EmailClient implements ChannelClient {
  private session: ImapFlow | undefined;

  constructor(
    private readonly credential: Credential,
    private readonly options: ClientOptions,
  ) {}

  async identify(signal?: AbortSignal) {
    const s = server(this.credential.imap_url, 'imap');
    // both hosts are checked (the IMAP one first) before either server is connected to
    await target(s, 'imap_url', this.options);
    const smtp = this.credential.smtp_url ? await smtpOptions(this.credential, this.options) : null;
    await this.open(signal);
    if (smtp) {
      const { createTransport } = await nodemailerModule();
      const transport = createTransport({ ...smtp, connectionTimeout: 10_000 });
      try {
        await transport.verify();
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw new ChannelError(
          code === 'EAUTH' ? 'unauthorized' : 'unavailable',
          code === 'EAUTH'
            ? 'the SMTP server refused the user name or password'
            : `could not reach the SMTP server (${code ?? 'error'})`,
          undefined,
          'smtp_url',
        );
      } finally {
        transport.close();
      }
    }
    return { account_name: this.credential.address ?? '', display_name: `${s.folder} on ${s.host}` };
  }

  async poll(offset: number | null, waitS: number, signal: AbortSignal): Promise<UpdateBatch> {
    try {
      const { imap, fresh } = await this.open(signal);
      const box = imap.mailbox || undefined;
      // the first poll starts after what is already there (mail from before the connection is the owner's)
      if (offset === null || (fresh && box && offset >= box.uidNext))
        return { messages: [], nextOffset: Math.max(0, (box?.uidNext ?? 1) - 1) };
      // a message that arrives while the search runs is announced in its answer, before the wait
      // below listens: the count it changes tells the wait not to start
      const known = box?.exists;
      const uids = ((await imap.search({ uid: `${offset + 1}:*` }, { uid: true })) || [])
        .filter((uid) => uid > offset)
        .sort((a, b) => a - b)
        .slice(0, BATCH);
      if (uids.length === 0) {
        await waitForMail(imap, waitS, signal, known);
        if (signal.aborted) await this.close();
        return { messages: [], nextOffset: null };
      }
      const sources: { uid: number; source: Buffer }[] = [];
      for await (const m of imap.fetch(
        uids.join(','),
        { uid: true, source: { maxLength: MAX_SOURCE_BYTES } },
        { uid: true },
      ))
        if (m.source) sources.push({ uid: m.uid, source: m.source });
      const messages = [];
      for (const { uid, source } of sources.sort((a, b) => a.uid - b.uid)) {
        const read = await readMail(source, this.credential.address ?? '', `${box?.uidValidity ?? 0}.${uid}`);
        if ('message' in read) messages.push(read.message);
      }
      return { messages, nextOffset: uids.at(-1)! };
    } catch (err) {
      await this.close();
      if (signal.aborted) return { messages: [], nextOffset: null };
      throw asChannelError(err);
    }
  }

  async send(): Promise<void> {
    throw new ChannelError('unavailable', 'e-mail replies are sent by the mail outbox');
  }

  async setWebhook(): Promise<void> {
    // nothing to call: the mailbox is read over IMAP
  }

  async close(): Promise<void> {
    const imap = this.session;
    this.session = undefined;
    if (!imap) return;
    await Promise.race([imap.logout(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]).catch(
      () => undefined,
    );
    imap.close();
  }

  /** the open connection, or a new one (logged in, the folder selected) */
  private async open(signal?: AbortSignal): Promise<{ imap: ImapFlow; fresh: boolean }> {
    if (this.session?.usable) return { imap: this.session, fresh: false };
    await this.close();
    const s = server(this.credential.imap_url, 'imap');
    const { address, servername } = await target(s, 'imap_url', this.options);
    const { ImapFlow } = await imapflowModule();
    const imap = new ImapFlow({
      host: address,
      port: s.port,
      secure: s.secure,
      servername,
      // a password never crosses the Internet in clear: STARTTLS is required on a public server
      doSTARTTLS: s.secure || this.options.allowPrivateUrls ? undefined : true,
      auth: { user: s.user, pass: s.pass },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      maxLiteralSize: MAX_SOURCE_BYTES * 2,
    });
    // failures surface through the next command; an unheard 'error' event would end the process
    imap.on('error', () => undefined);
    const onAbort = () => imap.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await imap.connect();
      await imap.mailboxOpen(s.folder);
    } catch (err) {
      imap.close();
      throw asChannelError(err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (!imap.capabilities.has('IDLE')) imap.maxIdleTime = NO_IDLE_POLL_MS;
    this.session = imap;
    return { imap, fresh: true };
  }
}

/**
 * Resolves when mail arrives (IDLE, or imapflow's NOOP polling), after `waitS`, or on abort; at
 * once when the folder's message count is no longer `known` (mail came during the last command).
 */
function waitForMail(imap: ImapFlow, waitS: number, signal: AbortSignal, known: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (imap.mailbox && imap.mailbox.exists !== known) return resolve();
    const timer = setTimeout(done, waitS * 1000);
    imap.on('exists', done);
    imap.on('close', done);
    signal.addEventListener('abort', done, { once: true });
    // the next command (the poll's search) ends the IDLE
    imap.idle().catch(() => undefined);
    function done() {
      clearTimeout(timer);
      imap.off('exists', done);
      imap.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function asChannelError(err: unknown): ChannelError {
  if (err instanceof ChannelError) return err;
  const e = err as { authenticationFailed?: boolean; code?: string; message?: string };
  if (e.authenticationFailed)
    return new ChannelError('unauthorized', 'the IMAP server refused the user name or password', undefined, 'imap_url');
  if (e.code && /^ERR_TLS|CERT|SELF_SIGNED/.test(e.code))
    return new ChannelError(
      'undeliverable',
      `the server's TLS certificate is not valid for it (${e.code})`,
      undefined,
      'imap_url',
    );
  if (e.code === 'NoConnection' || e.code === 'ETIMEDOUT' || e.code === 'ECONNREFUSED' || e.code === 'CONNECT_TIMEOUT')
    return new ChannelError('unavailable', `could not reach the IMAP server (${e.code})`, undefined, 'imap_url');
  return new ChannelError(
    'unavailable',
    `the IMAP server failed: ${e.message ?? e.code ?? 'unknown error'}`,
    undefined,
    'imap_url',
  );
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export const email: ChannelDefinition<'email'> = {
  name: 'email',
  fields: ['imap_url', 'address', 'smtp_url'],
  optionalFields: ['smtp_url'],
  // the mailbox's address: one agent answers one mailbox
  account: (c) => ({ field: 'address', key: `email:${(c.address ?? '').toLowerCase()}` }),
  receiving: 'polling',
  contactButton: false,
  // one e-mail carries the whole answer
  maxTextLength: 1_000_000,
  mail: { answersPerSenderDaily: ANSWERS_PER_SENDER_DAILY },
  client: (c, options) => new EmailClient(c, options),
  checkCredential: (c) => {
    const imap = serverOf(c.imap_url, 'imap');
    if (typeof imap === 'string') return { field: 'imap_url', message: imap };
    if (!ADDRESS.test(c.address ?? '')) return { field: 'address', message: 'not an e-mail address' };
    const smtp = c.smtp_url ? serverOf(c.smtp_url, 'smtp') : null;
    if (typeof smtp === 'string') return { field: 'smtp_url', message: smtp };
    return null;
  },
  redact: (text, c) => {
    let out = text;
    for (const raw of [c.imap_url, c.smtp_url]) {
      if (!raw) continue;
      out = out.split(raw).join('[redacted]');
      const s = serverOf(raw, raw.startsWith('smtp') ? 'smtp' : 'imap');
      if (typeof s !== 'string' && s.pass.length >= 3) out = out.split(s.pass).join('[redacted]');
    }
    return out;
  },
  // nothing posts to us: the mailbox is read over IMAP
  parseWebhook: () => ({ messages: [], nextOffset: null }),
};
