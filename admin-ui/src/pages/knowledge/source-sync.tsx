import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import type { Source } from '../../types.js';
import { Badge, Notice, errorText, formatDate, toast, useAsync } from '../../ui.js';

type SyncInterval = NonNullable<Source['sync_interval']>;
type SyncRecord = {
  id: string;
  trigger: 'manual' | 'scheduled';
  status: 'completed' | 'failed';
  error: string | null;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  details: { added: string[]; changed: { url: string; summary: string }[]; removed: string[] };
  finished_at: string;
};

const counts = (s: { added: number; changed: number; removed: number; unchanged: number }) =>
  `${s.changed} changed, ${s.added} added, ${s.removed} removed, ${s.unchanged} unchanged`;

/**
 * A website source's freshness (docs/API-NOTES.md "Website sync"): how often it syncs by itself,
 * when next, what the last sync found, and what each of the last syncs changed.
 */
export function SourceSync({ source, onChanged }: { source: Source; onChanged: (updated?: Source) => void }) {
  const [saving, setSaving] = useState(false);
  const [showChanges, setShowChanges] = useState(false);
  const setInterval = async (interval: SyncInterval) => {
    setSaving(true);
    try {
      const updated = await api<Source>('PUT', `/api/sources/${encodeURIComponent(source.id)}/sync`, { interval });
      toast(interval === 'off' ? `${source.name} no longer syncs by itself` : `${source.name} syncs ${interval}`);
      onChanged(updated);
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setSaving(false);
    }
  };
  const last = source.last_sync;
  const selectId = `sync-${source.id}`;
  return (
    <div class="source-sync">
      <div class="source-sync-row">
        <label for={selectId} class="small">
          Sync automatically
        </label>
        <select
          id={selectId}
          value={source.sync_interval ?? 'off'}
          disabled={saving}
          onChange={(e) => void setInterval(e.currentTarget.value as SyncInterval)}
        >
          <option value="off">Off</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
        </select>
        {source.next_sync_at && <span class="small muted">Next: {formatDate(source.next_sync_at)}</span>}
      </div>
      {last && (
        <p class="small">
          {last.status === 'completed'
            ? `Last synced ${formatDate(last.finished_at)}: ${counts(last)}.`
            : `Last sync failed ${formatDate(last.finished_at)}: ${last.error ?? 'unknown error'}. The pages of the crawl before are still used.`}{' '}
          <button
            type="button"
            class="btn btn-small"
            aria-expanded={showChanges}
            onClick={() => setShowChanges((v) => !v)}
          >
            {showChanges ? 'Hide what changed' : 'What changed'}
          </button>
        </p>
      )}
      {showChanges && <SyncChanges sourceId={source.id} />}
    </div>
  );
}

function SyncChanges({ sourceId }: { sourceId: string }) {
  const syncs = useAsync(() => get<SyncRecord[]>(`/api/sources/${encodeURIComponent(sourceId)}/syncs`), [sourceId]);
  if (syncs.error) return <Notice kind="error">{syncs.error}</Notice>;
  if (!syncs.data) return <p class="small muted">Loading…</p>;
  return (
    <ul class="sync-list" aria-label="Syncs">
      {syncs.data.map((s) => (
        <li key={s.id}>
          <p class="small">
            <Badge kind={s.status === 'completed' ? 'ok' : 'bad'}>
              {s.status === 'completed' ? 'Synced' : 'Failed'}
            </Badge>{' '}
            {formatDate(s.finished_at)} ({s.trigger === 'scheduled' ? 'on schedule' : 'by hand'}):{' '}
            {s.status === 'completed' ? counts(s) : s.error}
          </p>
          <ul class="small">
            {s.details.changed.map((c) => (
              <li key={`c${c.url}`}>
                Changed <a href={c.url}>{c.url}</a>: {c.summary}
              </li>
            ))}
            {s.details.added.map((u) => (
              <li key={`a${u}`}>
                Added <a href={u}>{u}</a>
              </li>
            ))}
            {s.details.removed.map((u) => (
              <li key={`r${u}`}>Removed {u}</li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
