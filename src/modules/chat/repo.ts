import { and, asc, desc, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { LeadsRepo, secureDeleting } from '../leads/index.js';
import { conversations, messages, type ConversationRow, type MessageRow } from './tables.js';

export type NewMessage = MessageRow;
export type NewConversation = ConversationRow;

const p = sql.placeholder;

/** Placeholders named like the columns, for an insert prepared once (every column given). */
function allColumns<K extends string>(names: readonly K[]) {
  return Object.fromEntries(names.map((n) => [n, p(n)])) as unknown as Record<K, ReturnType<typeof p>>;
}

export class ChatRepo {
  // The queries of every chat turn, built and prepared once: drizzle builds SQL text per call
  // otherwise, which cost more than running them (chat bench profile).
  private readonly bySession;
  private readonly insertConversationRow;
  private readonly insertMessageRow;
  private readonly countMessage;
  private readonly recent;
  /** the leads feature's tables, for erasing a visitor's leads with their conversation (one transaction) */
  private readonly leads: LeadsRepo;

  constructor(private readonly db: Db) {
    this.leads = new LeadsRepo(db);
    this.bySession = db
      .select()
      .from(conversations)
      .where(and(eq(conversations.chatbot_id, p('chatbotId')), eq(conversations.session_id, p('sessionId'))))
      .prepare();
    this.insertConversationRow = db
      .insert(conversations)
      .values(allColumns(['id', 'chatbot_id', 'session_id', 'user_name', 'user_email', 'status', 'rating', 'message_count', 'created_at', 'updated_at']))
      .returning()
      .prepare();
    this.insertMessageRow = db
      .insert(messages)
      .values(allColumns(['id', 'conversation_id', 'chatbot_id', 'role', 'content', 'timestamp', 'response_time_ms', 'sources_json', 'interrupted']))
      .prepare();
    this.countMessage = db
      .update(conversations)
      .set({ message_count: sql`${conversations.message_count} + 1`, updated_at: sql`${p('timestamp')}` })
      .where(eq(conversations.id, p('conversationId')))
      .prepare();
    this.recent = db
      .select()
      .from(messages)
      .where(and(eq(messages.conversation_id, p('conversationId')), sql`${messages.id} <> ${p('beforeMessageId')}`))
      .orderBy(desc(messages.timestamp), desc(messages.id))
      .limit(p('limit'))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  findConversationBySession(chatbotId: string, sessionId: string): ConversationRow | undefined {
    return this.bySession.get({ chatbotId, sessionId });
  }

  findConversation(id: string): ConversationRow | undefined {
    return this.db.select().from(conversations).where(eq(conversations.id, id)).get();
  }

  insertConversation(row: NewConversation): ConversationRow {
    return this.insertConversationRow.get(row)!;
  }

  /** Visitor details, when given, overwrite what the conversation had. */
  updateVisitor(id: string, patch: { user_name?: string; user_email?: string }): void {
    if (Object.keys(patch).length === 0) return;
    this.db.update(conversations).set(patch).where(eq(conversations.id, id)).run();
  }

  /** Appends a message and keeps the conversation's count and updated_at in step. */
  insertMessage(row: NewMessage): MessageRow {
    this.insertMessageRow.run(row);
    this.countMessage.run({ timestamp: row.timestamp, conversationId: row.conversation_id });
    return row;
  }

  /**
   * Erasure (README "Erasure"): the conversation, its messages and, unless `keepLeads`, the
   * widget leads its visitor left in the same session of the agent with their alert e-mails.
   * Deleted rows are overwritten in the file (secure_delete). Call inside a transaction; null
   * when the conversation is gone already.
   */
  eraseConversation(conversation: ConversationRow, ownerId: string, keepLeads: boolean): { messages: number; leads: number; alerts: number } | null {
    const messagesErased = this.db.delete(messages).where(eq(messages.conversation_id, conversation.id)).run().changes;
    if (this.db.delete(conversations).where(eq(conversations.id, conversation.id)).run().changes === 0) return null;
    const leads = keepLeads
      ? { leads: 0, alerts: 0 }
      : this.leads.eraseWidgetLeads(ownerId, conversation.chatbot_id, this.leads.widgetLeadsOfSession(conversation.chatbot_id, conversation.session_id));
    return { messages: messagesErased, ...leads };
  }

  /** Runs `fn` so that what it deletes is overwritten in the file, not only unlinked (erasure). */
  erasing<T>(fn: () => T): T {
    return secureDeleting(this.db, fn);
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
    return this.recent.all({ conversationId, beforeMessageId, limit }).reverse();
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
