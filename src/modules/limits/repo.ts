import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { accountUsage, rateLimitCounters } from './tables.js';

export interface CounterRow {
  key: string;
  window_s: number;
  window_start: number;
  count: number;
}

/** The limits feature's own tables: rate-limit counters and monthly message usage. */
export class LimitsRepo {
  // read and written by every chat turn: prepared once
  private readonly monthly;
  private readonly addMonthly;

  constructor(private readonly db: Db) {
    this.monthly = db
      .select({ n: accountUsage.user_messages })
      .from(accountUsage)
      .where(and(eq(accountUsage.user_id, sql.placeholder('userId')), eq(accountUsage.month, sql.placeholder('month'))))
      .prepare();
    this.addMonthly = db
      .insert(accountUsage)
      .values({ user_id: sql.placeholder('userId'), month: sql.placeholder('month'), user_messages: 1 })
      .onConflictDoUpdate({
        target: [accountUsage.user_id, accountUsage.month],
        set: { user_messages: sql`${accountUsage.user_messages} + 1` },
      })
      .prepare();
  }

  /** Counters whose window has not ended at `nowS` (epoch seconds). */
  liveCounters(nowS: number): CounterRow[] {
    return this.db
      .select()
      .from(rateLimitCounters)
      .where(sql`${rateLimitCounters.window_start} + ${rateLimitCounters.window_s} > ${nowS}`)
      .all();
  }

  /** Writes changed counters and drops ended windows, in one transaction. */
  saveCounters(rows: CounterRow[], nowS: number): void {
    this.db.transaction((tx) => {
      for (const row of rows) {
        tx.insert(rateLimitCounters)
          .values(row)
          .onConflictDoUpdate({
            target: [rateLimitCounters.key, rateLimitCounters.window_s],
            set: { window_start: row.window_start, count: row.count },
          })
          .run();
      }
      tx.delete(rateLimitCounters)
        .where(lt(sql`${rateLimitCounters.window_start} + ${rateLimitCounters.window_s}`, nowS))
        .run();
    });
  }

  monthlyMessages(userId: string, month: string): number {
    return this.monthly.get({ userId, month })?.n ?? 0;
  }

  addMonthlyMessage(userId: string, month: string): void {
    this.addMonthly.run({ userId, month });
  }
}
