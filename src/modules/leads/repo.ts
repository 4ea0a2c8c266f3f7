import { and, desc, eq, gt, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { secureDeleting } from '../../platform/db/secure-delete.js';
import { chatbots } from '../agents/tables.js';
import { conversations } from '../chat/tables.js';
import { leadAlertLines, leadsPagePath } from './alert-text.js';
import {
  accountLeads,
  alertAddresses,
  mailOutbox,
  widgetLeads,
  type AccountLeadRow,
  type AlertAddressRow,
  type MailRow,
  type WidgetLeadRow,
} from './tables.js';

export type WidgetLeadWithConversation = WidgetLeadRow & { conversation_id: string | null };

export class LeadsRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  /** Runs `fn` so that what it deletes is overwritten in the file, not only unlinked (erasure). */
  erasing<T>(fn: () => T): T {
    return secureDeleting(this.db, fn);
  }

  /** The same name and phone for this agent since `since` (dedup window), oldest first. */
  findRecentWidgetLead(chatbotId: string, name: string, phone: string, since: string): WidgetLeadRow | undefined {
    return this.db
      .select()
      .from(widgetLeads)
      .where(
        and(
          eq(widgetLeads.chatbot_id, chatbotId),
          eq(widgetLeads.name, name),
          eq(widgetLeads.phone, phone),
          gte(widgetLeads.created_at, since),
        ),
      )
      .orderBy(widgetLeads.created_at, widgetLeads.id)
      .limit(1)
      .get();
  }

  insertWidgetLead(row: WidgetLeadRow): WidgetLeadRow {
    return this.db.insert(widgetLeads).values(row).returning().get();
  }

  /** The conversation of an agent's chat session, if the visitor has sent a message in it. */
  conversationOfSession(chatbotId: string, sessionId: string | null): string | null {
    if (sessionId === null) return null;
    return (
      this.db
        .select({ id: conversations.id })
        .from(conversations)
        .where(and(eq(conversations.chatbot_id, chatbotId), eq(conversations.session_id, sessionId)))
        .get()?.id ?? null
    );
  }

  findWidgetLead(id: string): WidgetLeadRow | undefined {
    return this.db.select().from(widgetLeads).where(eq(widgetLeads.id, id)).get();
  }

  /** The leads a visitor left in one chat session of an agent (leads sent without a session are not among them). */
  widgetLeadsOfSession(chatbotId: string, sessionId: string): WidgetLeadRow[] {
    return this.db
      .select()
      .from(widgetLeads)
      .where(and(eq(widgetLeads.chatbot_id, chatbotId), eq(widgetLeads.session_id, sessionId)))
      .all();
  }

  /**
   * Erasure: deletes these widget leads of one agent and every alert e-mail about them, whatever
   * its state (pending, held, sent, refused: each holds the visitor's name and phone). An alert is
   * found by the lines of its body that name the lead and by the agent's link (mail_outbox has no
   * lead column; alert-text.ts builds both). Call inside the caller's transaction.
   */
  eraseWidgetLeads(ownerId: string, chatbotId: string, leads: WidgetLeadRow[]): { leads: number; alerts: number } {
    let erasedLeads = 0;
    let alerts = 0;
    const agentLink = leadsPagePath(chatbotId);
    for (const lead of leads) {
      if (lead.chatbot_id !== chatbotId) throw new Error('eraseWidgetLeads: a lead of another agent');
      erasedLeads += this.db.delete(widgetLeads).where(eq(widgetLeads.id, lead.id)).run().changes;
      alerts += this.db
        .delete(mailOutbox)
        .where(
          and(
            eq(mailOutbox.kind, 'lead_alert'),
            // rows from before user_id was recorded have none
            sql`(${mailOutbox.user_id} = ${ownerId} OR ${mailOutbox.user_id} IS NULL)`,
            sql`instr(${mailOutbox.body}, ${leadAlertLines(lead).join('\n')}) > 0`,
            sql`instr(${mailOutbox.body}, ${agentLink}) > 0`,
          ),
        )
        .run().changes;
    }
    return { leads: erasedLeads, alerts };
  }

  /**
   * The agent's widget leads, newest first, each with the conversation of its chat session (null
   * without a session, or while the visitor has sent no message: the widget's lead form comes
   * before the first message, so the link is read here rather than stored with the lead).
   */
  listWidgetLeads(chatbotId: string): WidgetLeadWithConversation[] {
    const rows = this.db
      .select({ lead: widgetLeads, conversation_id: conversations.id })
      .from(widgetLeads)
      .leftJoin(
        conversations,
        and(eq(conversations.chatbot_id, widgetLeads.chatbot_id), eq(conversations.session_id, widgetLeads.session_id)),
      )
      .where(eq(widgetLeads.chatbot_id, chatbotId))
      .orderBy(desc(widgetLeads.created_at), desc(widgetLeads.id))
      .all();
    return rows.map((r) => ({ ...r.lead, conversation_id: r.conversation_id }));
  }

  countAccountLeads(userId: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(accountLeads)
      .where(eq(accountLeads.user_id, userId))
      .get()!.n;
  }

  /** The account's leads counted per status (statuses without leads are absent). */
  countAccountLeadsByStatus(userId: string): Array<{ status: AccountLeadRow['status']; n: number }> {
    return this.db
      .select({ status: accountLeads.status, n: sql<number>`count(*)` })
      .from(accountLeads)
      .where(eq(accountLeads.user_id, userId))
      .groupBy(accountLeads.status)
      .all();
  }

  /** Widget leads of one agent, or of all the account's agents. */
  countWidgetLeads(scope: { chatbotId: string } | { userId: string }): number {
    if ('chatbotId' in scope) {
      return this.db
        .select({ n: sql<number>`count(*)` })
        .from(widgetLeads)
        .where(eq(widgetLeads.chatbot_id, scope.chatbotId))
        .get()!.n;
    }
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(widgetLeads)
      .innerJoin(chatbots, eq(chatbots.id, widgetLeads.chatbot_id))
      .where(eq(chatbots.user_id, scope.userId))
      .get()!.n;
  }

  listAccountLeads(userId: string): AccountLeadRow[] {
    return this.db
      .select()
      .from(accountLeads)
      .where(eq(accountLeads.user_id, userId))
      .orderBy(desc(accountLeads.created_at), desc(accountLeads.id))
      .all();
  }

  findAccountLead(id: string, userId: string): AccountLeadRow | undefined {
    return this.db
      .select()
      .from(accountLeads)
      .where(and(eq(accountLeads.id, id), eq(accountLeads.user_id, userId)))
      .get();
  }

  insertAccountLead(row: AccountLeadRow): AccountLeadRow {
    return this.db.insert(accountLeads).values(row).returning().get();
  }

  updateAccountLead(id: string, patch: Partial<Omit<AccountLeadRow, 'id' | 'user_id' | 'created_at'>>): AccountLeadRow {
    return this.db.update(accountLeads).set(patch).where(eq(accountLeads.id, id)).returning().get()!;
  }

  deleteAccountLead(id: string): void {
    this.db.delete(accountLeads).where(eq(accountLeads.id, id)).run();
  }

  insertMail(row: MailRow): void {
    this.db.insert(mailOutbox).values(row).run();
  }

  findMail(id: string): MailRow | undefined {
    return this.db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).get();
  }

  markMailSent(id: string, at: string): void {
    this.db
      .update(mailOutbox)
      .set({ status: 'sent', sent_at: at, last_error: null })
      .where(eq(mailOutbox.id, id))
      .run();
  }

  markMailRejected(id: string, error: string): void {
    this.db
      .update(mailOutbox)
      .set({ status: 'rejected', attempts: sql`${mailOutbox.attempts} + 1`, last_error: error.slice(0, 500) })
      .where(eq(mailOutbox.id, id))
      .run();
  }

  markMailFailedAttempt(id: string, error: string): void {
    this.db
      .update(mailOutbox)
      .set({ attempts: sql`${mailOutbox.attempts} + 1`, last_error: error.slice(0, 500) })
      .where(eq(mailOutbox.id, id))
      .run();
  }

  pendingMailIds(): string[] {
    return this.db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      .where(inArray(mailOutbox.status, ['pending']))
      .all()
      .map((r) => r.id);
  }

  countPendingMail(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(mailOutbox).where(eq(mailOutbox.status, 'pending')).get()!
      .n;
  }

  /** One account's mail waiting to go out. */
  countPendingMailOf(userId: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(mailOutbox)
      .where(and(eq(mailOutbox.status, 'pending'), eq(mailOutbox.user_id, userId)))
      .get()!.n;
  }

  countConfirmationsSince(userId: string, since: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(mailOutbox)
      .where(
        and(eq(mailOutbox.user_id, userId), eq(mailOutbox.kind, 'confirm_address'), gte(mailOutbox.created_at, since)),
      )
      .get()!.n;
  }

  /** Held alerts to an address that has just been confirmed become pending; their ids are returned. */
  releaseHeldMail(userId: string, address: string): string[] {
    return this.db
      .update(mailOutbox)
      .set({ status: 'pending' })
      .where(
        and(
          eq(mailOutbox.user_id, userId),
          eq(mailOutbox.status, 'held'),
          sql`lower(${mailOutbox.to_address}) = ${address}`,
        ),
      )
      .returning({ id: mailOutbox.id })
      .all()
      .map((r) => r.id);
  }

  findAlertAddress(userId: string, address: string): AlertAddressRow | undefined {
    return this.db
      .select()
      .from(alertAddresses)
      .where(and(eq(alertAddresses.user_id, userId), eq(alertAddresses.address, address)))
      .get();
  }

  /** A new confirmation link for the address (the row is created on first request). */
  saveConfirmationRequest(userId: string, address: string, tokenHash: string, expiresAt: string, now: string): void {
    this.db
      .insert(alertAddresses)
      .values({
        user_id: userId,
        address,
        token_hash: tokenHash,
        token_expires_at: expiresAt,
        requested_at: now,
        confirmed_at: null,
        created_at: now,
      })
      .onConflictDoUpdate({
        target: [alertAddresses.user_id, alertAddresses.address],
        set: { token_hash: tokenHash, token_expires_at: expiresAt, requested_at: now },
      })
      .run();
  }

  /** The address whose unexpired link has this token hash. */
  findByToken(tokenHash: string, now: string): AlertAddressRow | undefined {
    return this.db
      .select()
      .from(alertAddresses)
      .where(and(eq(alertAddresses.token_hash, tokenHash), gt(alertAddresses.token_expires_at, now)))
      .get();
  }

  markConfirmed(userId: string, address: string, now: string): void {
    this.db
      .update(alertAddresses)
      .set({ confirmed_at: now, token_hash: null, token_expires_at: null })
      .where(and(eq(alertAddresses.user_id, userId), eq(alertAddresses.address, address)))
      .run();
  }
}
