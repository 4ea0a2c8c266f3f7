import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../../platform/http/errors.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type {
  AnalyticsRepo,
  DashboardCounts,
  DayCount,
  DayWindow,
  MessageDay,
  Outcomes,
  Scope,
  TopGap,
} from './repo.js';

/** The analytics window (docs/API.md "Analytics"): `days` from 1 to 365, 30 when not given. */
export const DEFAULT_DAYS = 30;
export const MIN_DAYS = 1;
export const MAX_DAYS = 365;

/**
 * Outcome figures of a window (issue 23.7), on both the per-agent analytics and the dashboard.
 * docs/API-NOTES.md "Analytics" states exactly what each one counts.
 */
export interface OutcomeFigures {
  conversations_resolved: number;
  /** conversations_resolved / conversations started in the window, 0..1, 3 decimals; 0 when none */
  resolution_rate: number;
  escalations: number;
  thumbs_up: number;
  thumbs_down: number;
  /** thumbs_up / (thumbs_up + thumbs_down), 0..1, 3 decimals; null when nothing was rated */
  thumbs_up_ratio: number | null;
}

export type UnansweredQuestion = Omit<TopGap, 'chatbot_id' | 'chatbot_name'>;

export interface AgentAnalytics extends OutcomeFigures {
  total_conversations: number;
  total_messages: number;
  date_range: string[];
  conversations_by_date: Record<string, number>;
  messages_by_date: Record<string, number>;
  top_unanswered: UnansweredQuestion[];
}

export interface DashboardAnalytics extends DashboardCounts, OutcomeFigures {
  top_unanswered: TopGap[];
}

export interface TrendPoint {
  date: string;
  count: number;
}

export interface Trends {
  conversations: TrendPoint[];
  messages: TrendPoint[];
  avg_response_time: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Fixed English abbreviations: labels must not depend on the host's locale or ICU data.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** `YYYY-MM-DD` of a UTC instant. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` -> `Mon DD` (English month, zero-padded day), e.g. `2025-11-01` -> `Nov 01`. */
export function trendLabel(day: string): string {
  const month = MONTHS[Number(day.slice(5, 7)) - 1];
  if (!month) throw new Error(`not a YYYY-MM-DD day: ${day}`);
  return `${month} ${day.slice(8, 10)}`;
}

/**
 * A duration in ms as the human-readable string of `avg_response_time` (docs/API.md "Analytics"): under 1 s
 * `NNNms`; under 60 s whole seconds `Ns`; under 1 h `Nm Ns`; otherwise `Nh Nm`. Each unit is
 * truncated, not rounded, so a value is never shown in a larger bracket than it is (59.9 s is
 * `59s`, never `60s`); only the milliseconds are rounded to a whole number first (999.6 ms -> `1s`).
 * `null` (nothing to average) is `0s`.
 */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '0s';
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  const seconds = Math.floor(whole / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}

/**
 * Dashboard, per-agent analytics and trends. Days are UTC (docs/API.md "Analytics"); "today" is the injected
 * clock's, never the host's. A window of `days` runs from today - (days - 1) to today inclusive,
 * and every day of it is present in the answer, with 0 for a day without activity.
 */
export class AnalyticsService {
  constructor(
    private readonly repo: AnalyticsRepo,
    private readonly agents: AgentsService,
    private readonly clock: Clock,
  ) {}

  /**
   * All-time figures over the caller's agents (total_leads counts widget leads, not account
   * leads), plus the outcomes of the `days` window and the account's most asked open gaps.
   */
  dashboard(user: AuthUser, days: number): DashboardAnalytics {
    const { window } = this.window(days);
    const scope: Scope = { userId: user.id };
    return {
      ...this.repo.dashboard(user.id),
      ...outcomeFigures(this.repo.outcomes(scope, window)),
      top_unanswered: this.repo.topOpenGaps(scope),
    };
  }

