import { useEffect, useRef, useState } from 'preact/hooks';
import { api, followEventStream, get } from '../api.js';
import { href, navigate } from '../router.js';
import type { Agent, Conversation, Message } from '../types.js';
import { Badge, ConfirmDialog, EmptyState, Loading, Notice, formatDate, toast, useAsync } from '../ui.js';

/**
 * The visitor's thumbs on the conversation's answers, as counts: "👍 0 👎 1" says what happened,
 * where the API's 1-5 `rating` made one thumbs-down look like a one-star conversation (issue 31).
 */
function Thumbs({ up, down }: { up: number; down: number }) {
  if (up + down === 0) return <span class="muted small">No answer rated</span>;
  return (
    <span class="thumbs" role="img" aria-label={`${up} thumbs up, ${down} thumbs down`}>
      👍 {up} <span class="thumbs-down">👎 {down}</span>
    </span>
  );
}

/** " · 👍 2 👎 1" in a list line, nothing while no answer is rated. */
const thumbsText = (c: Conversation) =>
  c.thumbs_up + c.thumbs_down === 0 ? '' : ` · 👍 ${c.thumbs_up} 👎 ${c.thumbs_down}`;

const statusKind: Record<Conversation['status'], string> = { active: 'busy', resolved: 'ok', escalated: 'bad' };

/** Live handoff: who answers the visitor now (absent from older servers: the agent). */
type HandledConversation = Conversation & { handled_by?: 'agent' | 'person'; taken_at?: string | null };
type HandoffState = Pick<HandledConversation, 'status' | 'handled_by' | 'taken_at' | 'escalated_at'> & {
  conversation_id: string;
};
type TranscriptMessage = Message & { from_person?: boolean };

/** The person's message to the visitor, while they handle the conversation. */
function ReplyForm({
  agent,
  conversation,
  onSent,
}: {
  agent: Agent;
  conversation: HandledConversation;
  onSent: () => void;
}) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), [conversation.id]);
  const send = async () => {
    const message = text.trim();
    if (!message || sending) return;
    setSending(true);
    setError(null);
    try {
      await api(
        'POST',
        `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(conversation.id)}/reply`,
        { message },
      );
      setText('');
      onSent();
      box.current?.focus();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(false);
    }
  };
  return (
    <form
      class="reply-form stack"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label class="stack">
        <span>Your reply to the visitor</span>
        <textarea
          ref={box}
          rows={3}
          maxLength={4000}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
      </label>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={sending || !text.trim()}>
          Send reply
        </button>
        <span class="small muted">
          Enter sends; Shift+Enter starts a new line. The visitor sees it in their open chat at once.
        </span>
      </div>
    </form>
  );
}

