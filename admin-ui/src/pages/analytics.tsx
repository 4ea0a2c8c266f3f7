import { useMemo, useState } from 'preact/hooks';
import { get } from '../api.js';
import { DailyChart, type DailySeries } from '../chart.js';
import type { Agent, AgentAnalytics } from '../types.js';
import { Loading, Notice, useAsync } from '../ui.js';

export const WINDOWS = [7, 30, 90] as const;
export type Window = (typeof WINDOWS)[number];

export function WindowSwitch({ days, onChange }: { days: Window; onChange: (d: Window) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Period">
      {WINDOWS.map((d) => (
        <button key={d} type="button" class={d === days ? 'seg active' : 'seg'} aria-pressed={d === days} onClick={() => onChange(d)}>
          {d} days
        </button>
      ))}
    </div>
  );
}

export function StatCard({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div class="stat card" data-testid={testId}>
      <span class="stat-value">{value}</span>
      <span class="stat-label">{label}</span>
    </div>
  );
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-11-01" as "Nov 01", the trends' label format. */
const dayLabel = (iso: string) => `${MONTHS[Number(iso.slice(5, 7)) - 1] ?? ''} ${iso.slice(8, 10)}`;

/** Per-agent figures: all-time totals and the daily chart for the chosen window. */
export function AgentAnalyticsTab({ agent }: { agent: Agent }) {
  const [days, setDays] = useState<Window>(30);
  const data = useAsync(() => get<AgentAnalytics>(`/api/analytics/chatbot/${encodeURIComponent(agent.id)}?days=${days}`), [agent.id, days]);
  const series = useMemo<DailySeries | null>(() => {
    const d = data.data;
    if (!d) return null;
    return {
      labels: d.date_range.map(dayLabel),
      conversations: d.date_range.map((day) => d.conversations_by_date[day] ?? 0),
      messages: d.date_range.map((day) => d.messages_by_date[day] ?? 0),
    };
  }, [data.data]);
  return (
    <div class="stack-lg">
      <div class="stats">
        <StatCard label="Conversations (all time)" value={data.data?.total_conversations ?? '…'} />
        <StatCard label="Messages (all time)" value={data.data?.total_messages ?? '…'} />
      </div>
      <section class="card stack">
        <div class="section-head-row">
          <h2>Per day</h2>
          <WindowSwitch days={days} onChange={setDays} />
        </div>
        {data.error && <Notice kind="error">{data.error}</Notice>}
        {!series && data.loading && <Loading />}
        {series && <DailyChart series={series} title={`Conversations and messages per day, last ${days} days`} />}
      </section>
    </div>
  );
}
