import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { FIELD_MAX } from '../../field-limits.js';
import type { Agent, SavedReply } from '../../types.js';
import { Notice, useAsync, useSubmit } from '../../ui.js';
import { DraftNote, useDraftReply } from './draft-reply.js';

/** The `/shortcut` being typed just before the caret: where it starts and what is typed so far. */
export function shortcutAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)\/([a-z0-9_-]*)$/i.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]!.toLowerCase() } : null;
}

/** The account's saved replies (none when they cannot be read). */
function useSavedReplies(): SavedReply[] {
  const replies = useAsync(() => get<SavedReply[]>('/api/saved-replies').catch(() => []), []);
  return replies.data ?? [];
}

/**
 * The person's message to the visitor, while they handle the conversation. Typing `/` and a
 * saved reply's shortcut offers the matching replies; Tab or Enter (or a click) inserts the chosen
 * one in place of the `/shortcut`, arrows move through them, Escape closes them.
 */
export function ReplyForm({
  agent,
  conversationId,
  onSent,
}: {
  agent: Agent;
  conversationId: string;
  onSent: () => void;
}) {
  const [text, setText] = useState('');
  const draft = useDraftReply(agent, conversationId, text, setText);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const saved = useSavedReplies();
  useEffect(() => box.current?.focus(), [conversationId]);
  const typed = closed ? null : shortcutAt(text, caret);
  const matches = typed ? saved.filter((r) => r.shortcut.startsWith(typed.query)).slice(0, 8) : [];
  const choice = matches[Math.min(active, matches.length - 1)];
  const {
    busy: sending,
    error,
    submit: send,
  } = useSubmit(async () => {
    const message = text.trim();
    if (!message) return;
    await api(
      'POST',
      `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(conversationId)}/reply`,
      { message },
    );
    setText('');
    setCaret(0);
    draft.sent();
    onSent();
    box.current?.focus();
  });
  const insert = (reply: SavedReply) => {
    if (!typed) return;
    const next = text.slice(0, typed.start) + reply.content + text.slice(caret);
    const at = typed.start + reply.content.length;
    setText(next.slice(0, FIELD_MAX.message));
    setCaret(at);
    setActive(0);
    requestAnimationFrame(() => {
      box.current?.focus();
      box.current?.setSelectionRange(at, at);
    });
  };
  const edited = (e: { currentTarget: HTMLTextAreaElement }) => {
    setText(e.currentTarget.value);
    setCaret(e.currentTarget.selectionStart ?? e.currentTarget.value.length);
    setClosed(false);
  };
  return (
    <form class="reply-form stack" onSubmit={(e) => void send(e)}>
      <label class="stack">
        <span>Your reply to the visitor</span>
        <textarea
          ref={box}
          rows={3}
          maxLength={FIELD_MAX.message}
          value={text}
          aria-autocomplete="list"
          aria-controls={matches.length > 0 ? 'saved-reply-suggestions' : undefined}
          aria-activedescendant={choice ? `saved-reply-${choice.id}` : undefined}
          onInput={edited}
          onClick={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
          onKeyUp={(e) => {
            if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') setCaret(e.currentTarget.selectionStart ?? 0);
          }}
          onKeyDown={(e) => {
            if (choice) {
              if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                e.preventDefault();
                const step = e.key === 'ArrowDown' ? 1 : matches.length - 1;
                setActive((Math.min(active, matches.length - 1) + step) % matches.length);
                return;
              }
              if ((e.key === 'Tab' || e.key === 'Enter') && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                insert(choice);
                return;
              }
              if (e.key === 'Escape') {
                e.preventDefault();
                setClosed(true);
                return;
              }
            }
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              if (!sending) void send();
            }
          }}
        />
      </label>
      {matches.length > 0 && (
        <div class="saved-reply-suggestions" id="saved-reply-suggestions" role="listbox" aria-label="Saved replies">
          {matches.map((r) => (
            <div
              key={r.id}
              id={`saved-reply-${r.id}`}
              role="option"
              tabIndex={-1}
              aria-selected={r === choice}
              class={r === choice ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault(); // the textarea keeps the focus
                insert(r);
              }}
            >
              <strong>/{r.shortcut}</strong> <span class="muted">{r.content}</span>
            </div>
          ))}
        </div>
      )}
      <DraftNote state={draft} />
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={sending || !text.trim()}>
          Send reply
        </button>
        <span class="small muted">
          Enter sends; Shift+Enter starts a new line; / and a shortcut inserts a saved reply (Tab or Enter). The visitor
          sees it in their open chat at once.
        </span>
      </div>
    </form>
  );
}
