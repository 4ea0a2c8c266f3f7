/** What the live handoff tells about a conversation and its messages (the visitor's stream and the team's routes). */
import type { ConversationRow, MessageRow } from './tables.js';

export interface LiveMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  from_person: boolean;
  /** a person's message: the display name they had when sending it; null otherwise */
  sender_name: string | null;
}

export interface HandoffState {
  conversation_id: string;
  status: ConversationRow['status'];
  handled_by: ConversationRow['handled_by'];
  taken_at: string | null;
  escalated_at: string | null;
}

/** Who handles a conversation, as the owner's routes and the visitor's `ready` event give it. */
export function handoffState(c: ConversationRow): HandoffState {
  return {
    conversation_id: c.id,
    status: c.status,
    handled_by: c.handled_by,
    taken_at: c.taken_at,
    escalated_at: c.escalated_at,
  };
}

export function liveMessage(m: MessageRow): LiveMessage {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    timestamp: m.timestamp,
    from_person: m.from_person,
    sender_name: m.from_person ? m.sender_name : null,
  };
}
