import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { accountLeads, mailOutbox, widgetLeads, type AccountLeadRow, type MailRow, type WidgetLeadRow } from './tables.js';

export class LeadsRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  /** The same name and phone for this agent since `since` (dedup window), oldest first. */
  findRecentWidgetLead(chatbotId: string, name: string, phone: string, since: string): WidgetLeadRow | undefined {
    return this.db
      .select()
      .from(widgetLeads)
      .where(and(eq(widgetLeads.chatbot_id, chatbotId), eq(widgetLeads.name, name), eq(widgetLeads.phone, phone), gte(widgetLeads.created_at, since)))
      .orderBy(widgetLeads.created_at, widgetLeads.id)
      .limit(1)
      .get();
  }

  insertWidgetLead(row: WidgetLeadRow): WidgetLeadRow {
    return this.db.insert(widgetLeads).values(row).returning().get();
  }

  listWidgetLeads(chatbotId: string): WidgetLeadRow[] {
    return this.db.select().from(widgetLeads).where(eq(widgetLeads.chatbot_id, chatbotId)).orderBy(desc(widgetLeads.created_at), desc(widgetLeads.id)).all();
  }

  countAccountLeads(userId: string): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(accountLeads).where(eq(accountLeads.user_id, userId)).get()!.n;
  }

  listAccountLeads(userId: string): AccountLeadRow[] {
    return this.db.select().from(accountLeads).where(eq(accountLeads.user_id, userId)).orderBy(desc(accountLeads.created_at), desc(accountLeads.id)).all();
  }

  findAccountLead(id: string, userId: string): AccountLeadRow | undefined {
    return this.db.select().from(accountLeads).where(and(eq(accountLeads.id, id), eq(accountLeads.user_id, userId))).get();
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
    this.db.update(mailOutbox).set({ status: 'sent', sent_at: at, last_error: null }).where(eq(mailOutbox.id, id)).run();
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
    return this.db.select({ id: mailOutbox.id }).from(mailOutbox).where(inArray(mailOutbox.status, ['pending'])).all().map((r) => r.id);
  }

  countPendingMail(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(mailOutbox).where(eq(mailOutbox.status, 'pending')).get()!.n;
  }
}
