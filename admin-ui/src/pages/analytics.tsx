import { useMemo, useState } from 'preact/hooks';
import { get } from '../api.js';
import { DailyChart, type DailySeries } from '../chart.js';
import { ActionStats } from './actions/stats.js';
import { ChannelStats } from './channels/stats.js';
import { href } from '../router.js';
import type { Agent, AgentAnalytics, AnalyticsOutcomes, UnansweredQuestion } from '../types.js';
import { EmptyState, formatDate, Loading, Notice, useAsync } from '../ui.js';

export const WINDOWS = [7, 30, 90] as const;
export type Window = (typeof WINDOWS)[number];

export function WindowSwitch({ days, onChange }: { days: Window; onChange: (d: Window) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Period">
      {WINDOWS.map((d) => (
        <button
          key={d}
          type="button"
          class={d === days ? 'seg active' : 'seg'}
          aria-pressed={d === days}
          onClick={() => onChange(d)}
        >
          {d} days
        </button>
      ))}
    </div>
  );
}

export function StatCard({
  label,
  value,
  detail,
  testId,
}: {
  label: string;
  value: string | number;
  detail?: string;
  testId?: string;
}) {
  return (
    <div class="stat card" data-testid={testId}>
      <span class="stat-value">{value}</span>
      <span class="stat-label">{label}</span>
      {detail && <span class="muted small">{detail}</span>}
    </div>
  );
}

/** A whole percentage of part / whole (whole > 0). */
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

/** "82% 👍 (41 of 50)", or "No ratings yet". */
export function thumbsText(o: Pick<AnalyticsOutcomes, 'thumbs_up' | 'thumbs_down'>): string {
  const rated = o.thumbs_up + o.thumbs_down;
  return rated === 0 ? 'No ratings yet' : `${percent(o.thumbs_up, rated)} 👍 (${o.thumbs_up} of ${rated})`;
}

/**
 * Resolution rate, escalations and thumbs of the window. `started` is the window's number of
 * conversations (the rate's denominator) when the page knows it.
 */
export function OutcomeCards({
  data,
  days,
  started,
}: {
  data: AnalyticsOutcomes | undefined;
  days: number;
  started?: number;
}) {
  const rateDetail =
    data && started !== undefined
      ? started === 0
        ? 'No conversations yet'
        : `${data.conversations_resolved} of ${started} conversations`
      : undefined;
  return (
    <div class="stats">
      <StatCard
        label={`Resolution rate (${days} days)`}
        value={data ? `${Math.round(data.resolution_rate * 100)}%` : '…'}
        detail={rateDetail}
        testId="stat-resolution-rate"
      />
      <StatCard label={`Escalations (${days} days)`} value={data?.escalations ?? '…'} testId="stat-escalations" />
      <StatCard label={`Answer ratings (${days} days)`} value={data ? thumbsText(data) : '…'} testId="stat-thumbs" />
    </div>
  );
}

const REASONS: Record<string, string> = {
  no_passage: 'nothing found',
  unsure: 'agent unsure',
  thumbs_down: 'thumbs down',
  asked_person: 'asked for a person',
};

/**
 * The most asked open questions, each linking to its agent's inbox of unanswered questions.
 * `agentOf` names the agent (the dashboard lists several agents' questions).
 */
export function UnansweredList<T extends UnansweredQuestion>({
  items,
  agentId,
  agentOf,
}: {
  items: T[];
  agentId: (q: T) => string;
  agentOf?: (q: T) => string;
}) {
  if (items.length === 0) return <EmptyState>No open unanswered questions.</EmptyState>;
  return (
    <ol class="sources" data-testid="top-unanswered">
      {items.map((q) => (
        <li key={q.id} class="source">
          <a href={href('agents', agentId(q), 'gaps')}>{q.question}</a>
          <span class="muted small">
            Asked {q.count} {q.count === 1 ? 'time' : 'times'}, last {formatDate(q.last_seen_at)}
            {q.reasons.length > 0 && ` · ${q.reasons.map((r) => REASONS[r] ?? r).join(', ')}`}
            {agentOf && ` · ${agentOf(q)}`}
          </span>
        </li>
      ))}
    </ol>
  );
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-11-01" as "Nov 01", the trends' label format. */
const dayLabel = (iso: string) => `${MONTHS[Number(iso.slice(5, 7)) - 1] ?? ''} ${iso.slice(8, 10)}`;

/** Per-agent figures: all-time totals, the chosen window's outcomes and daily chart, the open questions. */
export function AgentAnalyticsTab({ agent }: { agent: Agent }) {
  const [days, setDays] = useState<Window>(30);
  const data = useAsync(
    () => get<AgentAnalytics>(`/api/analytics/chatbot/${encodeURIComponent(agent.id)}?days=${days}`),
    [agent.id, days],
  );
  const series = useMemo<DailySeries | null>(() => {
    const d = data.data;
    if (!d) return null;
    return {
      labels: d.date_range.map(dayLabel),
      conversations: d.date_range.map((day) => d.conversations_by_date[day] ?? 0),
      messages: d.date_range.map((day) => d.messages_by_date[day] ?? 0),
    };
  }, [data.data]);
  const started = series ? series.conversations.reduce((a, b) => a + b, 0) : undefined;
  return (
    <div class="stack-lg">
      <div class="stats">
        <StatCard label="Conversations (all time)" value={data.data?.total_conversations ?? '…'} />
        <StatCard label="Messages (all time)" value={data.data?.total_messages ?? '…'} />
      </div>
      <section class="card stack">
        <div class="section-head-row">
          <h2>Last {days} days</h2>
          <WindowSwitch days={days} onChange={setDays} />
        </div>
        {data.error && <Notice kind="error">{data.error}</Notice>}
        <OutcomeCards data={data.data} days={days} started={started} />
        {!series && data.loading && <Loading />}
        {series && <DailyChart series={series} title={`Conversations and messages per day, last ${days} days`} />}
      </section>
      <ChannelStats agentId={agent.id} days={days} />
      <ActionStats agentId={agent.id} days={days} />
      <section class="card stack">
        <div class="section-head-row">
          <h2>Top unanswered questions</h2>
          <a href={href('agents', agent.id, 'gaps')}>All unanswered questions</a>
        </div>
        {data.data ? (
          <UnansweredList items={data.data.top_unanswered} agentId={() => agent.id} />
        ) : (
          data.loading && <Loading />
        )}
      </section>
    </div>
  );
}
