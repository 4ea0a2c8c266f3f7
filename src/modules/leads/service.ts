import type { FastifyBaseLogger } from 'fastify';
import { UNLIMITED } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, badRequest, forbidden, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { leadAlertLines, leadsPagePath, oneLine } from './alert-text.js';
import type { LeadsRepo, WidgetLeadWithConversation } from './repo.js';
import type { AccountLeadRow, MailRow, WidgetLeadRow } from './tables.js';

export const SEND_MAIL_JOB = 'send-mail';
/** docs/API.md "Leads": the same name and phone for the same agent within 15 s is one lead */
export const DEDUP_WINDOW_MS = 15_000;
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

export type LeadStatus = AccountLeadRow['status'];

export interface LeadStats {
  /** account leads counted (the sum of `by_status`) */
  total: number;
  by_status: Record<LeadStatus, number>;
  widget_leads: number;
  /** The account leads against the plan's `max_account_leads` (the fields BotSmith's admin client reads). */
  current_leads: number;
  /** null when the plan sets no real limit (UNLIMITED, the owner plan) */
  max_leads: number | null;
  /** current_leads as a whole percentage of max_leads (0 when unlimited) */
  percentage_used: number;
  /** whether POST /api/leads would be accepted now */
  can_add_more: boolean;
  /** the account's plan id (the plan table has no other name) */
  plan_name: string;
}

export interface LeadsServiceDeps {
  repo: LeadsRepo;
  agents: AgentsService;
  plans: PlanService;
  mailJobs: JobQueue;
  mailer: Mailer;
  options: LeadsOptions;
  clock: Clock;
  log: FastifyBaseLogger;
  /** lead.created is emitted in the lead's transaction (webhooks listen) */
  events?: AppEvents;
}

export class LeadsService {
  private readonly repo: LeadsRepo;
  private readonly agents: AgentsService;
  private readonly plans: PlanService;
  private readonly mailJobs: JobQueue;
  private readonly mailer: Mailer;
  private readonly options: LeadsOptions;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly events?: AppEvents;

  constructor({ repo, agents, plans, mailJobs, mailer, options, clock, log, events }: LeadsServiceDeps) {
    this.repo = repo;
    this.agents = agents;
    this.plans = plans;
    this.mailJobs = mailJobs;
    this.mailer = mailer;
    this.options = options;
    this.clock = clock;
    this.log = log;
    this.events = events;
    mailJobs.register(SEND_MAIL_JOB, (job, ctx) => this.deliver(job.subject_id, ctx.signal));
    // a visitor's conversation erased (chat module): their leads of that session go with it
    events?.on('conversation.erased', (erased) => {
      if (erased.keep_leads) return;
      this.eraseLeads(
        erased.account_id,
        erased.chatbot_id,
        this.repo.widgetLeadsOfSession(erased.chatbot_id, erased.session_id),
      );
    });
  }

  /** Erases these leads of one agent with their alert e-mails, and says so (webhook deliveries go too); in the caller's transaction. */
  private eraseLeads(ownerId: string, chatbotId: string, leads: WidgetLeadRow[]): void {
    this.repo.eraseWidgetLeads(ownerId, chatbotId, leads);
    for (const lead of leads)
      this.events?.emit('lead.erased', { account_id: ownerId, chatbot_id: chatbotId, lead_id: lead.id });
  }

  get mailConfigured(): boolean {
    return this.mailer.configured;
  }

