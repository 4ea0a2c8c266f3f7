import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { FIELD_MAX } from '../../field-limits.js';
import type { ConversationNote } from '../../types.js';
import { EmptyState, Loading, Notice, formatDate, useAsync, useSubmit } from '../../ui.js';

/** Internal notes on a conversation: the team's only; the visitor and the agent never see them. */
export function NotesPane({ chatbotId, conversationId }: { chatbotId: string; conversationId: string }) {
  const path =
    `/api/chat/conversations/${encodeURIComponent(chatbotId)}/${encodeURIComponent(conversationId)}/notes` as const;
  const notes = useAsync(() => get<ConversationNote[]>(path), [path]);
  const [text, setText] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const content = text.trim();
    if (!content) return;
    const note = await api<ConversationNote>('POST', path, { content });
    notes.setData([...(notes.data ?? []), note]);
    setText('');
  });
  return (
    <section class="card stack notes-pane" aria-labelledby="notes-title">
      <div class="section-head">
        <h2 id="notes-title">Internal notes</h2>
        <p class="small muted">For the team only: the visitor never sees them, and the agent never reads them.</p>
      </div>
      {notes.error && <Notice kind="error">{notes.error}</Notice>}
      {!notes.data && notes.loading && <Loading />}
      {notes.data && notes.data.length === 0 && <EmptyState>No notes yet.</EmptyState>}
      {notes.data && notes.data.length > 0 && (
        <ol class="notes-list stack" aria-label="Notes, oldest first">
          {notes.data.map((n) => (
            <li key={n.id} class="note">
              <div class="note-text">{n.content}</div>
              <span class="small muted">
                {n.author.name} · <time dateTime={n.created_at}>{formatDate(n.created_at)}</time>
              </span>
            </li>
          ))}
        </ol>
      )}
      <form class="stack" onSubmit={(e) => void submit(e)}>
        <label class="stack">
          <span>Add a note</span>
          <textarea
            rows={2}
            maxLength={FIELD_MAX.inbox.note}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </label>
        {error && <Notice kind="error">{error}</Notice>}
        <div class="actions">
          <button type="submit" class="btn btn-small" disabled={busy || !text.trim()}>
            Add note
          </button>
        </div>
      </form>
    </section>
  );
}
