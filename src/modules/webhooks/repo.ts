import { and, desc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { webhookAttempts, webhookDeliveries, webhooks } from './tables.js';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The webhooks and their deliveries (the log and the outbox the delivery queue works from). */
export class WebhooksRepo {
  /** an account's active webhooks: read for every event (each message stored), so prepared once */
  private readonly activeOfUser;

  constructor(private readonly db: Db) {
    this.activeOfUser = db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.user_id, sql.placeholder('userId')), eq(webhooks.active, true)))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  // --- webhooks -------------------------------------------------------------------------------

  /** The account's webhooks, oldest first. */
  listByUser(userId: string): WebhookRow[] {
    return this.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.user_id, userId))
      .orderBy(webhooks.created_at, webhooks.id)
      .all();
  }

  countByUser(userId: string): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(webhooks).where(eq(webhooks.user_id, userId)).get()!.n;
  }

  /** The account's active webhooks (an event's subscribers are among them). */
  activeByUser(userId: string): WebhookRow[] {
    return this.activeOfUser.all({ userId });
  }

  findById(id: string): WebhookRow | undefined {
    return this.db.select().from(webhooks).where(eq(webhooks.id, id)).get();
  }

  /** The webhook when it is this account's, else undefined. */
  findOwned(id: string, userId: string): WebhookRow | undefined {
    return this.db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.user_id, userId)))
      .get();
  }

  /** The account a webhook belongs to, or null when it is gone. */
  ownerOf(id: string): string | null {
    return (
      this.db.select({ user_id: webhooks.user_id }).from(webhooks).where(eq(webhooks.id, id)).get()?.user_id ?? null
    );
  }

  insert(row: typeof webhooks.$inferInsert): WebhookRow {
    return this.db.insert(webhooks).values(row).returning().get();
  }

  update(id: string, changes: Partial<WebhookRow>): WebhookRow {
    return this.db.update(webhooks).set(changes).where(eq(webhooks.id, id)).returning().get()!;
  }

  /** Deletes the webhook; its deliveries go with it (foreign key cascade). */
  delete(id: string): void {
    this.db.delete(webhooks).where(eq(webhooks.id, id)).run();
  }

  // --- deliveries -----------------------------------------------------------------------------

  findDelivery(id: string): DeliveryRow | undefined {
    return this.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
  }

  /** The delivery when it is this webhook's, else undefined. */
  findDeliveryOf(webhookId: string, deliveryId: string): DeliveryRow | undefined {
    return this.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhook_id, webhookId)))
      .get();
  }

  /** The webhook's log, newest first. */
  deliveriesOf(webhookId: string, limit: number): DeliveryRow[] {
    return this.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhook_id, webhookId))
      .orderBy(desc(webhookDeliveries.created_at), desc(webhookDeliveries.id))
      .limit(limit)
      .all();
  }

  /** Ids of the webhook's deliveries not yet sent nor failed. */
  pendingDeliveryIds(webhookId: string): string[] {
    return this.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhook_id, webhookId), eq(webhookDeliveries.status, 'pending')))
      .all()
      .map((d) => d.id);
  }

  insertDelivery(row: typeof webhookDeliveries.$inferInsert): DeliveryRow {
    return this.db.insert(webhookDeliveries).values(row).returning().get();
  }

  updateDelivery(id: string, changes: Partial<DeliveryRow>): void {
    this.db.update(webhookDeliveries).set(changes).where(eq(webhookDeliveries.id, id)).run();
  }

  /** Queues a failed delivery again: pending, its attempt count from 0. */
  resetDelivery(id: string): DeliveryRow {
    return this.db
      .update(webhookDeliveries)
      .set({ status: 'pending', attempts: 0 })
      .where(eq(webhookDeliveries.id, id))
      .returning()
      .get()!;
  }

  /** Deletes the account's deliveries whose body holds this id (ids are unique: no other body names it). */
  deleteDeliveriesNaming(accountId: string, id: string): void {
    this.db
      .delete(webhookDeliveries)
      .where(
        and(
          sql`${webhookDeliveries.webhook_id} IN (SELECT ${webhooks.id} FROM ${webhooks} WHERE ${webhooks.user_id} = ${accountId})`,
          sql`instr(${webhookDeliveries.payload}, ${JSON.stringify(id)}) > 0`,
        ),
      )
      .run();
  }

  // --- the hourly allowance ---------------------------------------------------------------------

  /** The account's POSTs after `sinceIso`, and when the earliest of them was. */
  attemptsSince(userId: string, sinceIso: string): { n: number; first: string | null } {
    return this.db
      .select({ n: sql<number>`count(*)`, first: sql<string | null>`min(${webhookAttempts.attempted_at})` })
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.user_id, userId), gt(webhookAttempts.attempted_at, sinceIso)))
      .get()!;
  }

  /** One more POST of the account; its rows up to `forgetBefore` are no longer needed. */
  recordAttempt(userId: string, at: string, forgetBefore: string): void {
    this.db
      .delete(webhookAttempts)
      .where(and(eq(webhookAttempts.user_id, userId), lte(webhookAttempts.attempted_at, forgetBefore)))
      .run();
    this.db.insert(webhookAttempts).values({ user_id: userId, attempted_at: at }).run();
  }
}