  /**
   * A visitor's lead: unknown agent 404, not public 403, inactive 400. Within the dedup window the
   * first record is returned and nothing is stored. A new lead and its e-mail alert (when the
   * agent has alerts on) are stored in one transaction: the alert cannot be lost once the lead is.
   */
  captureWidgetLead(
    chatbotId: string,
    input: { name: string; phone: string; session_id?: string },
  ): WidgetLeadWithConversation {
    const agent = this.agents.reachable(chatbotId);
    const now = this.clock.now();
    const withConversation = (lead: WidgetLeadRow) => ({
      ...lead,
      conversation_id: this.repo.conversationOfSession(lead.chatbot_id, lead.session_id),
    });
    return this.repo.transaction(() => {
      const since = new Date(now.getTime() - DEDUP_WINDOW_MS).toISOString();
      const existing = this.repo.findRecentWidgetLead(agent.id, input.name, input.phone, since);
      if (existing) return withConversation(existing);
      const lead = this.repo.insertWidgetLead({
        id: newId(),
        chatbot_id: agent.id,
        name: input.name,
        phone: input.phone,
        session_id: input.session_id ?? null,
        created_at: now.toISOString(),
      });
      if (agent.email_alerts_enabled && agent.email_alert_address) this.queueAlert(agent, lead, now.toISOString());
      this.events?.emit('lead.created', {
        account_id: agent.user_id,
        chatbot_id: agent.id,
        lead: {
          id: lead.id,
          name: lead.name,
          phone: lead.phone,
          session_id: lead.session_id,
          created_at: lead.created_at,
        },
      });
      return withConversation(lead);
    });
  }

  listWidgetLeads(user: AuthUser, chatbotId: string): WidgetLeadWithConversation[] {
    const agent = this.agents.get(user, chatbotId);
    return this.repo.listWidgetLeads(agent.id);
  }

  /**
   * Erases one widget lead of one of the caller's agents and the alert e-mails about it, in one
   * transaction (README "Erasure"). A lead of another agent or account is 404 like a missing one.
   */
  deleteWidgetLead(user: AuthUser, chatbotId: string, leadId: string): void {
    const lead = this.repo.findWidgetLead(leadId);
    const agent = this.agents.holding(user, lead, chatbotId);
    if (!lead || !agent) throw notFound('Lead');
    this.repo.erasing(() => this.repo.transaction(() => this.eraseLeads(agent.user_id, agent.id, [lead])));
  }

  /**
   * Lead counts (README "Lead stats"): the account's leads by status, and the widget leads of its
   * agents. With `chatbotId`, that agent's leads only (404 unless it is the caller's): its widget
   * leads; account leads belong to the account, not to an agent, so none count there.
   */
  leadStats(user: AuthUser, chatbotId?: string): LeadStats {
    const by_status: Record<LeadStatus, number> = { New: 0, Contacted: 0, Closed: 0 };
    const agent = chatbotId === undefined ? undefined : this.agents.get(user, chatbotId);
    const counts = this.repo.countAccountLeadsByStatus(user.id);
    const current = counts.reduce((sum, { n }) => sum + n, 0);
    // the plan's figures are the account's whatever the scope: the limit is per account
    const max = this.plans.planOf(user).max_account_leads;
    const limited = max < UNLIMITED;
    const plan = {
      current_leads: current,
      max_leads: limited ? max : null,
      percentage_used: !limited ? 0 : max === 0 ? 100 : Math.round((current * 100) / max),
      can_add_more: current < max,
      plan_name: user.plan_id,
    };
    if (agent)
      return { total: 0, by_status, widget_leads: this.repo.countWidgetLeads({ chatbotId: agent.id }), ...plan };
    for (const { status, n } of counts) by_status[status] = n;
    return { total: current, by_status, widget_leads: this.repo.countWidgetLeads({ userId: user.id }), ...plan };
  }

  listAccountLeads(user: AuthUser): AccountLeadRow[] {
    return this.repo.listAccountLeads(user.id);
  }

  createAccountLead(
    user: AuthUser,
    input: { name: string; contact: string; notes?: string | null; status?: LeadStatus },
  ): AccountLeadRow {
    const now = isoNow(this.clock);
    return this.repo.transaction(() => {
      const current = this.repo.countAccountLeads(user.id);
      const max = this.plans.planOf(user).max_account_leads;
      if (current >= max) {
        throw forbidden({
          message: `Lead limit reached: your ${user.plan_id} plan allows ${max} leads`,
          current,
          max,
          upgrade_required: true,
        });
      }
      return this.repo.insertAccountLead({
        id: newId(),
        user_id: user.id,
        name: input.name,
        contact: input.contact,
        status: input.status ?? 'New',
        notes: input.notes ?? null,
        created_at: now,
        updated_at: now,
      });
    });
  }

