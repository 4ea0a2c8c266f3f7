import { get } from '../../api.js';
import { href } from '../../router.js';
import type { ActionAnalytics } from '../../types.js';
import { EmptyState, Loading, Notice, useAsync } from '../../ui.js';
import { kindLabel } from './model.js';

/**
 * The agent's actions in the analytics window: per action, how often it ran, how often the visitor
 * confirmed (a do, a booking), and how the runs ended.
 */
export function ActionStats({ agentId, days }: { agentId: string; days: number }) {
  const stats = useAsync(
    () => get<ActionAnalytics>(`/api/analytics/chatbot/${encodeURIComponent(agentId)}/actions?days=${days}`),
    [agentId, days],
  );
  const rows = stats.data?.actions ?? [];
  return (
    <section class="card stack" aria-labelledby="action-stats-title">
      <div class="section-head-row">
        <h2 id="action-stats-title">Actions, last {days} days</h2>
        <a href={href('agents', agentId, 'actions')}>Set up actions</a>
      </div>
      {stats.error && <Notice kind="error">{stats.error}</Notice>}
      {!stats.data && stats.loading && <Loading />}
      {stats.data && rows.length === 0 && <EmptyState>No action ran in the last {days} days.</EmptyState>}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label="Action runs">
            <thead>
              <tr style={{ whiteSpace: 'nowrap' }}>
                <th>Action</th>
                <th>Runs</th>
                <th>Confirmed</th>
                <th>Done</th>
                <th>Failed</th>
                <th>Cancelled</th>
                <th>Expired</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.action_id ?? 'deleted'}-${r.action_name}`}>
                  <td>
                    <code>{r.action_name}</code>{' '}
                    <span class="muted small">
                      {kindLabel(r.action_type)}
                      {r.action_id === null && ', deleted'}
                    </span>
                  </td>
                  <td>{r.runs}</td>
                  <td>{r.action_type === 'lookup' ? '—' : r.confirmed}</td>
                  <td>{r.succeeded}</td>
                  <td>{r.failed}</td>
                  <td>{r.cancelled}</td>
                  <td>{r.expired}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
