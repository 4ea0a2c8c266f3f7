import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import type { LiveMessage } from './handoff-state.js';
import { conversations, messages } from './tables.js';

/** How much of the last message a conversation list shows. */
export const PREVIEW_CHARS = 200;

export interface VisitorConversation {
  id: string;
  created_at: string;
  updated_at: string;
  last_message_preview: string | null;
  message_count: number;
}

/** a message as the visitor sees it: the same fields the live stream sends */
export type VisitorMessage = LiveMessage;

/** A verified visitor's own conversations on one agent (the conversations_chatbot_visitor index). */
export class VisitorHistoryRepo {
  constructor(private readonly db: Db) {}

  conversations(chatbotId: string, visitorUserId: string, limit: number): VisitorConversation[] {
    return this.db
      .select({
        id: conversations.id,
        created_at: conversations.created_at,
        updated_at: conversations.updated_at,
        last_message_preview: sql<
          string | null
        >`(select substr(m.content, 1, ${PREVIEW_CHARS}) from messages m where m.conversation_id = "conversations"."id" order by m.timestamp desc, m.id desc limit 1)`,
        message_count: conversations.message_count,
      })
      .from(conversations)
      .where(and(eq(conversations.chatbot_id, chatbotId), eq(conversations.visitor_user_id, visitorUserId)))
      .orderBy(desc(conversations.created_at), desc(conversations.id))
      .limit(limit)
      .all();
  }

  /** The conversation's messages, oldest first; null when it is not this user's on this agent. */
  messages(chatbotId: string, visitorUserId: string, conversationId: string): VisitorMessage[] | null {
    const owner = this.db
      .select({ chatbot_id: conversations.chatbot_id, visitor_user_id: conversations.visitor_user_id })
      .from(conversations)
      .where(eq(conversations.id, conversationId))
      .get();
    if (owner?.chatbot_id !== chatbotId || owner.visitor_user_id !== visitorUserId) return null;
    return this.db
      .select({
        id: messages.id,
        role: messages.role,
        content: messages.content,
        timestamp: messages.timestamp,
        from_person: messages.from_person,
        sender_name: messages.sender_name,
      })
      .from(messages)
      .where(eq(messages.conversation_id, conversationId))
      .orderBy(asc(messages.timestamp), asc(messages.id))
      .all();
  }
}
