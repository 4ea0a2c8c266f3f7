import { useMemo, useState } from 'preact/hooks';
import { get } from '../api.js';
import { DailyChart, type DailySeries } from '../chart.js';
import type { Dashboard, Trends } from '../types.js';
import { EmptyState, Loading, Notice, useAsync } from '../ui.js';
import { UsagePanel } from '../usage.js';
import { OutcomeCards, StatCard, UnansweredList, WindowSwitch, type Window } from './analytics.js';

/** The account at a glance: all-time counts, the chosen window's outcomes and trends, the open questions. */
export function DashboardPage() {
  const [days, setDays] = useState<Window>(30);
  const dashboard = useAsync(() => get<Dashboard>(`/api/analytics/dashboard?days=${days}`), [days]);
  const trends = useAsync(() => get<Trends>(`/api/analytics/trends?days=${days}`), [days]);
  const series = useMemo<DailySeries | null>(() => {
    const t = trends.data;
    if (!t) return null;
    return {
      labels: t.conversations.map((p) => p.date),
      conversations: t.conversations.map((p) => p.count),
      messages: t.messages.map((p) => p.count),
    };
  }, [trends.data]);
  const d = dashboard.data;
  // same window as the outcomes, so the conversations of the trends are the resolution rate's denominator
  const started = series && series.labels.length === days ? series.conversations.reduce((a, b) => a + b, 0) : undefined;
  return (
    <>
      <div class="page-head">
        <h1>Analytics</h1>
        <WindowSwitch days={days} onChange={setDays} />
      </div>
      {dashboard.error && <Notice kind="error">{dashboard.error}</Notice>}
      <div class="stats">
        <StatCard label="Conversations" value={d?.total_conversations ?? '…'} testId="stat-conversations" />
        {/* all messages ever, both sides; the usage panel's monthly figure counts only those sent to the agents (issue 31) */}
        <StatCard
          label="Messages (all time)"
          value={d?.total_messages ?? '…'}
          detail="visitors’ and agents’"
          testId="stat-messages"
        />
        <StatCard label="Active agents" value={d ? `${d.active_chatbots} of ${d.total_chatbots}` : '…'} />
        <StatCard label="Widget leads" value={d?.total_leads ?? '…'} testId="stat-leads" />
        <StatCard
          label={`Average response time (${days} days)`}
          value={trends.data?.avg_response_time ?? '…'}
          testId="stat-response-time"
        />
      </div>
      <OutcomeCards data={d} days={days} started={started} />
      <UsagePanel />
      <section class="card stack">
        <h2>Conversations and messages per day</h2>
        {trends.error && <Notice kind="error">{trends.error}</Notice>}
        {!series && trends.loading && <Loading />}
        {series && series.labels.length === 0 && <EmptyState>Create an agent to see its activity here.</EmptyState>}
        {series && series.labels.length > 0 && (
          <DailyChart series={series} title={`Conversations and messages per day, last ${days} days`} />
        )}
      </section>
      <section class="card stack">
        <h2>Top unanswered questions</h2>
        {d ? (
          <UnansweredList items={d.top_unanswered} agentId={(q) => q.chatbot_id} agentOf={(q) => q.chatbot_name} />
        ) : (
          dashboard.loading && <Loading />
        )}
      </section>
    </>
  );
}