  updateAccountLead(
    user: AuthUser,
    id: string,
    patch: { name?: string; contact?: string; notes?: string | null; status?: LeadStatus },
  ): AccountLeadRow {
    const lead = this.repo.findAccountLead(id, user.id);
    if (!lead) throw notFound('Lead');
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return this.repo.updateAccountLead(lead.id, { ...changes, updated_at: isoNow(this.clock) });
  }

  /**
   * DELETE /api/leads/{id}: one of the account's own leads, or a widget lead of one of its agents
   * (then erased with its alert e-mails, as DELETE /api/chatbot-leads/{chatbot_id}/{lead_id} does,
   * so a pending alert is never sent). Another account's lead is 404 like a missing one. Returns
   * whether a widget lead was erased (its pages go back to the disk).
   */
  deleteLead(user: AuthUser, id: string): { widget: boolean } {
    const lead = this.repo.findAccountLead(id, user.id);
    if (lead) {
      this.repo.deleteAccountLead(lead.id);
      return { widget: false };
    }
    const widgetLead = this.repo.findWidgetLead(id);
    const agent = widgetLead && this.agents.holding(user, widgetLead, widgetLead.chatbot_id);
    if (!widgetLead || !agent) throw notFound('Lead');
    this.repo.erasing(() => this.repo.transaction(() => this.eraseLeads(agent.user_id, agent.id, [widgetLead])));
    return { widget: true };
  }

  /** The account's mail that waits (SMTP down or not configured), for the admin UI's banner. */
  pendingMailCount(user: AuthUser): number {
    return this.repo.countPendingMailOf(user.id);
  }

  /** Where the agent's alerts stand (404 for another account's agent). */
  alertAddressState(user: AuthUser, chatbotId: string): AlertAddressState {
    const agent = this.agents.get(user, chatbotId);
    return this.stateOf(agent);
  }

  /**
   * Sends (again) the confirmation link for the agent's alert address. 400 without an address,
   * 429 when the address had one within the hour or the account used its daily allowance; an
   * address that needs no confirmation answers its state and sends nothing.
   */
  requestConfirmation(user: AuthUser, chatbotId: string): AlertAddressState {
    const agent = this.agents.get(user, chatbotId);
    const address = agent.email_alert_address?.toLowerCase();
    if (!address) throw badRequest('email_alert_address: the agent has no alert address to confirm');
    return this.repo.transaction(() => {
      if (!this.stateOf(agent).verified) {
        const refusal = this.confirmationRefusal(agent.user_id, address, this.clock.now());
        if (refusal) throw new ApiError(429, refusal);
        this.queueConfirmation(agent.user_id, address, this.clock.now());
      }
      return this.stateOf(agent);
    });
  }

  /** The address a confirmation token stands for, without using it (the page asks before confirming). */
  peekConfirmation(token: string): string | null {
    return this.repo.findByToken(hashToken(token), isoNow(this.clock))?.address ?? null;
  }

  /** Confirms the address of an unexpired token and releases its held alerts; null for a bad or used token. */
  confirm(token: string): string | null {
    const now = isoNow(this.clock);
    const released = this.repo.transaction(() => {
      const row = this.repo.findByToken(hashToken(token), now);
      if (!row) return null;
      this.repo.markConfirmed(row.user_id, row.address, now);
      return { address: row.address, mail: this.repo.releaseHeldMail(row.user_id, row.address) };
    });
    if (!released) return null;
    for (const id of released.mail) this.mailJobs.enqueue(SEND_MAIL_JOB, id);
    return released.address;
  }

  private stateOf(agent: ChatbotRow): AlertAddressState {
    const address = agent.email_alert_address;
    if (!address) return { address: null, verified: false, confirmation_sent_at: null };
    const lower = address.toLowerCase();
    if (lower === this.options.accountEmail(agent.user_id).toLowerCase())
      return { address, verified: true, confirmation_sent_at: null };
    const row = this.repo.findAlertAddress(agent.user_id, lower);
    if (row?.confirmed_at) return { address, verified: true, confirmation_sent_at: null };
    return { address, verified: false, confirmation_sent_at: row?.requested_at ?? null };
  }

