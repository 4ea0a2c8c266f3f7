import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { LeadsRepo } from './repo.js';
import type { AccountLeadRow, WidgetLeadRow } from './tables.js';

export const SEND_MAIL_JOB = 'send-mail';
/** spec: the same name and phone for the same agent within 15 s is one lead */
export const DEDUP_WINDOW_MS = 15_000;

export type LeadStatus = AccountLeadRow['status'];

export class LeadsService {
  constructor(
    private readonly repo: LeadsRepo,
    private readonly agents: AgentsService,
    private readonly plans: PlanService,
    private readonly mailJobs: JobQueue,
    private readonly mailer: Mailer,
    private readonly options: { publicUrl: string },
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {
    mailJobs.register(SEND_MAIL_JOB, (job, ctx) => this.deliver(job.subject_id, ctx.signal));
  }

  get mailConfigured(): boolean {
    return this.mailer.configured;
  }

  /**
   * A visitor's lead: unknown agent 404, not public 403, inactive 400. Within the dedup window the
   * first record is returned and nothing is stored. A new lead and its e-mail alert (when the
   * agent has alerts on) are stored in one transaction: the alert cannot be lost once the lead is.
   */
  captureWidgetLead(chatbotId: string, input: { name: string; phone: string; session_id?: string }): WidgetLeadRow {
    const agent = this.agents.reachable(chatbotId);
    const now = this.clock.now();
    return this.repo.transaction(() => {
      const since = new Date(now.getTime() - DEDUP_WINDOW_MS).toISOString();
      const existing = this.repo.findRecentWidgetLead(agent.id, input.name, input.phone, since);
      if (existing) return existing;
      const lead = this.repo.insertWidgetLead({
        id: newId(),
        chatbot_id: agent.id,
        name: input.name,
        phone: input.phone,
        session_id: input.session_id ?? null,
        created_at: now.toISOString(),
      });
      if (agent.email_alerts_enabled && agent.email_alert_address) this.queueAlert(agent, lead);
      return lead;
    });
  }

  listWidgetLeads(user: AuthUser, chatbotId: string): WidgetLeadRow[] {
    const agent = this.agents.get(user, chatbotId);
    return this.repo.listWidgetLeads(agent.id);
  }

  listAccountLeads(user: AuthUser): AccountLeadRow[] {
    return this.repo.listAccountLeads(user.id);
  }

  createAccountLead(user: AuthUser, input: { name: string; contact: string; notes?: string | null; status?: LeadStatus }): AccountLeadRow {
    const now = this.clock.now().toISOString();
    return this.repo.transaction(() => {
      const current = this.repo.countAccountLeads(user.id);
      const max = this.plans.planOf(user).max_account_leads;
      if (current >= max) {
        throw forbidden({ message: `Lead limit reached: your ${user.plan_id} plan allows ${max} leads`, current, max, upgrade_required: true });
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

  updateAccountLead(user: AuthUser, id: string, patch: { name?: string; contact?: string; notes?: string | null; status?: LeadStatus }): AccountLeadRow {
    const lead = this.repo.findAccountLead(id, user.id);
    if (!lead) throw notFound('Lead');
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return this.repo.updateAccountLead(lead.id, { ...changes, updated_at: this.clock.now().toISOString() });
  }

  deleteAccountLead(user: AuthUser, id: string): void {
    const lead = this.repo.findAccountLead(id, user.id);
    if (!lead) throw notFound('Lead');
    this.repo.deleteAccountLead(lead.id);
  }

  /** Mail that waits (SMTP down or not configured), for health and the admin UI. */
  pendingMailCount(): number {
    return this.repo.countPendingMail();
  }

  private queueAlert(agent: ChatbotRow, lead: WidgetLeadRow): void {
    const id = newId();
    const link = `${this.options.publicUrl}/#/agents/${agent.id}/leads`;
    this.repo.insertMail({
      id,
      to_address: agent.email_alert_address!,
      subject: `New lead for ${agent.name}: ${oneLine(lead.name)}`,
      body: [
        `${agent.name} captured a new lead.`,
        '',
        `Name:  ${oneLine(lead.name)}`,
        `Phone: ${oneLine(lead.phone)}`,
        `Time:  ${lead.created_at} (UTC)`,
        '',
        `See it in the admin: ${link}`,
      ].join('\n'),
      status: 'pending',
      attempts: 0,
      last_error: null,
      created_at: lead.created_at,
      sent_at: null,
    });
    this.mailJobs.enqueue(SEND_MAIL_JOB, id);
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
        this.log.error({ mailId: mail.id, responseCode: code, err: message }, 'lead alert refused by the mail server; not retried');
        return;
      }
      this.repo.markMailFailedAttempt(mail.id, message);
      this.log.warn({ mailId: mail.id, err: err instanceof Error ? err.message : err }, 'lead alert not sent yet; will retry');
      throw err; // the queue retries with backoff, across restarts
    }
    this.repo.markMailSent(mail.id, this.clock.now().toISOString());
  }
}

/** Header-safe: a name or phone never adds lines to the subject or body layout. */
function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ').trim();
}