  /**
   * One agent of the caller's (404, exactly as GET /api/chatbots/{id}, for another account's or an
   * unknown id).
   *
   * Decision: total_conversations and total_messages are the agent's all-time totals, not the
   * window's. They are the same figures as the agent's own messages_count / conversations_count
   * and the dashboard, so an owner never sees two different "total conversations" for one agent;
   * the window's totals are the sums of the two maps, which the client already has. The outcome
   * figures are the window's; top_unanswered is the gap inbox's head, whatever the window.
   */
  agent(user: AuthUser, chatbotId: string, days: number): AgentAnalytics {
    const agent = this.agents.get(user, chatbotId);
    const { range, window } = this.window(days);
    const scope: Scope = { chatbotId: agent.id };
    const totals = this.repo.agentTotals(agent.id);
    return {
      total_conversations: totals.conversations,
      total_messages: totals.messages,
      date_range: range,
      conversations_by_date: fillDays(range, this.repo.conversationsByDay(scope, window)),
      messages_by_date: fillDays(range, this.repo.messagesByDay(scope, window)),
      ...outcomeFigures(this.repo.outcomes(scope, window)),
      top_unanswered: this.repo.topOpenGaps(scope).map(({ chatbot_id: _id, chatbot_name: _name, ...gap }) => gap),
    };
  }

  /**
   * Per-day counts summed over all the caller's agents, labelled `Mon DD`, plus the average
   * response time of the assistant replies sent in the window. No agents: empty arrays and `0s`.
   */
  trends(user: AuthUser, days: number): Trends {
    const { range, window } = this.window(days);
    if (this.repo.countAgents(user.id) === 0) return { conversations: [], messages: [], avg_response_time: '0s' };
    const scope: Scope = { userId: user.id };
    const conversations = fillDays(range, this.repo.conversationsByDay(scope, window));
    const messageDays = this.repo.messagesByDay(scope, window);
    const messages = fillDays(range, messageDays);
    return {
      conversations: range.map((day) => ({ date: trendLabel(day), count: conversations[day]! })),
      messages: range.map((day) => ({ date: trendLabel(day), count: messages[day]! })),
      avg_response_time: formatDuration(averageResponseMs(messageDays)),
    };
  }

  /** The window's days, ascending, ending today (UTC), and its bounds for the repository. */
  private window(days: number): { range: string[]; window: DayWindow } {
    if (!Number.isInteger(days) || days < MIN_DAYS || days > MAX_DAYS) {
      throw badRequest(`days: must be an integer from ${MIN_DAYS} to ${MAX_DAYS}`);
    }
    const today = Date.parse(`${utcDay(this.clock.now())}T00:00:00.000Z`);
    const range = Array.from({ length: days }, (_, i) => utcDay(new Date(today - (days - 1 - i) * DAY_MS)));
    return { range, window: { from: range[0]!, toExclusive: utcDay(new Date(today + DAY_MS)) } };
  }
}

/** Every day of `range` (in order) with its count, 0 when the query returned no row for it. */
function fillDays(range: string[], rows: DayCount[]): Record<string, number> {
  const byDay = new Map(rows.map((r) => [r.day, r.count]));
  const out: Record<string, number> = {};
  for (const day of range) out[day] = byDay.get(day) ?? 0;
  return out;
}

/** A share in 0..1 rounded to 3 decimals. */
function share(part: number, whole: number): number {
  return Math.round((part / whole) * 1000) / 1000;
}

function outcomeFigures(o: Outcomes): OutcomeFigures {
  const rated = o.thumbsUp + o.thumbsDown;
  return {
    conversations_resolved: o.resolved,
    resolution_rate: o.started === 0 ? 0 : share(o.resolved, o.started),
    escalations: o.escalations,
    thumbs_up: o.thumbsUp,
    thumbs_down: o.thumbsDown,
    thumbs_up_ratio: rated === 0 ? null : share(o.thumbsUp, rated),
  };
}

function averageResponseMs(days: MessageDay[]): number | null {
  let sum = 0;
  let n = 0;
  for (const d of days) {
    sum += d.responseMsSum;
    n += d.responseCount;
  }
  return n === 0 ? null : sum / n;
}
