import { useRef, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { href, navigate } from '../../router.js';
import type { Agent, Conversation } from '../../types.js';
import { ConfirmDialog, EmptyState, Loading, Notice, formatDate, toast, useAsync } from '../../ui.js';
import { useLiveConversations } from './live.js';
import {
  ConversationTop,
  type HandledConversation,
  type HandoffState,
  type StatusFilter,
  StatusFilterField,
  thumbsText,
  Transcript,
} from './transcript.js';
import { FIELD_MAX } from '../../field-limits.js';

/**
 * Asks before erasing a conversation (a visitor's request to be forgotten): it goes with all its
 * messages and, unless the owner keeps them, the leads the visitor left through this agent in the
 * same chat, with their alert e-mails.
 */
function DeleteConversationDialog({
  agent,
  conversation,
  onDeleted,
  onCancel,
}: {
  agent: Agent;
  conversation: Conversation;
  onDeleted: () => void;
  onCancel: () => void;
}) {
  const [keepLeads, setKeepLeads] = useState(false);
  const who = conversation.user_name || 'this anonymous visitor';
  const remove = async () => {
    const query = keepLeads ? '?keep_leads=true' : '';
    await api(
      'DELETE',
      `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(conversation.id)}${query}`,
    );
    onDeleted();
  };
  return (
    <ConfirmDialog
      title="Delete this conversation?"
      confirmLabel="Delete conversation"
      onConfirm={remove}
      onCancel={onCancel}
    >
      <p>
        The conversation with {who} and its {conversation.message_count} messages will be deleted for good, together
        with the visitor’s name and e-mail.
      </p>
      <p>
        {keepLeads
          ? 'The leads this visitor left are kept.'
          : `It also deletes the leads (name and phone) this visitor left through ${agent.name} in this chat, and the alert e-mails about them. Use this when a visitor asks you to erase their data.`}
      </p>
      <label class="toggle">
        <input type="checkbox" checked={keepLeads} onChange={(e) => setKeepLeads(e.currentTarget.checked)} />
        <span>Keep this visitor’s leads</span>
      </label>
    </ConfirmDialog>
  );
}

export function ConversationsTab({ agent, selected }: { agent: Agent; selected?: string }) {
  const [status, setStatus] = useState<StatusFilter>('');
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(q ? { q } : {}) }).toString();
  const list = useAsync(
    () =>
      get<HandledConversation[]>(`/api/chat/conversations/${encodeURIComponent(agent.id)}${query ? `?${query}` : ''}`),
    [agent.id, query],
  );
  const setConversationStatus = async (next: 'active' | 'resolved') => {
    if (!current) return;
    try {
      const updated = await api<Conversation>(
        'PATCH',
        `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(current.id)}`,
        { status: next },
      );
      list.setData((list.data ?? []).map((c) => (c.id === updated.id ? { ...updated, unread: false } : c)));
      toast(next === 'resolved' ? 'Marked resolved' : 'Conversation reopened');
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
  };
  const current = list.data?.find((c) => c.id === selected);
  const live = useLiveConversations(agent, list.reload);
  const handoff = async (action: 'take' | 'hand-back') => {
    if (!current) return;
    try {
      const state = await api<HandoffState>(
        'POST',
        `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(current.id)}/${action}`,
      );
      list.setData(
        (list.data ?? []).map((c) =>
          c.id === state.conversation_id
            ? {
                ...c,
                status: state.status,
                handled_by: state.handled_by,
                taken_at: state.taken_at,
                escalated_at: state.escalated_at,
              }
            : c,
        ),
      );
      toast(
        action === 'take'
          ? 'You are answering this visitor; the agent stays silent'
          : 'The agent answers this visitor again',
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
  };
  const [deleting, setDeleting] = useState<{ conversation: Conversation; button: HTMLButtonElement } | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const deleted = () => {
    if (!deleting) return;
    const gone = deleting.conversation;
    setDeleting(null);
    list.setData((list.data ?? []).filter((c) => c.id !== gone.id));
    navigate(href('agents', agent.id, 'conversations'));
    toast('Conversation deleted');
    // the transcript and its button are gone: the keyboard goes on from the list
    listHeading.current?.focus();
    void list.reload();
  };
  const cancelled = () => {
    const button = deleting?.button;
    setDeleting(null);
    button?.focus();
  };
  return (
    <div class={current ? 'split has-detail' : 'split'}>
      <section class="card stack conv-list-card">
        <div class="section-head-row">
          <h2 ref={listHeading} tabIndex={-1}>
            Conversations
          </h2>
          {live && (
            <span class="live-badge small" title="New messages and requests for a person appear here as they happen">
              Live
            </span>
          )}
          <button type="button" class="btn btn-small" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </button>
        </div>
        <form
          class="conv-filters"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setQ(search.trim());
          }}
        >
          <StatusFilterField value={status} onChange={setStatus} />
          <label>
            <span class="small muted">Search transcripts</span>
            <input
              type="search"
              maxLength={FIELD_MAX.conversation_search}
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          </label>
          <button type="submit" class="btn btn-small">
            Search
          </button>
        </form>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {!list.data && list.loading && <Loading />}
        {list.data &&
          list.data.length === 0 &&
          (status || q ? (
            <EmptyState>No conversations match.</EmptyState>
          ) : (
            <EmptyState>No conversations yet. Try the agent in “Try it”, or share its link.</EmptyState>
          ))}
        {list.data && list.data.length > 0 && (
          <ul class="conv-list" aria-label="Conversations, newest first">
            {list.data.map((c) => (
              <li key={c.id}>
                <a
                  href={href('agents', agent.id, 'conversations', c.id)}
                  class={c.id === selected ? 'conv active' : 'conv'}
                  aria-current={c.id === selected ? 'true' : undefined}
                >
                  <ConversationTop c={c} selected={c.id === selected} />
                  <span class="conv-meta small muted">
                    {c.user_email ? `${c.user_email} · ` : ''}
                    {c.message_count} messages · {formatDate(c.updated_at)}
                    {thumbsText(c)}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
      {current ? (
        <div class="detail">
          <a class="back-link" href={href('agents', agent.id, 'conversations')}>
            ← All conversations
          </a>
          <Transcript
            agent={agent}
            conversation={current}
            onDelete={(button) => setDeleting({ conversation: current, button })}
            onStatus={setConversationStatus}
            onHandoff={handoff}
            onSent={() => void list.reload()}
          />
        </div>
      ) : (
        list.data &&
        list.data.length > 0 && <div class="detail detail-empty muted">Choose a conversation to read it.</div>
      )}
      {deleting && (
        <DeleteConversationDialog
          agent={agent}
          conversation={deleting.conversation}
          onDeleted={deleted}
          onCancel={cancelled}
        />
      )}
    </div>
  );
}
