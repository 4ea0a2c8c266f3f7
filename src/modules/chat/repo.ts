import { and, asc, desc, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { conversations, messages, type ConversationRow, type MessageRow } from './tables.js';

export type NewMessage = typeof messages.$inferInsert;

export class ChatRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  findConversationBySession(chatbotId: string, sessionId: string): ConversationRow | undefined {
    return this.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.chatbot_id, chatbotId), eq(conversations.session_id, sessionId)))
      .get();
  }

  findConversation(id: string): ConversationRow | undefined {
    return this.db.select().from(conversations).where(eq(conversations.id, id)).get();
  }

  insertConversation(row: typeof conversations.$inferInsert): ConversationRow {
    return this.db.insert(conversations).values(row).returning().get();
  }

  /** Visitor details, when given, overwrite what the conversation had. */
  updateVisitor(id: string, patch: { user_name?: string; user_email?: string }): void {
    if (Object.keys(patch).length === 0) return;
    this.db.update(conversations).set(patch).where(eq(conversations.id, id)).run();
  }

  /** Appends a message and keeps the conversation's count and updated_at in step. */
  insertMessage(row: NewMessage): MessageRow {
    const message = this.db.insert(messages).values(row).returning().get();
    this.db
      .update(conversations)
      .set({ message_count: sql`${conversations.message_count} + 1`, updated_at: row.timestamp })
      .where(eq(conversations.id, row.conversation_id))
      .run();
    return message;
  }

  listConversations(chatbotId: string): ConversationRow[] {
    return this.db
      .select()
      .from(conversations)
      .where(eq(conversations.chatbot_id, chatbotId))
      .orderBy(desc(conversations.updated_at), desc(conversations.id))
      .all();
  }

  listMessages(conversationId: string): MessageRow[] {
    return this.db.select().from(messages).where(eq(messages.conversation_id, conversationId)).orderBy(asc(messages.timestamp), asc(messages.id)).all();
  }

  /** The newest `limit` messages before the given one, oldest first (history for the prompt). */
  recentMessages(conversationId: string, beforeMessageId: string, limit: number): MessageRow[] {
    return this.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversation_id, conversationId), sql`${messages.id} <> ${beforeMessageId}`))
      .orderBy(desc(messages.timestamp), desc(messages.id))
      .limit(limit)
      .all()
      .reverse();
  }

  /** Visitor messages of a conversation since `sinceIso`, and the earliest of them (session rate). */
  userMessagesSince(conversationId: string, sinceIso: string): { count: number; earliest: string | null } {
    return this.db
      .select({ count: sql<number>`count(*)`, earliest: sql<string | null>`min(${messages.timestamp})` })
      .from(messages)
      .where(and(eq(messages.conversation_id, conversationId), eq(messages.role, 'user'), gte(messages.timestamp, sinceIso)))
      .get()!;
  }

  /** Visitor messages of an agent since `sinceIso` (the daily cap); reads the (chatbot, time, role) index only. */
  agentUserMessagesSince(chatbotId: string, sinceIso: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(messages)
      .where(and(eq(messages.chatbot_id, chatbotId), gte(messages.timestamp, sinceIso), eq(messages.role, 'user')))
      .get()!.n;
  }
}
