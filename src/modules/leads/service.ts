import type { FastifyBaseLogger } from 'fastify';
import { UNLIMITED } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { type AlertAddressState, type ChannelMailReply, LeadMail, type LeadsOptions } from './lead-mail.js';
import type { LeadsRepo, WidgetLeadWithConversation } from './repo.js';
import type { AccountLeadRow, WidgetLeadRow } from './tables.js';

/** the outbox job (module.ts registers its queue; lead-mail.ts its handler) */
export { SEND_CHANNEL_MAIL_JOB, SEND_MAIL_JOB } from './lead-mail.js';

/** docs/API.md "Leads": the same name and phone for the same agent within 15 s is one lead */
export const DEDUP_WINDOW_MS = 15_000;

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
  channelMailJobs: JobQueue;
  mailer: Mailer;
  options: LeadsOptions;
  clock: Clock;
  log: FastifyBaseLogger;
  /** lead.created is emitted in the lead's transaction (webhooks listen) */
  events?: AppEvents;
}
/** Widget leads (a visitor's name and phone), the account's own leads, their counts; e-mail in lead-mail.ts. */
export class LeadsService {
  private readonly repo: LeadsRepo;
  private readonly agents: AgentsService;
  private readonly plans: PlanService;
  private readonly mail: LeadMail;
  private readonly clock: Clock;
  private readonly events?: AppEvents;

  constructor({
    repo,
    agents,
    plans,
    mailJobs,
    channelMailJobs,
    mailer,
    options,
    clock,
    log,
    events,
  }: LeadsServiceDeps) {
    this.repo = repo;
    this.agents = agents;
    this.plans = plans;
    this.clock = clock;
    this.events = events;
    this.mail = new LeadMail({ repo, agents, mailJobs, channelMailJobs, mailer, options, clock, log });
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
    return this.mail.mailConfigured;
  }

  /**
   * A visitor's lead: unknown agent 404, not public 403, inactive 400. Within the dedup window the
   * first record is returned and nothing is stored. A new lead and its e-mail alert (when the
   * agent has alerts on) are stored in one transaction: the alert cannot be lost once the lead is.
   */
  captureWidgetLead(
    chatbotId: string,
    input: { name: string; phone: string; session_id?: string; email?: string },
  ): WidgetLeadWithConversation {
    return this.storeWidgetLead(this.agents.reachable(chatbotId), input);
  }

  /** A phone number a person shared on a messaging channel (modules/channels): a lead like the widget's form. */
  captureChannelLead(chatbotId: string, input: { name: string; phone: string; session_id: string }): void {
    this.storeWidgetLead(this.agents.answering(chatbotId), input);
  }

  private storeWidgetLead(
    agent: ChatbotRow,
    input: { name: string; phone: string; session_id?: string; email?: string },
  ): WidgetLeadWithConversation {
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
        email: input.email ?? null,
        session_id: input.session_id ?? null,
        created_at: now.toISOString(),
      });
      if (agent.email_alerts_enabled && agent.email_alert_address) this.mail.queueAlert(agent, lead, now.toISOString());
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
   * transaction (docs/API-NOTES.md "Erasure"). A lead of another agent or account is 404 like a missing one.
   */
  deleteWidgetLead(user: AuthUser, chatbotId: string, leadId: string): void {
    const lead = this.repo.findWidgetLead(leadId);
    const agent = this.agents.holding(user, lead, chatbotId);
    if (!lead || !agent) throw notFound('Lead');
    this.repo.erasing(() => this.repo.transaction(() => this.eraseLeads(agent.user_id, agent.id, [lead])));
  }

  /**
   * Lead counts (docs/API-NOTES.md "Lead stats"): the account's leads by status, and the widget leads of its
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
    return this.mail.pendingMailCount(user);
  }

  /** Where the agent's alerts stand (404 for another account's agent). */
  alertAddressState(user: AuthUser, chatbotId: string): AlertAddressState {
    return this.mail.alertAddressState(user, chatbotId);
  }

  /** Sends (again) the confirmation link for the agent's alert address (lead-mail.ts). */
  requestConfirmation(user: AuthUser, chatbotId: string): AlertAddressState {
    return this.mail.requestConfirmation(user, chatbotId);
  }

  /** The address a confirmation token stands for, without using it (the page asks before confirming). */
  peekConfirmation(token: string): string | null {
    return this.mail.peekConfirmation(token);
  }

  /** Confirms the address of an unexpired token and releases its held alerts; null for a bad or used token. */
  confirm(token: string): string | null {
    return this.mail.confirm(token);
  }

  /** An e-mail to the account's own address, in the caller's transaction (lead-mail.ts). */
  queueAccountNotice(userId: string, subject: string, body: string, to?: string): void {
    this.mail.queueAccountNotice(userId, subject, body, to);
  }

  /** A booking's .ics invitation to the visitor, queued in the caller's transaction (lead-mail.ts). */
  queueInvitation(userId: string, to: string, subject: string, body: string, ics: string): void {
    this.mail.queueInvitation(userId, to, subject, body, ics);
  }

  /** An e-mail channel's answer (modules/channels), in the caller's transaction. */
  queueChannelReply(userId: string, reply: ChannelMailReply): void {
    this.mail.queueChannelReply(userId, reply);
  }

  /** Where an e-mail channel's own SMTP server is found (set once the channels module exists). */
  set channelMailers(mailerFor: (transport: string) => Mailer | undefined) {
    this.mail.mailerFor = mailerFor;
  }
}
