import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { FIELD_MAX } from '../../field-limits.js';
import type { SavedReply } from '../../types.js';
import { ConfirmDialog, EmptyState, Field, Notice, SubmitButton, toast, useAsync, useSubmit } from '../../ui.js';

/** One saved reply's form: a new one, or changing one. */
function SavedReplyForm({
  reply,
  onSaved,
  onCancel,
}: {
  reply?: SavedReply;
  onSaved: (saved: SavedReply) => void;
  onCancel?: () => void;
}) {
  const [shortcut, setShortcut] = useState(reply?.shortcut ?? '');
  const [content, setContent] = useState(reply?.content ?? '');
  const { busy, error, submit } = useSubmit(async () => {
    const body = { shortcut: shortcut.trim(), content: content.trim() };
    const saved = reply
      ? await api<SavedReply>('PUT', `/api/saved-replies/${encodeURIComponent(reply.id)}`, body)
      : await api<SavedReply>('POST', '/api/saved-replies', body);
    if (!reply) {
      setShortcut('');
      setContent('');
    }
    onSaved(saved);
  });
  return (
    <form class="stack saved-reply-form" onSubmit={(e) => void submit(e)}>
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Shortcut" hint="Letters a-z, digits, - and _: typing /shortcut in a reply offers it">
        <input
          required
          maxLength={FIELD_MAX.inbox.shortcut}
          pattern="[A-Za-z0-9][A-Za-z0-9_\-]*"
          value={shortcut}
          onInput={(e) => setShortcut(e.currentTarget.value)}
        />
      </Field>
      <Field label="Reply">
        <textarea
          required
          rows={2}
          maxLength={FIELD_MAX.inbox.saved_reply}
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
      </Field>
      <div class="actions">
        <SubmitButton busy={busy} label={reply ? 'Save' : 'Add saved reply'} busyLabel="Saving…" />
        {onCancel && (
          <button type="button" class="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** The account's saved replies: `/shortcut` in the reply box inserts one (docs/ADMIN-UI.md "Inbox"). */
export function SavedRepliesSection() {
  const replies = useAsync(() => get<SavedReply[]>('/api/saved-replies'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<SavedReply | null>(null);
  const sorted = (list: SavedReply[]) => [...list].sort((a, b) => a.shortcut.localeCompare(b.shortcut));
  const saved = (r: SavedReply) => {
    replies.setData(sorted([...(replies.data ?? []).filter((x) => x.id !== r.id), r]));
    setEditing(null);
    toast(`Saved reply /${r.shortcut} saved`);
  };
  return (
    <details class="card stack saved-replies">
      <summary>
        <h2 class="inline-heading">Saved replies</h2>{' '}
        <span class="small muted">{replies.data ? `${replies.data.length} saved` : ''}</span>
      </summary>
      <p class="small muted">
        Answers the team gives often. In a reply to a visitor, type / and the shortcut, then Tab or Enter.
      </p>
      {replies.error && <Notice kind="error">{replies.error}</Notice>}
      {replies.data && replies.data.length === 0 && <EmptyState>No saved replies yet.</EmptyState>}
      {replies.data && replies.data.length > 0 && (
        <ul class="stack" aria-label="Saved replies">
          {replies.data.map((r) =>
            editing === r.id ? (
              <li key={r.id}>
                <SavedReplyForm reply={r} onSaved={saved} onCancel={() => setEditing(null)} />
              </li>
            ) : (
              <li key={r.id} class="saved-reply">
                <strong>/{r.shortcut}</strong> <span class="saved-reply-text">{r.content}</span>{' '}
                <button type="button" class="btn btn-small" onClick={() => setEditing(r.id)}>
                  Edit
                </button>{' '}
                <button type="button" class="btn btn-small btn-danger-text" onClick={() => setRemoving(r)}>
                  Delete
                </button>
              </li>
            ),
          )}
        </ul>
      )}
      <h3>New saved reply</h3>
      <SavedReplyForm onSaved={saved} />
      {removing && (
        <ConfirmDialog
          title={`Delete /${removing.shortcut}?`}
          confirmLabel="Delete"
          onConfirm={async () => {
            await api('DELETE', `/api/saved-replies/${encodeURIComponent(removing.id)}`);
            replies.setData((replies.data ?? []).filter((x) => x.id !== removing.id));
            setRemoving(null);
          }}
          onCancel={() => setRemoving(null)}
        >
          <p>The saved reply goes for the whole team.</p>
        </ConfirmDialog>
      )}
    </details>
  );
}
