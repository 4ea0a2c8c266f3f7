import { useState } from 'preact/hooks';
import { type ApiPath, ApiError, api, download, get } from '../api.js';
import { looksLikePhone } from '../phone.js';
import { href } from '../router.js';
import type { Agent, WidgetLead } from '../types.js';
import {
  ConfirmDialog,
  EmptyState,
  Loading,
  Notice,
  RefreshButton,
  formatDate,
  toast,
  useAsync,
  useBusy,
} from '../ui.js';

/** A file name from an agent name: letters, digits and dashes only. */
export const fileSafe = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'agent';

export function ExportButton({ path, fileName }: { path: ApiPath<'GET'>; fileName: string }) {
  const { busy, run } = useBusy((text) => toast(text, 'error'));
  return (
    <button type="button" class="btn btn-small" disabled={busy} onClick={() => run(() => download(path, fileName))}>
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
          <RefreshButton onRefresh={leads.reload} busy={leads.loading} />
          <ExportButton
            path={`/api/chatbot-leads/${encodeURIComponent(agent.id)}/export.csv`}
            fileName={`leads-${fileSafe(agent.name)}.csv`}
          />
        </div>
      </div>
      {!agent.lead_capture_enabled && (
        <Notice kind="info">
          Lead capture is off for this agent: turn it on in Settings to ask visitors for their name and phone.
        </Notice>
      )}
      {leads.error && <Notice kind="error">{leads.error}</Notice>}
      {!leads.data && leads.loading && <Loading />}
      {leads.data && leads.data.length === 0 && <EmptyState>No leads yet.</EmptyState>}
      {leads.data && leads.data.length > 0 && (
        <WidgetLeadsTable
          leads={leads.data}
          label="Widget leads"
          agentId={agent.id}
          onDeleted={(id) => leads.setData((leads.data ?? []).filter((l) => l.id !== id))}
        />
      )}
    </section>
  );
}

/** A widget lead with the agent whose widget took it. */
type AgentWidgetLead = WidgetLead & { agent: Pick<Agent, 'id' | 'name'> };

/**
 * Name, phone (a tel: link, with a warning when it does not look like a number), the agent (when
 * the list spans agents), when it came in, a link to the visitor's conversation, and Delete (asked
 * first; the lead's alert e-mails go with it).
 */
function WidgetLeadsTable({
  leads,
  label,
  agentId,
  onDeleted,
}: {
  leads: Array<WidgetLead & { agent?: Pick<Agent, 'id' | 'name'> }>;
  label: string;
  /** the agent of every lead, when the list is one agent's */
  agentId?: string;
  onDeleted: (id: string) => void;
}) {
  const byAgent = leads.some((l) => l.agent);
  const [deleting, setDeleting] = useState<WidgetLead | null>(null);
  const remove = async () => {
    if (!deleting) return;
    await api('DELETE', `/api/leads/${encodeURIComponent(deleting.id)}`);
    onDeleted(deleting.id);
    toast('Lead deleted');
    setDeleting(null);
  };
  return (
    <div class="table-wrap">
      <table class="table leads-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Phone</th>
            {byAgent && <th scope="col">Agent</th>}
            <th scope="col">Captured</th>
            <th scope="col">Conversation</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {leads.map((l) => {
            const agent = l.agent?.id ?? agentId;
            return (
              <tr key={l.id}>
                <td>{l.name}</td>
                <td>
                  <a class="nowrap" href={`tel:${l.phone.replace(/[^0-9+]/g, '')}`}>
                    {l.phone}
                  </a>
                  {!looksLikePhone(l.phone) && <div class="small phone-warning">Does not look like a phone number</div>}
                </td>
                {byAgent && <td>{l.agent && <a href={href('agents', l.agent.id, 'leads')}>{l.agent.name}</a>}</td>}
                <td>{formatDate(l.created_at)}</td>
                <td>
                  {l.conversation_id && agent ? (
                    <a
                      href={href('agents', agent, 'conversations', l.conversation_id)}
                      aria-label={`Conversation with ${l.name}`}
                    >
                      Open
                    </a>
                  ) : (
                    <span class="muted" title="The visitor has not written in the chat">
                      None
                    </span>
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    class="btn btn-small btn-danger-text"
                    onClick={() => setDeleting(l)}
                    aria-label={`Delete lead ${l.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {deleting && (
        <ConfirmDialog
          title="Delete this lead?"
          confirmLabel="Delete lead"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>
            “{deleting.name}” ({deleting.phone}) will be removed for good, with the alert e-mails about it. The
            conversation stays.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/**
 * The widget leads of every agent of the account, newest first. The API lists widget leads per
 * agent only (GET /api/chatbot-leads/{id}), so this reads the agents, then each one's leads. An
 * agent deleted between the two reads (404) just has none.
 */
async function loadAllWidgetLeads(): Promise<{ agents: number; leads: AgentWidgetLead[] }> {
  const agents = await get<Agent[]>('/api/chatbots');
  const lists = await Promise.all(
    agents.map((a) =>
      get<WidgetLead[]>(`/api/chatbot-leads/${encodeURIComponent(a.id)}`).then(
        (leads) => leads.map((l) => ({ ...l, agent: { id: a.id, name: a.name } })),
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return [];
          throw err;
        },
      ),
    ),
  );
  const leads = lists.flat().sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : 0));
  return { agents: agents.length, leads };
}

/** The top-level Leads page's list of what visitors left through any of the account's widgets. */
export function AllWidgetLeads() {
  const all = useAsync(loadAllWidgetLeads, []);
  const data = all.data;
  return (
    <section class="card stack" aria-labelledby="all-widget-leads-title">
      <div class="section-head-row">
        <h2 id="all-widget-leads-title">From your agents’ widgets</h2>
        <RefreshButton onRefresh={all.reload} busy={all.loading} />
      </div>
      {all.error && <Notice kind="error">{all.error}</Notice>}
      {!data && all.loading && <Loading />}
      {data && data.agents === 0 && (
        <EmptyState>No agents yet. The names and phone numbers visitors leave in an agent’s chat show here.</EmptyState>
      )}
      {data && data.agents > 0 && data.leads.length === 0 && (
        <EmptyState>
          No visitor has left their details yet. Turn on lead capture in an agent’s Settings to ask for them.
        </EmptyState>
      )}
      {data && data.leads.length > 0 && (
        <WidgetLeadsTable
          leads={data.leads}
          label="Widget leads of all agents"
          onDeleted={(id) => all.setData({ ...data, leads: data.leads.filter((l) => l.id !== id) })}
        />
      )}
    </section>
  );
}
