import { api, get } from '../../api.js';
import type { Agent, Assignee, Conversation, TeamHandoffState } from '../../types.js';
import { Loading, Notice, toast, useAsync } from '../../ui.js';
import { useLiveConversations } from '../conversations/live.js';
import { type HandledConversation, Transcript } from '../conversations/transcript.js';
import { NotesPane } from './notes.js';

/** Who the conversation is assigned to: anyone of the team, or nobody. */
function AssigneeControl({
  assignees,
  value,
  onChange,
}: {
  assignees: Assignee[];
  value: string | null;
  onChange: (userId: string | null) => void;
}) {
  return (
    <label class="assignee">
      <span class="small muted">Assigned to</span>
      <select value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value || null)}>
        <option value="">Nobody</option>
        {assignees.map((a) => (
          <option key={a.user_id} value={a.user_id}>
            {a.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * One conversation in the inbox: the agent's transcript (the Conversations tab's own component),
 * who it is assigned to, and the internal notes beside it. `onChanged` reloads the inbox's list.
 */
export function InboxDetail({
  agent,
  conversationId,
  assignees,
  onChanged,
}: {
  agent: Agent;
  conversationId: string;
  assignees: Assignee[];
  onChanged: () => void;
}) {
  const chatbot = encodeURIComponent(agent.id);
  const list = useAsync(() => get<HandledConversation[]>(`/api/chat/conversations/${chatbot}`), [agent.id]);
  useLiveConversations(agent, async () => {
    await list.reload();
    onChanged();
  });
  const current = list.data?.find((c) => c.id === conversationId);
  const conversation = encodeURIComponent(conversationId);
  const patch = (changes: Partial<HandledConversation>) =>
    list.setData((list.data ?? []).map((c) => (c.id === conversationId ? { ...c, ...changes } : c)));
  const fail = (err: unknown) => toast(err instanceof Error ? err.message : String(err), 'error');
  const applyState = (s: TeamHandoffState) => {
    const { conversation_id: _id, assigned_to, ...state } = s;
    patch({ ...state, assigned_to: assigned_to?.user_id ?? null });
    onChanged();
  };
  const setStatus = async (status: 'active' | 'resolved') => {
    try {
      const updated = await api<Conversation>('PATCH', `/api/chat/conversations/${chatbot}/${conversation}`, {
        status,
      });
      patch({ ...updated, unread: false });
      onChanged();
      toast(status === 'resolved' ? 'Marked resolved' : 'Conversation reopened');
    } catch (err) {
      fail(err);
    }
  };
  const handoff = async (action: 'take' | 'hand-back') => {
    try {
      applyState(
        await api<TeamHandoffState>(
          'POST',
          action === 'take'
            ? `/api/chat/conversations/${chatbot}/${conversation}/take`
            : `/api/chat/conversations/${chatbot}/${conversation}/hand-back`,
        ),
      );
      toast(action === 'take' ? 'You are answering this visitor; the agent stays silent' : 'The agent answers again');
    } catch (err) {
      fail(err);
    }
  };
  const assign = async (userId: string | null) => {
    try {
      const state = await api<TeamHandoffState>('PUT', `/api/chat/conversations/${chatbot}/${conversation}/assignee`, {
        user_id: userId,
      });
      applyState(state);
      toast(state.assigned_to ? `Assigned to ${state.assigned_to.name}` : 'Unassigned');
    } catch (err) {
      fail(err);
    }
  };
  if (list.error) return <Notice kind="error">{list.error}</Notice>;
  if (!list.data) return <Loading />;
  if (!current) return <Notice kind="error">Conversation not found.</Notice>;
  return (
    <div class="inbox-detail">
      <Transcript
        agent={agent}
        conversation={current}
        onStatus={setStatus}
        onHandoff={handoff}
        onSent={() => void list.reload()}
        controls={<AssigneeControl assignees={assignees} value={current.assigned_to} onChange={assign} />}
      />
      <NotesPane chatbotId={agent.id} conversationId={conversationId} />
    </div>
  );
}