  /** Why no confirmation may be sent now, or null when one may. */
  private confirmationRefusal(userId: string, address: string, now: Date): string | null {
    const last = this.repo.findAlertAddress(userId, address)?.requested_at;
    if (last && now.getTime() - Date.parse(last) < CONFIRMATION_INTERVAL_MS) {
      return `A confirmation link was sent to ${address} at ${last}; check that inbox (and its spam folder), or ask again an hour after it`;
    }
    const since = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
    if (this.repo.countConfirmationsSince(userId, since) >= CONFIRMATIONS_PER_DAY) {
      return `This account has asked for ${CONFIRMATIONS_PER_DAY} address confirmations in the last 24 hours; try again tomorrow`;
    }
    return null;
  }

  /**
   * The confirmation e-mail. Its text is fixed: nothing in it is chosen by whoever typed the
   * address, so it cannot carry anyone's message.
   */
  private queueConfirmation(userId: string, address: string, now: Date): void {
    const token = randomBytes(32).toString('base64url');
    this.repo.saveConfirmationRequest(
      userId,
      address,
      hashToken(token),
      new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString(),
      now.toISOString(),
    );
    const link = `${this.options.publicUrl}/alerts/confirm?token=${token}`;
    this.insertMail(
      userId,
      'confirm_address',
      address,
      'Confirm lead alerts to this address',
      [
        `Someone with an account on ${this.options.publicUrl} asked to send alerts about new leads (visitors' names and phone numbers) to this address.`,
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
   */
  private queueAlert(agent: ChatbotRow, lead: WidgetLeadRow, now: string): void {
    const address = agent.email_alert_address!;
    const { verified, confirmation_sent_at: asked } = this.stateOf(agent);
    const link = `${this.options.publicUrl}${leadsPagePath(agent.id)}`;
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
    if (!this.confirmationRefusal(agent.user_id, lower, this.clock.now()))
      this.queueConfirmation(agent.user_id, lower, this.clock.now());
  }

  /**
   * An e-mail to the account's own address (no confirmation needed), queued like an alert and in
   * the caller's transaction: it is sent once the message that caused it is stored, never without.
   */
  queueAccountNotice(userId: string, subject: string, body: string): void {
    this.insertMail(
      userId,
      'account_notice',
      this.options.accountEmail(userId),
      subject,
      body,
      'pending',
      isoNow(this.clock),
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
  ): void {
    const id = newId();
    this.repo.insertMail({
      id,
      user_id: userId,
      kind,
      to_address: to,
      subject,
      body,
      status,
      attempts: 0,
      last_error: null,
      created_at: now,
      sent_at: null,
    });
    if (status === 'pending') this.mailJobs.enqueue(SEND_MAIL_JOB, id);
  }

  private async deliver(mailId: string, signal: AbortSignal): Promise<void> {
    const mail = this.repo.findMail(mailId);
    if (!mail || mail.status === 'sent') return;
    try {
      await this.mailer.send({ to: mail.to_address, subject: mail.subject, text: mail.body }, signal);
    } catch (err) {
      // shutting down: the job stays running and is queued again at the next start (not a failure)
      if (signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      const code = (err as { responseCode?: number }).responseCode;
      if (code !== undefined && code >= 500 && code < 600) {
        // a permanent refusal (bad address, relay denied): retrying cannot help
        this.repo.markMailRejected(mail.id, message);
        this.log.error(
          { mailId: mail.id, responseCode: code, err: message },
          'lead alert refused by the mail server; not retried',
        );
        return;
      }
      this.repo.markMailFailedAttempt(mail.id, message);
      this.log.warn(
        { mailId: mail.id, err: err instanceof Error ? err.message : err },
        'lead alert not sent yet; will retry',
      );
      throw err; // the queue retries with backoff, across restarts
    }
    this.repo.markMailSent(mail.id, isoNow(this.clock));
  }
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
