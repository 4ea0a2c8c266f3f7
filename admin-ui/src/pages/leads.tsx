import { useState } from 'preact/hooks';
import { download, get } from '../api.js';
import type { Agent, WidgetLead } from '../types.js';
import { EmptyState, Loading, Notice, errorText, formatDate, toast, useAsync } from '../ui.js';

/** A file name from an agent name: letters, digits and dashes only. */
export const fileSafe = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'agent';

export function ExportButton({ path, fileName }: { path: string; fileName: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class="btn btn-small"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await download(path, fileName);
        } catch (err) {
          toast(errorText(err), 'error');
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? 'Exporting…' : 'Export CSV'}
    </button>
  );
}

/** Leads the widget's form captured for one agent (name and phone), newest first. */
export function WidgetLeadsTab({ agent }: { agent: Agent }) {
  const leads = useAsync(() => get<WidgetLead[]>(`/api/chatbot-leads/${encodeURIComponent(agent.id)}`), [agent.id]);
  return (
    <section class="card stack">
      <div class="section-head-row">
        <h2>Leads from the widget</h2>
        <div class="head-actions">
          <button type="button" class="btn btn-small" onClick={() => void leads.reload()} disabled={leads.loading}>
            Refresh
          </button>
          <ExportButton path={`/api/chatbot-leads/${encodeURIComponent(agent.id)}/export.csv`} fileName={`leads-${fileSafe(agent.name)}.csv`} />
        </div>
      </div>
      {!agent.lead_capture_enabled && <Notice kind="info">Lead capture is off for this agent: turn it on in Settings to ask visitors for their name and phone.</Notice>}
      {leads.error && <Notice kind="error">{leads.error}</Notice>}
      {!leads.data && leads.loading && <Loading />}
      {leads.data && leads.data.length === 0 && <EmptyState>No leads yet.</EmptyState>}
      {leads.data && leads.data.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label="Widget leads">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phone</th>
                <th scope="col">Captured</th>
              </tr>
            </thead>
            <tbody>
              {leads.data.map((l) => (
                <tr key={l.id}>
                  <td>{l.name}</td>
                  <td>
                    <a href={`tel:${l.phone.replace(/[^0-9+]/g, '')}`}>{l.phone}</a>
                  </td>
                  <td>{formatDate(l.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
