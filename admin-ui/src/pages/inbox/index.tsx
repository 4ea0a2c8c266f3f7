import { useState } from 'preact/hooks';
import { get } from '../../api.js';
import { href } from '../../router.js';
import type { Agent, Assignee, InboxItem } from '../../types.js';
import { EmptyState, Loading, Notice, formatDate, useAsync } from '../../ui.js';
import { ConversationTop, type StatusFilter, StatusFilterField } from '../conversations/transcript.js';
import { InboxDetail } from './detail.js';
import { SavedRepliesSection } from './saved-replies.js';

/** Conversations per page of the inbox. */
const PAGE_SIZE = 50;

/**
 * One inbox for the whole account (docs/ADMIN-UI.md "Inbox"): every agent's conversations,
 * filtered by status, agent and assignee; a conversation opens beside the list with its notes.
 * `#/inbox/<chatbot_id>/<conversation_id>` opens one.
 */
export function InboxPage({ chatbotId, conversationId }: { chatbotId?: string; conversationId?: string }) {
  const [status, setStatus] = useState<StatusFilter>('');
  const [agentFilter, setAgentFilter] = useState('');
  const [assigned, setAssigned] = useState('');
  const [page, setPage] = useState(1);
  const agents = useAsync(() => get<Agent[]>('/api/chatbots'), []);
  const assignees = useAsync(() => get<Assignee[]>('/api/team/assignees'), []);
  const query = new URLSearchParams({
    ...(status ? { status } : {}),
    ...(agentFilter ? { chatbot_id: agentFilter } : {}),
    ...(assigned ? { assigned } : {}),
    page: String(page),
    limit: String(PAGE_SIZE),
  }).toString();
  const list = useAsync(() => get<InboxItem[]>(`/api/inbox?${query}`), [query]);
  const filter = (set: (v: string) => void) => (e: { currentTarget: HTMLSelectElement }) => {
    set(e.currentTarget.value);
    setPage(1);
  };
  const agent = agents.data?.find((a) => a.id === chatbotId);
  const open = Boolean(chatbotId && conversationId);
  return (
    <>
      <div class="page-head">
        <h1>Inbox</h1>
      </div>
      <div class={open ? 'split has-detail' : 'split'}>
        <section class="card stack conv-list-card" aria-labelledby="inbox-list-title">
          <div class="section-head-row">
            <h2 id="inbox-list-title">All conversations</h2>
            <button type="button" class="btn btn-small" onClick={() => void list.reload()} disabled={list.loading}>
              Refresh
            </button>
          </div>
          <div class="conv-filters">
            <StatusFilterField
              value={status}
              onChange={(v) => {
                setStatus(v);
                setPage(1);
              }}
            />
            <label>
              <span class="small muted">Agent</span>
              <select value={agentFilter} onChange={filter(setAgentFilter)}>
                <option value="">All agents</option>
                {agents.data?.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              <span class="small muted">Assigned</span>
              <select value={assigned} onChange={filter(setAssigned)}>
                <option value="">Anyone or nobody</option>
                <option value="me">Assigned to me</option>
                <option value="unassigned">Unassigned</option>
                {assignees.data?.map((a) => (
                  <option key={a.user_id} value={a.user_id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {list.error && <Notice kind="error">{list.error}</Notice>}
          {!list.data && list.loading && <Loading />}
          {list.data && list.data.length === 0 && (
            <EmptyState>{page > 1 ? 'No more conversations.' : 'No conversations match.'}</EmptyState>
          )}
          {list.data && list.data.length > 0 && (
            <ul class="conv-list" aria-label="Conversations, newest first">
              {list.data.map((c) => {
                const selected = c.id === conversationId;
                return (
                  <li key={c.id}>
                    <a
                      href={href('inbox', c.chatbot_id, c.id)}
                      class={selected ? 'conv active' : 'conv'}
                      aria-current={selected ? 'true' : undefined}
                    >
                      <ConversationTop c={c} selected={selected} />
                      <span class="conv-meta small muted">
                        {c.agent_name} · {c.assigned_to ? c.assigned_to.name : 'unassigned'}
                        {c.handled_by === 'person' ? ' · a person answers' : ''} · {formatDate(c.last_message_at)}
                      </span>
                      {c.last_message && <span class="conv-preview small">{c.last_message}</span>}
                    </a>
                  </li>
                );
              })}
            </ul>
          )}
          {(page > 1 || list.data?.length === PAGE_SIZE) && (
            <div class="actions">
              <button type="button" class="btn btn-small" disabled={page === 1} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span class="small muted">Page {page}</span>
              <button
                type="button"
                class="btn btn-small"
                disabled={(list.data?.length ?? 0) < PAGE_SIZE}
                onClick={() => setPage(page + 1)}
              >
                Older
              </button>
            </div>
          )}
        </section>
        {open ? (
          <div class="detail">
            <a class="back-link" href="#/inbox">
              ← All conversations
            </a>
            {agents.error && <Notice kind="error">{agents.error}</Notice>}
            {!agents.data && <Loading />}
            {agents.data && !agent && <Notice kind="error">Conversation not found.</Notice>}
            {agent && conversationId && (
              <InboxDetail
                key={conversationId}
                agent={agent}
                conversationId={conversationId}
                assignees={assignees.data ?? []}
                onChanged={() => void list.reload()}
              />
            )}
          </div>
        ) : (
          list.data &&
          list.data.length > 0 && <div class="detail detail-empty muted">Choose a conversation to read it.</div>
        )}
      </div>
      <SavedRepliesSection />
    </>
  );
}
