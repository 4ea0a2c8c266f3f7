import { get } from '../api.js';
import { href } from '../router.js';
import type { Agent, Conversation, Message } from '../types.js';
import { Badge, EmptyState, Loading, Notice, formatDate, useAsync } from '../ui.js';

function Stars({ rating }: { rating: number | null }) {
  if (rating === null) return <span class="muted small">Not rated</span>;
  return (
    <span class="stars" aria-label={`Rated ${rating} of 5`}>
      {'★'.repeat(rating)}
      <span class="stars-off">{'★'.repeat(5 - rating)}</span>
    </span>
  );
}

const statusKind: Record<Conversation['status'], string> = { active: 'busy', resolved: 'ok', escalated: 'bad' };

function Transcript({ conversation }: { conversation: Conversation }) {
  const messages = useAsync(() => get<Message[]>(`/api/chat/messages/${encodeURIComponent(conversation.id)}`), [conversation.id, conversation.updated_at]);
  return (
    <section class="card stack transcript" aria-label="Transcript">
      <div class="section-head-row">
        <h2>{conversation.user_name || 'Anonymous visitor'}</h2>
        <Badge kind={statusKind[conversation.status]}>{conversation.status}</Badge>
      </div>
      <dl class="facts">
        <div>
          <dt>E-mail</dt>
          <dd>{conversation.user_email || '—'}</dd>
        </div>
        <div>
          <dt>Rating</dt>
          <dd>
            <Stars rating={conversation.rating} />
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
      {messages.error && <Notice kind="error">{messages.error}</Notice>}
      {!messages.data && messages.loading && <Loading />}
      {messages.data && (
        <ol class="chat-log" aria-label="Messages">
          {messages.data.map((m) => (
            <li key={m.id} class={`chat-msg chat-${m.role}`}>
              <span class="chat-who">{m.role === 'user' ? 'Visitor' : 'Agent'}</span>
              <div class="chat-bubble">{m.content}</div>
              {m.interrupted && <span class="chat-note">(answer interrupted)</span>}
              <time class="chat-time" dateTime={m.timestamp}>
                {formatDate(m.timestamp)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function ConversationsTab({ agent, selected }: { agent: Agent; selected?: string }) {
  const list = useAsync(() => get<Conversation[]>(`/api/chat/conversations/${encodeURIComponent(agent.id)}`), [agent.id]);
  const current = list.data?.find((c) => c.id === selected);
  return (
    <div class={current ? 'split has-detail' : 'split'}>
      <section class="card stack conv-list-card">
        <div class="section-head-row">
          <h2>Conversations</h2>
          <button type="button" class="btn btn-small" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </button>
        </div>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {!list.data && list.loading && <Loading />}
        {list.data && list.data.length === 0 && <EmptyState>No conversations yet. Try the agent in “Try it”, or share its link.</EmptyState>}
        {list.data && list.data.length > 0 && (
          <ul class="conv-list" aria-label="Conversations, newest first">
            {list.data.map((c) => (
              <li key={c.id}>
                <a href={href('agents', agent.id, 'conversations', c.id)} class={c.id === selected ? 'conv active' : 'conv'} aria-current={c.id === selected ? 'true' : undefined}>
                  <span class="conv-top">
                    <span class="conv-name">{c.user_name || 'Anonymous visitor'}</span>
                    <Badge kind={statusKind[c.status]}>{c.status}</Badge>
                  </span>
                  <span class="conv-meta small muted">
                    {c.user_email ? `${c.user_email} · ` : ''}
                    {c.message_count} messages · {formatDate(c.updated_at)}
                    {c.rating !== null ? ` · ${c.rating}/5` : ''}
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
          <Transcript conversation={current} />
        </div>
      ) : (
        list.data && list.data.length > 0 && <div class="detail detail-empty muted">Choose a conversation to read it.</div>
      )}
    </div>
  );
}
