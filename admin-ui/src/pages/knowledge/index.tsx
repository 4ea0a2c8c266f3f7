import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import type { Agent, Source } from '../../types.js';
import { ConfirmDialog, EmptyState, Loading, Notice, toast, useAsync } from '../../ui.js';
import { QaForm, TextForm, WebsiteForm } from './forms.js';
import { SourceRow } from './sources.js';
import { Dropzone } from './upload.js';

/** How often the list is read again while a source is still processing. */
const POLL_MS = 3000;

export function KnowledgeTab({ agent }: { agent: Agent }) {
  const sources = useAsync(() => get<Source[]>(`/api/sources/chatbot/${encodeURIComponent(agent.id)}`), [agent.id]);
  const [adding, setAdding] = useState<'file' | 'website' | 'text' | 'qa'>('file');
  const [deleting, setDeleting] = useState<Source | null>(null);
  const processing = sources.data?.some((s) => s.status === 'processing') ?? false;

  // Read the list again every few seconds only while something is processing, and never after
  // the page is left (timer and listener are removed on unmount). A hidden tab waits until it is
  // shown again; a failed read (a 429, say) is tried again at the next turn.
  useEffect(() => {
    if (!processing || sources.loading) return;
    let wake: (() => void) | null = null;
    const timer = setTimeout(() => {
      if (document.visibilityState !== 'hidden') {
        void sources.reload();
        return;
      }
      wake = () => {
        document.removeEventListener('visibilitychange', wake!);
        wake = null;
        void sources.reload();
      };
      document.addEventListener('visibilitychange', wake);
    }, POLL_MS);
    return () => {
      clearTimeout(timer);
      if (wake) document.removeEventListener('visibilitychange', wake);
    };
  }, [processing, sources.loading, sources.settled]);

  const remove = async () => {
    if (!deleting) return;
    await api('DELETE', `/api/sources/${encodeURIComponent(deleting.id)}`);
    toast(`${deleting.name} was removed`);
    setDeleting(null);
    await sources.reload();
  };

  /** A source changed (a re-crawl started): shown at once as the server answered, then the list is read again. */
  const changed = (updated?: Source) => {
    if (updated && sources.data) sources.setData(sources.data.map((s) => (s.id === updated.id ? updated : s)));
    // and read from the server (a read already on its way may predate the change: it is dropped)
    void sources.reload();
  };

  const added = () => {
    toast('Source added');
    void sources.reload();
  };

  return (
    <div class="stack-lg">
      <section class="card stack">
        <h2>Add knowledge</h2>
        <div class="segmented" role="group" aria-label="Kind of source">
          {(['file', 'website', 'text', 'qa'] as const).map((k) => (
            <button
              key={k}
              type="button"
              class={adding === k ? 'seg active' : 'seg'}
              aria-pressed={adding === k}
              onClick={() => setAdding(k)}
            >
              {k === 'file' ? 'Files' : k === 'website' ? 'Website' : k === 'text' ? 'Text' : 'Q&A'}
            </button>
          ))}
        </div>
        {adding === 'file' && <Dropzone agentId={agent.id} onUploaded={() => void sources.reload()} />}
        {adding === 'website' && <WebsiteForm agentId={agent.id} onAdded={added} />}
        {adding === 'text' && <TextForm agentId={agent.id} onAdded={added} />}
        {adding === 'qa' && <QaForm agentId={agent.id} onAdded={added} />}
      </section>
      <section class="card stack">
        <div class="section-head-row">
          <h2>Sources</h2>
          {processing && <span class="small muted">Updating while processing…</span>}
        </div>
        {sources.error && <Notice kind="error">{sources.error}</Notice>}
        {!sources.data && sources.loading && <Loading />}
        {sources.data && sources.data.length === 0 && (
          <EmptyState>No sources yet. The agent answers from what you add here.</EmptyState>
        )}
        {sources.data && sources.data.length > 0 && (
          <ul class="sources" aria-label="Sources">
            {sources.data.map((s) => (
              <SourceRow key={s.id} source={s} onDelete={() => setDeleting(s)} onChanged={changed} />
            ))}
          </ul>
        )}
      </section>
      {deleting && (
        <ConfirmDialog
          title="Remove this source?"
          confirmLabel="Remove"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>“{deleting.name}” and everything learned from it leave the agent's knowledge.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
