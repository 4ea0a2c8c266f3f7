import { linkTokenHash, newLinkToken } from '../../platform/security/link-tokens.js';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { leadAlertLines, leadsPagePath, oneLine } from './alert-text.js';
import type { LeadsRepo } from './repo.js';
import type { MailRow, WidgetLeadRow } from './tables.js';

export const SEND_MAIL_JOB = 'send-mail';
/** an e-mail channel's reply through the channel's own SMTP server: its queue runs without SMTP_URL too */
export const SEND_CHANNEL_MAIL_JOB = 'send-channel-mail';

/** An e-mail channel's answer, threaded under the message it answers. */
export interface ChannelMailReply {
  to: string;
  from: string;
  subject: string;
  text: string;
  inReplyTo: string | null;
  references: string[];
  /** the channel connection whose own SMTP server sends it; null: the server's SMTP settings */
  transport: string | null;
}
/** Confirmation e-mails an account may have sent in a day, and how often to one address. */
export const CONFIRMATIONS_PER_DAY = 5;
export const CONFIRMATION_INTERVAL_MS = 60 * 60 * 1000;
/** how long a confirmation link works */
export const CONFIRMATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Where an agent's alerts stand: sent (own e-mail or confirmed), or held until the address is confirmed. */
export interface AlertAddressState {
  address: string | null;
  /** true for the account's own e-mail and for a confirmed address */
  verified: boolean;
  /** when the last confirmation e-mail was queued, while the address is not confirmed */
  confirmation_sent_at: string | null;
}

export interface LeadsOptions {
  publicUrl: string;
  /** the account's own e-mail: alerts may go there without a confirmation */
  accountEmail: (userId: string) => string;
}

export interface LeadMailDeps {
  repo: LeadsRepo;
  agents: AgentsService;
  mailJobs: JobQueue;
  /** channel replies through a channel's own SMTP server */
  channelMailJobs: JobQueue;
  mailer: Mailer;
  options: LeadsOptions;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * The leads module's e-mail: lead alerts and account notices through the outbox (a job per
 * message, retried across restarts), and the confirmation of an agent's alert address before
 * alerts go to it.
 */
export class LeadMail {
  /** an e-mail channel's own SMTP server, by its connection id (modules/channels); undefined once it is gone */
  mailerFor: (transport: string) => Mailer | undefined = () => undefined;

  constructor(private readonly deps: LeadMailDeps) {
    deps.mailJobs.register(SEND_MAIL_JOB, (job, ctx) => this.deliver(job.subject_id, ctx.signal));
    deps.channelMailJobs.register(SEND_CHANNEL_MAIL_JOB, (job, ctx) => this.deliver(job.subject_id, ctx.signal));
  }

  get mailConfigured(): boolean {
    return this.deps.mailer.configured;
  }
  /** The account's mail that waits (SMTP down or not configured), for the admin UI's banner. */
  pendingMailCount(user: AuthUser): number {
    return this.deps.repo.countPendingMailOf(user.id);
  }

  /** Where the agent's alerts stand (404 for another account's agent). */
  alertAddressState(user: AuthUser, chatbotId: string): AlertAddressState {
    const agent = this.deps.agents.get(user, chatbotId);
    return this.stateOf(agent);
  }

  /**
   * Sends (again) the confirmation link for the agent's alert address. 400 without an address,
   * 429 when the address had one within the hour or the account used its daily allowance; an
   * address that needs no confirmation answers its state and sends nothing.
   */
  requestConfirmation(user: AuthUser, chatbotId: string): AlertAddressState {
    const agent = this.deps.agents.get(user, chatbotId);
    const address = agent.email_alert_address?.toLowerCase();
    if (!address) throw badRequest('email_alert_address: the agent has no alert address to confirm');
    return this.deps.repo.transaction(() => {
      if (!this.stateOf(agent).verified) {
        const refusal = this.confirmationRefusal(agent.user_id, address, this.deps.clock.now());
        if (refusal) throw new ApiError(429, refusal);
        this.queueConfirmation(agent.user_id, address, this.deps.clock.now());
      }
      return this.stateOf(agent);
    });
  }

  /** The address a confirmation token stands for, without using it (the page asks before confirming). */
  peekConfirmation(token: string): string | null {
    return this.deps.repo.findByToken(linkTokenHash(token), isoNow(this.deps.clock))?.address ?? null;
  }

