import { and, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { chatbots } from '../agents/tables.js';
import { answerGaps } from '../knowledge/tables.js';
import { widgetLeads } from '../leads/tables.js';

/**
 * Analytics is a read model: it owns no table and only reads the tables of the agents, chat,
 * leads and knowledge (answer gaps) features (never writes them), with SQL aggregates so one request is a fixed, small number
 * of queries whatever the number of agents, conversations or days.
 *
 * Conversation and message figures come from `analytics_daily`, a per-agent, per-UTC-day rollup
 * that triggers keep in step with the conversations and messages tables (migration
 * 0006_analytics_daily.sql), so a year of trends reads at most 365 rows per agent.
 *
 * Every timestamp in those tables is written by `Date.toISOString()` (UTC), so its first 10
 * characters are its UTC day: the rollup's `day`. A window is `[fromDay, toDayExclusive)` as
 * `YYYY-MM-DD` strings compared on the rollup's primary key (chatbot_id, day).
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

/** Conversation outcomes and answer ratings of a window (docs/API-NOTES.md "Analytics" says what counts). */
export interface Outcomes {
  /** conversations created in the window */
  started: number;
  /** of those, the ones whose status is `resolved` now */
  resolved: number;
  /** conversations whose `escalated_at` is in the window */
  escalations: number;
  /** the agent's own answers (not a person's replies) sent in the window, rated up / down */
  thumbsUp: number;
  thumbsDown: number;
}

export interface TopGap {
  id: string;
  chatbot_id: string;
  chatbot_name: string;
  question: string;
  count: number;
  reasons: string[];
  last_seen_at: string;
}

/** How many open gaps the analytics lists (the gap inbox has them all). */
export const TOP_GAPS = 10;

export class AnalyticsRepo {
  constructor(private readonly db: Db) {}

  /** ids of an account's agents, as a subquery (`chatbot_id IN (SELECT id FROM chatbots WHERE user_id = ?)`) */
  private ownedIds(userId: string) {
    return this.db.select({ id: chatbots.id }).from(chatbots).where(eq(chatbots.user_id, userId));
  }

  /** `chatbot_id = ?` or `chatbot_id IN (the account's agents)` for the rollup table. */
  private rollupScope(scope: Scope): SQL {
    return 'chatbotId' in scope
      ? sql`chatbot_id = ${scope.chatbotId}`
      : sql`chatbot_id IN (SELECT id FROM chatbots WHERE user_id = ${scope.userId})`;
  }

  /** The account's all-time figures, in one statement (conversations and messages from the rollup). */
  dashboard(userId: string): DashboardCounts {
    const owned = this.ownedIds(userId);
    const rollup = this.rollupScope({ userId });
    const row = this.db
      .select({
        total_chatbots: sql<number>`(${this.db.select({ n: count() }).from(chatbots).where(eq(chatbots.user_id, userId))})`,
        active_chatbots: sql<number>`(${this.db
          .select({ n: count() })
          .from(chatbots)
          .where(and(eq(chatbots.user_id, userId), eq(chatbots.status, 'active')))})`,
        total_conversations: sql<number>`(SELECT coalesce(sum(conversations), 0) FROM analytics_daily WHERE ${rollup})`,
        total_messages: sql<number>`(SELECT coalesce(sum(messages), 0) FROM analytics_daily WHERE ${rollup})`,
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
    return this.db.get<{ conversations: number; messages: number }>(sql`
      SELECT coalesce(sum(conversations), 0) AS conversations, coalesce(sum(messages), 0) AS messages
        FROM analytics_daily WHERE chatbot_id = ${chatbotId}`);
  }

  /** Conversations per UTC day of creation, only the days that have some. */
  conversationsByDay(scope: Scope, window: DayWindow): DayCount[] {
    return this.db.all<DayCount>(sql`
      SELECT day, sum(conversations) AS count FROM analytics_daily
       WHERE ${this.rollupScope(scope)} AND day >= ${window.from} AND day < ${window.toExclusive}
       GROUP BY day HAVING sum(conversations) > 0`);
  }

  /**
   * Messages (user and assistant) per UTC day of their timestamp, only the days that have some,
   * with the sum and number of the assistant replies' response times that day (so the caller can
   * average over any span of days exactly).
   */
  messagesByDay(scope: Scope, window: DayWindow): MessageDay[] {
    return this.db.all<MessageDay>(sql`
      SELECT day, sum(messages) AS count, sum(response_ms_sum) AS responseMsSum, sum(response_count) AS responseCount
        FROM analytics_daily
       WHERE ${this.rollupScope(scope)} AND day >= ${window.from} AND day < ${window.toExclusive}
       GROUP BY day HAVING sum(messages) > 0`);
  }

  /**
   * The window's outcomes in one statement. Timestamps are ISO strings, so `>= from` and
   * `< toExclusive` on them are the same UTC days as the rollup's `day`. Reads conversations by
   * (chatbot_id, created_at) and (chatbot_id, escalated_at), rated messages by
   * (chatbot_id, timestamp) with `feedback IS NOT NULL`.
   */
  outcomes(scope: Scope, window: DayWindow): Outcomes {
    const where = this.rollupScope(scope);
    const { from, toExclusive: to } = window;
    return this.db.get<Outcomes>(sql`
      SELECT c.started AS started, c.resolved AS resolved, e.n AS escalations, m.up AS thumbsUp, m.down AS thumbsDown
        FROM (SELECT count(*) AS started, coalesce(sum(status = 'resolved'), 0) AS resolved FROM conversations
               WHERE ${where} AND created_at >= ${from} AND created_at < ${to}) AS c,
             (SELECT count(*) AS n FROM conversations
               WHERE ${where} AND escalated_at >= ${from} AND escalated_at < ${to}) AS e,
             (SELECT coalesce(sum(feedback = 1), 0) AS up, coalesce(sum(feedback = -1), 0) AS down FROM messages
               WHERE ${where} AND timestamp >= ${from} AND timestamp < ${to} AND feedback IS NOT NULL AND from_person = 0) AS m`);
  }

  /**
   * The most asked open answer gaps of one agent or of all of an account's agents, in the gap
   * inbox's order (most asked, then most recent, then id so ties are stable).
   */
  topOpenGaps(scope: Scope, limit = TOP_GAPS): TopGap[] {
    return this.db
      .select({
        id: answerGaps.id,
        chatbot_id: answerGaps.chatbot_id,
        chatbot_name: chatbots.name,
        question: answerGaps.question,
        count: answerGaps.count,
        reasons: answerGaps.reasons,
        last_seen_at: answerGaps.last_seen_at,
      })
      .from(answerGaps)
      .innerJoin(chatbots, eq(chatbots.id, answerGaps.chatbot_id))
      .where(
        and(
          'chatbotId' in scope ? eq(answerGaps.chatbot_id, scope.chatbotId) : eq(chatbots.user_id, scope.userId),
          eq(answerGaps.status, 'open'),
        ),
      )
      .orderBy(desc(answerGaps.count), desc(answerGaps.last_seen_at), desc(answerGaps.id))
      .limit(limit)
      .all();
  }
}