function Transcript({
  agent,
  conversation,
  onDelete,
  onStatus,
  onHandoff,
  onSent,
}: {
  agent: Agent;
  conversation: HandledConversation;
  onDelete: (button: HTMLButtonElement) => void;
  onStatus: (status: 'active' | 'resolved') => Promise<void>;
  onHandoff: (action: 'take' | 'hand-back') => Promise<void>;
  onSent: () => void;
}) {
  const messages = useAsync(
    () => get<TranscriptMessage[]>(`/api/chat/messages/${encodeURIComponent(conversation.id)}`),
    [conversation.id, conversation.updated_at, conversation.message_count],
  );
  const [changing, setChanging] = useState(false);
  const change = async (step: () => Promise<void>) => {
    setChanging(true);
    try {
      await step();
    } finally {
      setChanging(false);
    }
  };
  const person = conversation.handled_by === 'person';
  return (
    <section class="card stack transcript" aria-label="Transcript">
      <div class="section-head-row">
        <h2>{conversation.user_name || 'Anonymous visitor'}</h2>
        <span class="head-actions">
          <Badge kind={statusKind[conversation.status]}>{conversation.status}</Badge>
          {person && <Badge kind="ok">you are answering</Badge>}
          {person ? (
            <button
              type="button"
              class="btn btn-small"
              disabled={changing}
              onClick={() => void change(() => onHandoff('hand-back'))}
            >
              Hand back to the agent
            </button>
          ) : (
            <button
              type="button"
              class="btn btn-small btn-primary"
              disabled={changing}
              onClick={() => void change(() => onHandoff('take'))}
            >
              Take over
            </button>
          )}
          {conversation.status === 'resolved' ? (
            <button
              type="button"
              class="btn btn-small"
              disabled={changing}
              onClick={() => void change(() => onStatus('active'))}
            >
              Reopen
            </button>
          ) : (
            <button
              type="button"
              class="btn btn-small"
              disabled={changing}
              onClick={() => void change(() => onStatus('resolved'))}
            >
              Mark resolved
            </button>
          )}
          <button type="button" class="btn btn-small btn-danger-text" onClick={(e) => onDelete(e.currentTarget)}>
            Delete conversation
          </button>
        </span>
      </div>
      <dl class="facts">
        <div>
          <dt>E-mail</dt>
          <dd>{conversation.user_email || '—'}</dd>
        </div>
        <div>
          <dt>Answers rated</dt>
          <dd>
            <Thumbs up={conversation.thumbs_up} down={conversation.thumbs_down} />
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDate(conversation.created_at)}</dd>
        </div>
        <div>
          <dt>Messages</dt>
          <dd>{conversation.message_count}</dd>
        </div>
      </dl>
      {conversation.status === 'escalated' && !person && (
        <Notice kind="warning">
          The visitor asked for a person{conversation.escalated_at ? ` (${formatDate(conversation.escalated_at)})` : ''}
          . Take the conversation over to reply; the agent stays silent until you hand it back.
        </Notice>
      )}
      {messages.error && <Notice kind="error">{messages.error}</Notice>}
      {!messages.data && messages.loading && <Loading />}
      {messages.data && (
        <ol class="chat-log" aria-label="Messages">
          {messages.data.map((m) => (
            <li key={m.id} class={`chat-msg chat-${m.role}${m.from_person ? ' chat-person' : ''}`}>
              <span class="chat-who">{m.role === 'user' ? 'Visitor' : m.from_person ? 'You' : 'Agent'}</span>
              <div class="chat-bubble">{m.content}</div>
              {m.interrupted && <span class="chat-note">(answer interrupted)</span>}
              {m.feedback === 1 && <span class="chat-note">Visitor’s feedback: helpful</span>}
              {m.feedback === -1 && <span class="chat-note">Visitor’s feedback: not helpful</span>}
              <time class="chat-time" dateTime={m.timestamp}>
                {formatDate(m.timestamp)}
              </time>
            </li>
          ))}
        </ol>
      )}
      {person && <ReplyForm agent={agent} conversation={conversation} onSent={onSent} />}
    </section>
  );
}

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

type StatusFilter = '' | Conversation['status'];

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
          <label>
            <span class="small muted">Status</span>
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}>
              <option value="">All</option>
              <option value="active">Active</option>
              <option value="escalated">Escalated</option>
              <option value="resolved">Resolved</option>
            </select>
          </label>
          <label>
            <span class="small muted">Search transcripts</span>
            <input type="search" maxLength={200} value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
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
                  <span class="conv-top">
                    <span class="conv-name">
                      {c.unread && c.id !== selected && (
                        <span class="unread-dot" role="img" aria-label="Unread" title="Unread" />
                      )}
                      {c.user_name || 'Anonymous visitor'}
                    </span>
                    <Badge kind={statusKind[c.status]}>{c.status}</Badge>
                  </span>
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

/**
 * The agent's live stream while its conversations are open: a new message or a change of state
 * reloads the list (and so the open transcript, keyed on `updated_at`); a visitor asking for a
 * person also says so in a toast. True while connected. After a reconnect the list is reloaded
 * once, for whatever happened while the stream was down.
 */
function useLiveConversations(agent: Agent, reload: () => Promise<void>): boolean {
  const [connected, setConnected] = useState(false);
  const latestReload = useRef(reload);
  latestReload.current = reload;
  useEffect(() => {
    const controller = new AbortController();
    let connections = 0;
    followEventStream(
      `/api/chat/conversations/${encodeURIComponent(agent.id)}/events`,
      {
        onConnected: () => {
          setConnected(true);
          if (connections++ > 0) void latestReload.current();
        },
        onDisconnected: () => setConnected(false),
        onEvent: (event, payload) => {
          if (event !== 'message' && event !== 'status') return;
          if (event === 'status' && payload.status === 'escalated')
            toast(`A visitor asked for a person on ${agent.name}`);
          void latestReload.current();
        },
      },
      controller.signal,
    );
    return () => controller.abort();
  }, [agent.id]);
  return connected;
}