  /** Confirms the address of an unexpired token and releases its held alerts; null for a bad or used token. */
  confirm(token: string): string | null {
    const now = isoNow(this.deps.clock);
    const released = this.deps.repo.transaction(() => {
      const row = this.deps.repo.findByToken(linkTokenHash(token), now);
      if (!row) return null;
      this.deps.repo.markConfirmed(row.user_id, row.address, now);
      return { address: row.address, mail: this.deps.repo.releaseHeldMail(row.user_id, row.address) };
    });
    if (!released) return null;
    for (const id of released.mail) this.deps.mailJobs.enqueue(SEND_MAIL_JOB, id);
    return released.address;
  }

  private stateOf(agent: ChatbotRow): AlertAddressState {
    const address = agent.email_alert_address;
    if (!address) return { address: null, verified: false, confirmation_sent_at: null };
    const lower = address.toLowerCase();
    if (lower === this.deps.options.accountEmail(agent.user_id).toLowerCase())
      return { address, verified: true, confirmation_sent_at: null };
    const row = this.deps.repo.findAlertAddress(agent.user_id, lower);
    if (row?.confirmed_at) return { address, verified: true, confirmation_sent_at: null };
    return { address, verified: false, confirmation_sent_at: row?.requested_at ?? null };
  }

  /** Why no confirmation may be sent now, or null when one may. */
  private confirmationRefusal(userId: string, address: string, now: Date): string | null {
    const last = this.deps.repo.findAlertAddress(userId, address)?.requested_at;
    if (last && now.getTime() - Date.parse(last) < CONFIRMATION_INTERVAL_MS) {
      return `A confirmation link was sent to ${address} at ${last}; check that inbox (and its spam folder), or ask again an hour after it`;
    }
    const since = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
    if (this.deps.repo.countConfirmationsSince(userId, since) >= CONFIRMATIONS_PER_DAY) {
      return `This account has asked for ${CONFIRMATIONS_PER_DAY} address confirmations in the last 24 hours; try again tomorrow`;
    }
    return null;
  }

  /**
   * The confirmation e-mail. Its text is fixed: nothing in it is chosen by whoever typed the
   * address, so it cannot carry anyone's message.
   */
  private queueConfirmation(userId: string, address: string, now: Date): void {
    const { token, hash: tokenHash } = newLinkToken();
    this.deps.repo.saveConfirmationRequest(
      userId,
      address,
      tokenHash,
      new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString(),
      now.toISOString(),
    );
    const link = `${this.deps.options.publicUrl}/alerts/confirm?token=${token}`;
    this.insertMail(
      userId,
      'confirm_address',
      address,
      'Confirm lead alerts to this address',
      [
        `Someone with an account on ${this.deps.options.publicUrl} asked to send alerts about new leads (visitors' names and phone numbers) to this address.`,
        '',
        `To receive them, open this link within 7 days and confirm: ${link}`,
        '',
        'If you did not ask for this, ignore this message: nothing will be sent to you.',
      ].join('\n'),
      'pending',
      now.toISOString(),
    );
  }

  /**
   * The alert for a new lead, in the lead's transaction. The subject names only the agent (the
   * owner's words); the visitor's words stay in the body. To an address not yet confirmed the
   * alert is held, and the first such alert asks for the confirmation (allowance permitting).
   */ queueAlert(agent: ChatbotRow, lead: WidgetLeadRow, now: string): void {
    const address = agent.email_alert_address!;
    const { verified, confirmation_sent_at: asked } = this.stateOf(agent);
    const link = `${this.deps.options.publicUrl}${leadsPagePath(agent.id)}`;
    this.insertMail(
      agent.user_id,
      'lead_alert',
      address,
      `New lead for ${oneLine(agent.name)}`,
      [
        `${oneLine(agent.name)} captured a new lead.`,
        '',
        ...leadAlertLines(lead),
        '',
        `See it in the admin: ${link}`,
      ].join('\n'),
      verified ? 'pending' : 'held',
      now,
    );
    if (verified || asked) return;
    const lower = address.toLowerCase();
    if (!this.confirmationRefusal(agent.user_id, lower, this.deps.clock.now()))
      this.queueConfirmation(agent.user_id, lower, this.deps.clock.now());
  }

