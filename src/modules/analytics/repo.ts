import { and, count, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { chatbots } from '../agents/tables.js';
import { conversations, messages } from '../chat/tables.js';
import { widgetLeads } from '../leads/tables.js';

/**
 * Analytics is a read model: it owns no table and only reads the tables of the agents, chat and
 * leads features (never writes them), with SQL aggregates so one request is a fixed, small number
 * of queries whatever the number of agents, conversations or days.
 *
 * Every timestamp in those tables is written by `Date.toISOString()` (UTC, `YYYY-MM-DDTHH:mm:ss.sssZ`),
 * so its first 10 characters are its UTC day and plain string comparison orders it in time. A
 * window is `[fromDay, toDayExclusive)` given as `YYYY-MM-DD` strings: `'2026-03-01T23:59:59.999Z'`
 * sorts after `'2026-03-01'` and before `'2026-03-02'`. The range stays on the indexed column
 * (messages(chatbot_id, timestamp), conversations(chatbot_id, created_at)), so no extra index is
 * needed.
 */

/** Whose data: one agent (already checked to be the caller's) or all agents of one account. */
export type Scope = { chatbotId: string } | { userId: string };

export interface DayWindow {
  /** first day, `YYYY-MM-DD`, inclusive */
  from: string;
  /** the day after the last, `YYYY-MM-DD`, exclusive */
  toExclusive: string;
}

export interface DashboardCounts {
  total_conversations: number;
  total_messages: number;
  active_chatbots: number;
  total_chatbots: number;
  total_leads: number;
}

export interface DayCount {
  day: string;
  count: number;
}

export interface MessageDay extends DayCount {
  /** sum and number of the assistant messages' response_time_ms that day */
  responseMsSum: number;
  responseCount: number;
}

export class AnalyticsRepo {
  constructor(private readonly db: Db) {}

  /** ids of an account's agents, as a subquery (`chatbot_id IN (SELECT id FROM chatbots WHERE user_id = ?)`) */
  private ownedIds(userId: string) {
    return this.db.select({ id: chatbots.id }).from(chatbots).where(eq(chatbots.user_id, userId));
  }

  private scoped(column: typeof conversations.chatbot_id | typeof messages.chatbot_id | typeof widgetLeads.chatbot_id, scope: Scope): SQL {
    return 'chatbotId' in scope ? eq(column, scope.chatbotId) : inArray(column, this.ownedIds(scope.userId));
  }

  /** The account's all-time figures, in one statement. */
  dashboard(userId: string): DashboardCounts {
    const owned = this.ownedIds(userId);
    const row = this.db
      .select({
        total_chatbots: sql<number>`(${this.db.select({ n: count() }).from(chatbots).where(eq(chatbots.user_id, userId))})`,
        active_chatbots: sql<number>`(${this.db
          .select({ n: count() })
          .from(chatbots)
          .where(and(eq(chatbots.user_id, userId), eq(chatbots.status, 'active')))})`,
        total_conversations: sql<number>`(${this.db.select({ n: count() }).from(conversations).where(inArray(conversations.chatbot_id, owned))})`,
        total_messages: sql<number>`(${this.db.select({ n: count() }).from(messages).where(inArray(messages.chatbot_id, owned))})`,
        total_leads: sql<number>`(${this.db.select({ n: count() }).from(widgetLeads).where(inArray(widgetLeads.chatbot_id, owned))})`,
      })
      .from(sql`(SELECT 1)`)
      .get()!;
    return row;
  }

  countAgents(userId: string): number {
    return this.db.select({ n: count() }).from(chatbots).where(eq(chatbots.user_id, userId)).get()!.n;
  }

  /** All-time conversation and message counts of one agent. */
  agentTotals(chatbotId: string): { conversations: number; messages: number } {
    return this.db
      .select({
        conversations: sql<number>`(${this.db.select({ n: count() }).from(conversations).where(eq(conversations.chatbot_id, chatbotId))})`,
        messages: sql<number>`(${this.db.select({ n: count() }).from(messages).where(eq(messages.chatbot_id, chatbotId))})`,
      })
      .from(sql`(SELECT 1)`)
      .get()!;
  }

  /** Conversations per UTC day of creation, only the days that have some. */
  conversationsByDay(scope: Scope, window: DayWindow): DayCount[] {
    const day = sql<string>`substr(${conversations.created_at}, 1, 10)`;
    return this.db
      .select({ day, count: count() })
      .from(conversations)
      .where(
        and(
          this.scoped(conversations.chatbot_id, scope),
          gte(conversations.created_at, window.from),
          lt(conversations.created_at, window.toExclusive),
        ),
      )
      .groupBy(day)
      .all();
  }

  /**
   * Messages (user and assistant) per UTC day of their timestamp, only the days that have some,
   * with the sum and number of the assistant replies' response times that day (so the caller can
   * average over any span of days exactly).
   */
  messagesByDay(scope: Scope, window: DayWindow): MessageDay[] {
    const day = sql<string>`substr(${messages.timestamp}, 1, 10)`;
    const assistantMs = sql`CASE WHEN ${messages.role} = 'assistant' THEN ${messages.response_time_ms} END`;
    return this.db
      .select({
        day,
        count: count(),
        responseMsSum: sql<number>`coalesce(sum(${assistantMs}), 0)`,
        responseCount: sql<number>`count(${assistantMs})`,
      })
      .from(messages)
      .where(and(this.scoped(messages.chatbot_id, scope), gte(messages.timestamp, window.from), lt(messages.timestamp, window.toExclusive)))
      .groupBy(day)
      .all();
  }
}
