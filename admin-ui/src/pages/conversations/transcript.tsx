import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { get } from '../../api.js';
import type { ActionRun, Agent, Conversation, Message } from '../../types.js';
import { Badge, Loading, Notice, formatDate, useAsync } from '../../ui.js';
import { ChannelBadge } from '../channels/badge.js';
import { ActionRunItem, byTime } from './action-runs.js';
import { ReplyForm } from './reply-form.js';

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
export const thumbsText = (c: Conversation) =>
  c.thumbs_up + c.thumbs_down === 0 ? '' : ` · 👍 ${c.thumbs_up} 👎 ${c.thumbs_down}`;

export const statusKind: Record<Conversation['status'], string> = { active: 'busy', resolved: 'ok', escalated: 'bad' };

/**
 * "Verified": the owner's site vouched for the visitor (a valid user hash, docs/API-NOTES.md
 * "Verified visitors"); the title names the user id on the site.
 */
export function VerifiedBadge({ c }: { c: { verified?: boolean; visitor_user_id?: string | null } }) {
  if (!c.verified) return null;
  return (
    <span title={`Signed in on your site as ${c.visitor_user_id ?? ''}`}>
      <Badge kind="info">Verified</Badge>
    </span>
  );
}

/** A conversation's first line in a list: unread dot, visitor's name, status badge. */
export function ConversationTop(props: {
  c: {
    unread?: boolean;
    user_name: string | null;
    status: Conversation['status'];
    verified?: boolean;
    visitor_user_id?: string | null;
    channel?: Conversation['channel'];
  };
  selected: boolean;
}) {
  const { c } = props;
  return (
    <span class="conv-top">
      <span class="conv-name">
        {c.unread && !props.selected && <span class="unread-dot" role="img" aria-label="Unread" title="Unread" />}
        {c.user_name || 'Anonymous visitor'}
      </span>
      <span class="conv-badges">
        <ChannelBadge channel={c.channel} />
        <VerifiedBadge c={c} />
        <Badge kind={statusKind[c.status]}>{c.status}</Badge>
      </span>
    </span>
  );
}

/** A conversation list's status filter: '' is every status. */
export type StatusFilter = '' | Conversation['status'];

/** The "Status" select of the agent's conversations and of the inbox. */
export function StatusFilterField(props: { value: StatusFilter; onChange: (status: StatusFilter) => void }) {
  return (
    <label>
      <span class="small muted">Status</span>
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as StatusFilter)}>
        <option value="">All</option>
        <option value="active">Active</option>
        <option value="escalated">Escalated</option>
        <option value="resolved">Resolved</option>
      </select>
    </label>
  );
}

/** Live handoff: who answers the visitor now (absent from older servers: the agent). */
export type HandledConversation = Conversation & { handled_by?: 'agent' | 'person'; taken_at?: string | null };
export type HandoffState = Pick<HandledConversation, 'status' | 'handled_by' | 'taken_at' | 'escalated_at'> & {
  conversation_id: string;
};
type TranscriptMessage = Message & { from_person?: boolean; sender_name?: string | null };

export function Transcript({
  agent,
  conversation,
  onDelete,
  onStatus,
  onHandoff,
  onSent,
  controls,
  children,
}: {
  agent: Agent;
  conversation: HandledConversation;
  /** absent: no Delete button (the inbox, where operators work) */
  onDelete?: (button: HTMLButtonElement) => void;
  onStatus: (status: 'active' | 'resolved') => Promise<void>;
  onHandoff: (action: 'take' | 'hand-back') => Promise<void>;
  onSent: () => void;
  /** more controls under the heading (the inbox's assignee) */
  controls?: ComponentChildren;
  /** after the reply box (the inbox's notes) */
  children?: ComponentChildren;
}) {
  const messages = useAsync(
    () => get<TranscriptMessage[]>(`/api/chat/messages/${encodeURIComponent(conversation.id)}`),
    [conversation.id, conversation.updated_at, conversation.message_count],
  );
  // the actions the agent ran in it, shown among the messages where they happened
  const runs = useAsync(
    () =>
      get<ActionRun[]>(
        `/api/chatbots/${encodeURIComponent(agent.id)}/conversations/${encodeURIComponent(conversation.id)}/action-runs`,
      ),
    [agent.id, conversation.id, conversation.updated_at, conversation.message_count],
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
          <ChannelBadge channel={conversation.channel} />
          <VerifiedBadge c={conversation} />
          <Badge kind={statusKind[conversation.status]}>{conversation.status}</Badge>
          {person && <Badge kind="ok">a person is answering</Badge>}
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
          {onDelete && (
            <button type="button" class="btn btn-small btn-danger-text" onClick={(e) => onDelete(e.currentTarget)}>
              Delete conversation
            </button>
          )}
        </span>
      </div>
      {controls}
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
      {runs.error && <Notice kind="error">Actions: {runs.error}</Notice>}
      {messages.data && (
        <ol class="chat-log" aria-label="Messages">
          {byTime(messages.data, runs.data ?? []).map((item) => {
            if ('run' in item) return <ActionRunItem key={`run-${item.run.id}`} run={item.run} />;
            const m = item.message;
            return (
              <li key={m.id} class={`chat-msg chat-${m.role}${m.from_person ? ' chat-person' : ''}`}>
                <span class="chat-who">
                  {m.role === 'user' ? 'Visitor' : m.from_person ? m.sender_name || 'Team member' : 'Agent'}
                </span>
                <div class="chat-bubble">{m.content}</div>
                {m.interrupted && <span class="chat-note">(answer interrupted)</span>}
                {m.feedback === 1 && <span class="chat-note">Visitor’s feedback: helpful</span>}
                {m.feedback === -1 && <span class="chat-note">Visitor’s feedback: not helpful</span>}
                <time class="chat-time" dateTime={m.timestamp}>
                  {formatDate(m.timestamp)}
                </time>
              </li>
            );
          })}
        </ol>
      )}
      {person && <ReplyForm agent={agent} conversationId={conversation.id} onSent={onSent} />}
      {children}
    </section>
  );
}