  /**
   * An e-mail to the account's own address (no confirmation needed), queued like an alert and in
   * the caller's transaction: it is sent once the message that caused it is stored, never without.
   * `to`: one of the account's people (a teammate's own address) instead of the owner's.
   */
  queueAccountNotice(userId: string, subject: string, body: string, to?: string): void {
    this.insertMail(
      userId,
      'account_notice',
      to ?? this.deps.options.accountEmail(userId),
      subject,
      body,
      'pending',
      isoNow(this.deps.clock),
    );
  }

  /**
   * A booking's invitation to the visitor (modules/actions), with its .ics: queued in the caller's
   * transaction like an alert, so it goes out once the booking is stored, and is retried.
   */
  queueInvitation(userId: string, to: string, subject: string, body: string, ics: string): void {
    this.insertMail(userId, 'booking_invitation', to, subject, body, 'pending', isoNow(this.deps.clock), ics);
  }

  /** An e-mail channel's answer, queued in the caller's transaction (the channel's outbox row is done with it). */
  queueChannelReply(userId: string, reply: ChannelMailReply): void {
    this.insertMail(
      userId,
      'channel_reply',
      reply.to,
      reply.subject,
      reply.text,
      'pending',
      isoNow(this.deps.clock),
      null,
      {
        from_address: reply.from,
        in_reply_to: reply.inReplyTo,
        references: JSON.stringify(reply.references),
        transport: reply.transport,
      },
    );
  }

  private insertMail(
    userId: string,
    kind: MailRow['kind'],
    to: string,
    subject: string,
    body: string,
    status: 'pending' | 'held',
    now: string,
    ics: string | null = null,
    reply: Pick<MailRow, 'from_address' | 'in_reply_to' | 'references' | 'transport'> | null = null,
  ): void {
    const id = newId();
    this.deps.repo.insertMail({
      id,
      user_id: userId,
      kind,
      to_address: to,
      subject,
      body,
      ics,
      from_address: reply?.from_address ?? null,
      in_reply_to: reply?.in_reply_to ?? null,
      references: reply?.references ?? null,
      transport: reply?.transport ?? null,
      status,
      attempts: 0,
      last_error: null,
      created_at: now,
      sent_at: null,
    });
    if (status !== 'pending') return;
    if (reply?.transport) this.deps.channelMailJobs.enqueue(SEND_CHANNEL_MAIL_JOB, id);
    else this.deps.mailJobs.enqueue(SEND_MAIL_JOB, id);
  }

  private async deliver(mailId: string, signal: AbortSignal): Promise<void> {
    const mail = this.deps.repo.findMail(mailId);
    if (!mail || mail.status === 'sent') return;
    const mailer = mail.transport ? this.mailerFor(mail.transport) : this.deps.mailer;
    if (!mailer) return this.deps.repo.markMailRejected(mail.id, 'the e-mail channel was disconnected');
    try {
      await mailer.send(
        {
          to: mail.to_address,
          subject: mail.subject,
          text: mail.body,
          ics: mail.ics ?? undefined,
          from: mail.from_address ?? undefined,
          inReplyTo: mail.in_reply_to ?? undefined,
          references: mail.references ? (JSON.parse(mail.references) as string[]) : undefined,
        },
        signal,
      );
    } catch (err) {
      // shutting down: the job stays running and is queued again at the next start (not a failure)
      if (signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      const code = (err as { responseCode?: number }).responseCode;
      if (code !== undefined && code >= 500 && code < 600) {
        // a permanent refusal (bad address, relay denied): retrying cannot help
        this.deps.repo.markMailRejected(mail.id, message);
        this.deps.log.error(
          { mailId: mail.id, responseCode: code, err: message },
          'lead alert refused by the mail server; not retried',
        );
        return;
      }
      this.deps.repo.markMailFailedAttempt(mail.id, message);
      this.deps.log.warn(
        { mailId: mail.id, err: err instanceof Error ? err.message : err },
        'lead alert not sent yet; will retry',
      );
      throw err; // the queue retries with backoff, across restarts
    }
    this.deps.repo.markMailSent(mail.id, isoNow(this.deps.clock));
  }
}
