import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import type { AccountLead, LeadStatus } from '../types.js';
import {
  Badge,
  ConfirmDialog,
  EmptyState,
  Field,
  Loading,
  Notice,
  formatDate,
  toast,
  useAsync,
  inputValue,
  useBusy,
  useSubmit,
} from '../ui.js';
import { AllWidgetLeads, ExportButton } from './leads.js';
import { FIELD_MAX } from '../field-limits.js';

const STATUSES: LeadStatus[] = ['New', 'Contacted', 'Closed'];
const statusKind: Record<LeadStatus, string> = { New: 'busy', Contacted: 'info', Closed: 'ok' };

function NewLead({ onCreated }: { onCreated: (l: AccountLead) => void }) {
  const [name, setName] = useState('');
  const [contact, setContact] = useState('');
  const [notes, setNotes] = useState('');
  const [status, setStatus] = useState<LeadStatus>('New');
  const { busy, error, submit } = useSubmit(async () => {
    const lead = await api<AccountLead>('POST', '/api/leads', {
      name,
      contact,
      status,
      ...(notes.trim() ? { notes } : {}),
    });
    setName('');
    setContact('');
    setNotes('');
    setStatus('New');
    onCreated(lead);
  });
  return (
    <form class="card stack" onSubmit={submit} method="post" aria-label="New lead">
      <h3>Add a lead</h3>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="grid-3">
        <Field label="Name">
          <input required maxLength={FIELD_MAX.lead.name} value={name} onInput={(e) => setName(inputValue(e))} />
        </Field>
        <Field label="Contact" hint="E-mail or phone">
          <input
            required
            maxLength={FIELD_MAX.lead.contact}
            value={contact}
            onInput={(e) => setContact(inputValue(e))}
          />
        </Field>
        <Field label="Status">
          <select value={status} onChange={(e) => setStatus(inputValue(e) as LeadStatus)}>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Notes">
        <textarea rows={2} value={notes} onInput={(e) => setNotes(inputValue(e))} />
      </Field>
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add lead'}
        </button>
      </div>
    </form>
  );
}

function LeadCard({
  lead,
  onChanged,
  onDelete,
}: {
  lead: AccountLead;
  onChanged: (l: AccountLead) => void;
  onDelete: () => void;
}) {
  const [notes, setNotes] = useState(lead.notes ?? '');
  const { busy, run } = useBusy((text) => toast(text, 'error'));
  const update = (patch: Partial<Pick<AccountLead, 'status' | 'notes'>>) =>
    run(async () => {
      const updated = await api<AccountLead>('PUT', `/api/leads/${encodeURIComponent(lead.id)}`, patch);
      onChanged(updated);
      toast('Lead updated');
    });
  return (
    <li class="card lead-card">
      <div class="lead-top">
        <div>
          <strong class="lead-name">{lead.name}</strong>
          <span class="muted small block">{lead.contact}</span>
        </div>
        <Badge kind={statusKind[lead.status]}>{lead.status}</Badge>
      </div>
      <div class="lead-edit">
        <Field label="Status">
          <select
            value={lead.status}
            disabled={busy}
            onChange={(e) => void update({ status: inputValue(e) as LeadStatus })}
          >
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Notes" wide>
          <textarea rows={2} value={notes} onInput={(e) => setNotes(inputValue(e))} />
        </Field>
      </div>
      <div class="actions">
        <span class="small muted grow">Added {formatDate(lead.created_at)}</span>
        <button
          type="button"
          class="btn btn-small"
          disabled={busy || notes === (lead.notes ?? '')}
          onClick={() => void update({ notes })}
        >
          Save notes
        </button>
        <button
          type="button"
          class="btn btn-small btn-danger-text"
          onClick={onDelete}
          aria-label={`Delete lead ${lead.name}`}
        >
          Delete
        </button>
      </div>
    </li>
  );
}

/**
 * The top-level Leads page: what visitors left through any of the account's widgets (read per
 * agent, there is no account-wide route), then the account's own list of prospects (a small CRM).
 * Each part says on its own when it is empty, so an empty own list is never read as "no leads".
 */
export function AccountLeadsPage() {
  const leads = useAsync(() => get<AccountLead[]>('/api/leads'), []);
  const [deleting, setDeleting] = useState<AccountLead | null>(null);
  const [filter, setFilter] = useState<LeadStatus | 'all'>('all');
  const shown = (leads.data ?? []).filter((l) => filter === 'all' || l.status === filter);
  const remove = async () => {
    if (!deleting) return;
    await api('DELETE', `/api/leads/${encodeURIComponent(deleting.id)}`);
    leads.setData((leads.data ?? []).filter((l) => l.id !== deleting.id));
    toast('Lead deleted');
    setDeleting(null);
  };
  return (
    <>
      <div class="page-head">
        <h1>Leads</h1>
      </div>
      <p class="muted">
        The names and phone numbers visitors left in your agents’ chats, and your own list of prospects.
      </p>
      <AllWidgetLeads />
      <section class="stack" aria-labelledby="own-leads-title">
        <div class="section-head-row">
          <h2 id="own-leads-title">Your own list</h2>
          <ExportButton path="/api/leads/export.csv" fileName="leads.csv" />
        </div>
        <p class="muted">Prospects you add yourself, with a status and notes.</p>
        <NewLead onCreated={(l) => leads.setData([l, ...(leads.data ?? [])])} />
        {leads.error && <Notice kind="error">{leads.error}</Notice>}
        {!leads.data && leads.loading && <Loading />}
        {leads.data && leads.data.length > 0 && (
          <div class="segmented" role="group" aria-label="Show leads">
            {(['all', ...STATUSES] as const).map((s) => (
              <button
                key={s}
                type="button"
                class={filter === s ? 'seg active' : 'seg'}
                aria-pressed={filter === s}
                onClick={() => setFilter(s)}
              >
                {s === 'all' ? 'All' : s}
              </button>
            ))}
          </div>
        )}
        {leads.data && leads.data.length === 0 && <EmptyState>No leads yet. Add one with the form above.</EmptyState>}
        {shown.length > 0 && (
          <ul class="lead-list">
            {shown.map((l) => (
              <LeadCard
                key={`${l.id}:${l.updated_at}`}
                lead={l}
                onChanged={(u) => leads.setData((leads.data ?? []).map((x) => (x.id === u.id ? u : x)))}
                onDelete={() => setDeleting(l)}
              />
            ))}
          </ul>
        )}
      </section>
      {deleting && (
        <ConfirmDialog
          title="Delete this lead?"
          confirmLabel="Delete lead"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>“{deleting.name}” will be removed for good.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
