import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import {
  notificationPreferences,
  type NotificationPreferencesRow,
  pushSubscriptions,
  type PushSubscriptionRow,
  vapidKeys,
  type VapidKeysRow,
} from './tables.js';

/** Push subscriptions, notification preferences and the VAPID keys (tables.ts). */
export class NotificationsRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  // --- push subscriptions ---------------------------------------------------------------------

  /** The person's subscriptions, oldest first. */
  subscriptionsOf(userId: string): PushSubscriptionRow[] {
    return this.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.user_id, userId))
      .orderBy(asc(pushSubscriptions.created_at), asc(pushSubscriptions.id))
      .all();
  }

  /** Stores the person's subscription, replacing the keys of the one with the same endpoint. */
  upsertSubscription(row: PushSubscriptionRow): void {
    this.db
      .insert(pushSubscriptions)
      .values(row)
      .onConflictDoUpdate({
        target: [pushSubscriptions.user_id, pushSubscriptions.endpoint],
        set: { p256dh: row.p256dh, auth: row.auth },
      })
      .run();
  }

  deleteSubscription(userId: string, endpoint: string): void {
    this.db
      .delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.user_id, userId), eq(pushSubscriptions.endpoint, endpoint)))
      .run();
  }

  deleteSubscriptionById(id: string): void {
    this.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id)).run();
  }

  /** Every subscription: they were made for a VAPID key that is gone. */
  deleteAllSubscriptions(): void {
    this.db.delete(pushSubscriptions).run();
  }

  countSubscriptions(userId: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.user_id, userId))
      .get()!.n;
  }

  // --- preferences ----------------------------------------------------------------------------

  preferences(userId: string): NotificationPreferencesRow | undefined {
    return this.db.select().from(notificationPreferences).where(eq(notificationPreferences.user_id, userId)).get();
  }

  savePreferences(row: NotificationPreferencesRow): void {
    this.db
      .insert(notificationPreferences)
      .values(row)
      .onConflictDoUpdate({
        target: notificationPreferences.user_id,
        set: { browser: row.browser, push: row.push, email: row.email, updated_at: row.updated_at },
      })
      .run();
  }

  // --- VAPID keys -----------------------------------------------------------------------------

  vapidKeys(): VapidKeysRow | undefined {
    return this.db.select().from(vapidKeys).where(eq(vapidKeys.id, 1)).get();
  }

  /** Stores the key pair (replacing an unreadable one). */
  saveVapidKeys(row: Omit<VapidKeysRow, 'id'>): void {
    this.db
      .insert(vapidKeys)
      .values({ id: 1, ...row })
      .onConflictDoUpdate({ target: vapidKeys.id, set: row })
      .run();
  }
}
