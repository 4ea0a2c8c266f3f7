import type { ConversationChannel } from '../../providers/channels/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { InboxFilter, InboxRepo } from './inbox-repo.js';
import type { Assignee, People, TeamHandoffState } from './people.js';
import type { ChatRepo } from './repo.js';
import type { ConversationRow } from './tables.js';

export interface InboxItem {
  id: string;
  chatbot_id: string;
  agent_name: string;
  session_id: string;
  user_name: string | null;
  user_email: string | null;
  status: ConversationRow['status'];
  handled_by: ConversationRow['handled_by'];
  taken_at: string | null;
  escalated_at: string | null;
  assigned_to: Assignee | null;
  last_message: string | null;
  last_message_at: string;
  message_count: number;
  unread: boolean;
  /** verified visitors: the owner's site vouched for the visitor, and their user id there */
  verified: boolean;
  visitor_user_id: string | null;
  channel: ConversationChannel;
  created_at: string;
  updated_at: string;
}

export interface Note {
  id: string;
  content: string;
  author: { user_id: string | null; name: string };
  created_at: string;
}

export interface InboxQuery {
  status?: ConversationRow['status'];
  chatbot_id?: string;
  /** `me`, `unassigned` or a user id of the account */
  assigned?: string;
  page: number;
  limit: number;
}

export interface InboxDeps {
  repo: ChatRepo;
  inbox: InboxRepo;
  agents: AgentsService;
  people: People;
  clock: Clock;
  /** resolves one agent's idle conversations (the list shows them resolved, as the agent's list does) */
  resolveIdle: (chatbotId: string) => void;
}

export const NOT_A_MEMBER = 'user_id: not a member of this team';

/**
 * One inbox for the whole account (docs/API-NOTES.md "Inbox"): every agent's conversations,
 * assignment to a person of the team, internal notes the visitor never sees.
 */
export class InboxService {
  constructor(private readonly deps: InboxDeps) {}

  list(user: AuthUser, q: InboxQuery): { items: InboxItem[]; total: number } {
    const { agents, inbox, people } = this.deps;
    const scope: ChatbotRow[] = q.chatbot_id ? [agents.get(user, q.chatbot_id)] : agents.list(user);
    for (const agent of scope) this.deps.resolveIdle(agent.id);
    const names = new Map(scope.map((a) => [a.id, a.name]));
    const filter: InboxFilter = { chatbotIds: [...names.keys()], status: q.status };
    if (q.assigned === 'me') filter.assignedTo = user.actor.id;
    else if (q.assigned === 'unassigned') filter.assignedTo = null;
    else if (q.assigned !== undefined) {
      if (!people.inAccount(user, q.assigned)) throw badRequest('assigned: not a member of this team');
      filter.assignedTo = q.assigned;
    }
    const rows = inbox.page(filter, q.limit, (q.page - 1) * q.limit);
    const items = rows.map((c) => ({
      id: c.id,
      chatbot_id: c.chatbot_id,
      agent_name: names.get(c.chatbot_id) ?? '',
      session_id: c.session_id,
      user_name: c.user_name,
      user_email: c.user_email,
      status: c.status,
      handled_by: c.handled_by,
      taken_at: c.taken_at,
      escalated_at: c.escalated_at,
      assigned_to: people.assignee(c.assigned_to),
      last_message: c.last_message,
      last_message_at: c.updated_at,
      message_count: c.message_count,
      unread: c.message_count > 0 && (c.owner_read_at === null || c.updated_at > c.owner_read_at),
      verified: c.verified,
      visitor_user_id: c.visitor_user_id,
      channel: c.channel,
      created_at: c.created_at,
      updated_at: c.updated_at,
    }));
    return { items, total: inbox.count(filter) };
  }

  /** Assigns the conversation to a person of the account, or nobody (null). 400 for anyone else, nothing changed. */
  assign(user: AuthUser, chatbotId: string, conversationId: string, userId: string | null): TeamHandoffState {
    const conversation = this.owned(user, chatbotId, conversationId);
    if (userId !== null && !this.deps.people.inAccount(user, userId)) throw badRequest(NOT_A_MEMBER);
    const row = this.deps.inbox.setAssignee(conversation.id, userId);
    if (!row) throw notFound('Conversation');
    return this.deps.people.teamState(row);
  }

  notes(user: AuthUser, chatbotId: string, conversationId: string): Note[] {
    const conversation = this.owned(user, chatbotId, conversationId);
    return this.deps.inbox.notes(conversation.id).map(noteView);
  }

  addNote(user: AuthUser, chatbotId: string, conversationId: string, text: string): Note {
    const conversation = this.owned(user, chatbotId, conversationId);
    const content = text.trim();
    if (!content) throw badRequest('content: must not be empty');
    const row = this.deps.inbox.insertNote({
      id: newId(),
      conversation_id: conversation.id,
      chatbot_id: conversation.chatbot_id,
      author_user_id: user.actor.id,
      author_name: user.actor.name,
      content,
      created_at: isoNow(this.deps.clock),
    });
    return noteView(row);
  }

  /** A conversation of one of the account's agents; 404 alike for missing, another agent's and another account's. */
  private owned(user: AuthUser, chatbotId: string, conversationId: string): ConversationRow {
    const conversation = this.deps.repo.findConversation(conversationId);
    if (!conversation || !this.deps.agents.holding(user, conversation, chatbotId)) throw notFound('Conversation');
    return conversation;
  }
}

function noteView(n: {
  id: string;
  content: string;
  author_user_id: string | null;
  author_name: string;
  created_at: string;
}): Note {
  return {
    id: n.id,
    content: n.content,
    author: { user_id: n.author_user_id, name: n.author_name },
    created_at: n.created_at,
  };
}
