import { and, asc, desc, eq, gt, gte, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { secureDeleting } from '../../platform/db/secure-delete.js';
import { chatbots } from '../agents/tables.js';
import { conversations, messages, type ConversationRow, type MessageRow } from './tables.js';

/** a message to store; who sent it is a person's reply's only */
export type NewMessage = Omit<MessageRow, 'sender_user_id' | 'sender_name'> &
  Partial<Pick<MessageRow, 'sender_user_id' | 'sender_name'>>;
/** a new conversation is nobody's in the inbox */
export type NewConversation = Omit<ConversationRow, 'assigned_to'>;

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
  // run for every message stored (the live hub, the handoff check): prepared once, not built per call
  private readonly conversationById;
  private readonly messageById;

  constructor(private readonly db: Db) {
    this.conversationById = db
      .select()
      .from(conversations)
      .where(eq(conversations.id, p('id')))
      .prepare();
    this.messageById = db
      .select()
      .from(messages)
      .where(eq(messages.id, p('id')))
      .prepare();
    this.bySession = db
      .select()
      .from(conversations)
      .where(and(eq(conversations.chatbot_id, p('chatbotId')), eq(conversations.session_id, p('sessionId'))))
      .prepare();
    this.insertConversationRow = db
      .insert(conversations)
      .values(
        allColumns([
          'id',
          'chatbot_id',
          'session_id',
          'user_name',
          'user_email',
          'status',
          'rating',
          'message_count',
          'verified',
          'visitor_user_id',
          'channel',
          'created_at',
          'updated_at',
        ]),
      )
      .returning()
      .prepare();
    this.insertMessageRow = db
      .insert(messages)
      .values(
        allColumns([
          'id',
          'conversation_id',
          'chatbot_id',
          'role',
          'content',
          'timestamp',
          'response_time_ms',
          'sources_json',
          'interrupted',
        ]),
      )
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
    return this.conversationById.get({ id });
  }

  insertConversation(row: NewConversation): ConversationRow {
    return this.insertConversationRow.get(row)!;
  }

  /** Visitor details, when given, overwrite what the conversation had. */
  updateVisitor(id: string, patch: { user_name?: string; user_email?: string }): void {
    if (Object.keys(patch).length === 0) return;
    this.db.update(conversations).set(patch).where(eq(conversations.id, id)).run();
  }

  /** The site vouched for the visitor (verified visitors): the conversation is that user's from now on. */
  markVerified(id: string, visitorUserId: string): ConversationRow {
    return this.db
      .update(conversations)
      .set({ verified: true, visitor_user_id: visitorUserId })
      .where(eq(conversations.id, id))
      .returning()
      .get()!;
  }

  /** Appends a message and keeps the conversation's count and updated_at in step. */
  insertMessage(row: NewMessage): MessageRow {
    this.insertMessageRow.run(row);
    this.countMessage.run({ timestamp: row.timestamp, conversationId: row.conversation_id });
    return { sender_user_id: null, sender_name: null, ...row };
  }

  /** Appends a message with every column (a person's reply sets `from_person`); counts it like `insertMessage`. */
  insertFullMessage(row: MessageRow): MessageRow {
    this.db.insert(messages).values(row).run();
    this.countMessage.run({ timestamp: row.timestamp, conversationId: row.conversation_id });
    return row;
  }

  /**
   * Erasure (docs/API-NOTES.md "Erasure"): the conversation and its messages; what other modules hold about
   * it goes through the `conversation.erased` event in the same transaction. Call inside one
   * (and `erasing`, so deleted rows are overwritten in the file); null when it is gone already.
   */
  eraseConversation(conversation: ConversationRow): { messages: number } | null {
    const messagesErased = this.db.delete(messages).where(eq(messages.conversation_id, conversation.id)).run().changes;
    if (this.db.delete(conversations).where(eq(conversations.id, conversation.id)).run().changes === 0) return null;
    return { messages: messagesErased };
  }

  /** Runs `fn` so that what it deletes is overwritten in the file, not only unlinked (erasure). */
  erasing<T>(fn: () => T): T {
    return secureDeleting(this.db, fn);
  }

  /**
   * An agent's conversations, newest activity first; `status` keeps one state, `q` those whose
   * transcript holds the text (LIKE, case-insensitive for ASCII, wildcards escaped).
   */
  listConversations(
    chatbotId: string,
    filter: { status?: ConversationRow['status']; q?: string } = {},
  ): ConversationRow[] {
    const where: SQL[] = [eq(conversations.chatbot_id, chatbotId)];
    if (filter.status) where.push(eq(conversations.status, filter.status));
    if (filter.q) {
      const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(
        sql`exists (select 1 from messages m where m.conversation_id = "conversations"."id" and m.chatbot_id = ${chatbotId} and m.content like ${pattern} escape '\\')`,
      );
    }
    return this.db
      .select()
      .from(conversations)
      .where(and(...where))
      .orderBy(desc(conversations.updated_at), desc(conversations.id))
      .all();
  }

  findMessage(id: string): MessageRow | undefined {
    return this.messageById.get({ id });
  }

  /** Whether an answer (the agent's or a person's) came after the visitor's message. */
  answeredSince(message: MessageRow): boolean {
    const answer = this.db
      .select({ id: messages.id })
      .from(messages)
      .where(
        and(
          eq(messages.conversation_id, message.conversation_id),
          eq(messages.role, 'assistant'),
          gte(messages.timestamp, message.timestamp),
        ),
      )
      .limit(1)
      .get();
    return answer !== undefined;
  }

  setFeedback(messageId: string, value: number | null): void {
    this.db.update(messages).set({ feedback: value }).where(eq(messages.id, messageId)).run();
  }

  /**
   * Thumbs up and down per conversation of an agent, for the conversations that have any (read
   * through the partial index of rated answers, so only rated rows are touched).
   */
  thumbsByConversation(chatbotId: string): Map<string, { up: number; down: number }> {
    const rows = this.db.$client
      .prepare<[string], { conversation_id: string; up: number; down: number }>(
        'SELECT conversation_id, sum(feedback = 1) AS up, sum(feedback = -1) AS down FROM messages WHERE chatbot_id = ? AND feedback IS NOT NULL GROUP BY conversation_id',
      )
      .all(chatbotId);
    return new Map(rows.map((r) => [r.conversation_id, { up: r.up, down: r.down }]));
  }

  /** The visitor message just before an answer (the question it answered). */
  visitorMessageBefore(conversationId: string, messageId: string): string | undefined {
    const row = this.db.$client
      .prepare<[string, string], { content: string }>(
        "SELECT content FROM messages WHERE conversation_id = ? AND role = 'user' AND from_person = 0 AND rowid < (SELECT rowid FROM messages WHERE id = ?) ORDER BY rowid DESC LIMIT 1",
      )
      .get(conversationId, messageId);
    return row?.content;
  }

  /** The conversation's two latest visitor messages, latest first. */
  latestVisitorMessages(conversationId: string): [string | undefined, string | undefined] {
    const rows = this.db.$client
      .prepare<[string], { content: string }>(
        "SELECT content FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY rowid DESC LIMIT 2",
      )
      .all(conversationId);
    return [rows[0]?.content, rows[1]?.content];
  }

  /** Thumbs up and down on a conversation's answers. */
  feedbackCounts(conversationId: string): { up: number; down: number } {
    const row = this.db
      .select({
        up: sql<number>`coalesce(sum(case when ${messages.feedback} = 1 then 1 else 0 end), 0)`,
        down: sql<number>`coalesce(sum(case when ${messages.feedback} = -1 then 1 else 0 end), 0)`,
      })
      .from(messages)
      .where(and(eq(messages.conversation_id, conversationId), isNotNull(messages.feedback)))
      .get();
    return { up: row?.up ?? 0, down: row?.down ?? 0 };
  }

  /**
   * Marks the conversation's owner as e-mailed about its escalation, unless they were already:
   * true when this call marked it (the one e-mail per conversation).
   */
  markOwnerNotified(id: string, at: string): boolean {
    return (
      this.db
        .update(conversations)
        .set({ owner_notified_at: at })
        .where(and(eq(conversations.id, id), sql`${conversations.owner_notified_at} IS NULL`))
        .run().changes > 0
    );
  }

  /** How many of the agent's conversations e-mailed the owner about an escalation after `sinceIso`. */
  ownerNotifiedSince(chatbotId: string, sinceIso: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(conversations)
      .where(and(eq(conversations.chatbot_id, chatbotId), gt(conversations.owner_notified_at, sinceIso)))
      .get()!.n;
  }

  /** The earliest escalation e-mail of the agent after `sinceIso` (when its hour ends, the cap eases). */
  firstOwnerNotifiedSince(chatbotId: string, sinceIso: string): string | null {
    return (
      this.db
        .select({ at: sql<string | null>`min(${conversations.owner_notified_at})` })
        .from(conversations)
        .where(and(eq(conversations.chatbot_id, chatbotId), gt(conversations.owner_notified_at, sinceIso)))
        .get()?.at ?? null
    );
  }

  updateConversation(
    id: string,
    patch: Partial<
      Pick<
        ConversationRow,
        | 'status'
        | 'rating'
        | 'escalated_at'
        | 'resolved_at'
        | 'owner_read_at'
        | 'handled_by'
        | 'taken_at'
        | 'taken_by'
        | 'assigned_to'
      >
    >,
  ): ConversationRow {
    if (Object.keys(patch).length === 0) return this.findConversation(id)!;
    return this.db.update(conversations).set(patch).where(eq(conversations.id, id)).returning().get()!;
  }

  /**
   * Active conversations whose last message is older than their agent's `auto_resolve_after_h`
   * (agents with null never resolve by themselves), at most `limit`, with their agent's owner.
   */
  idleConversations(
    nowIso: string,
    chatbotId: string | null,
    limit: number,
  ): Array<{ conversation: ConversationRow; account_id: string }> {
    const rows = this.db
      .select({ conversation: conversations, account_id: chatbots.user_id })
      .from(conversations)
      .innerJoin(chatbots, eq(chatbots.id, conversations.chatbot_id))
      .where(
        and(
          eq(conversations.status, 'active'),
          isNotNull(chatbots.auto_resolve_after_h),
          chatbotId ? eq(conversations.chatbot_id, chatbotId) : undefined,
          sql`${conversations.updated_at} < strftime('%Y-%m-%dT%H:%M:%fZ', ${nowIso}, '-' || ${chatbots.auto_resolve_after_h} || ' hours')`,
        ),
      )
      .limit(limit)
      .all();
    return rows;
  }

  listMessages(conversationId: string): MessageRow[] {
    return this.db
      .select()
      .from(messages)
      .where(eq(messages.conversation_id, conversationId))
      .orderBy(asc(messages.timestamp), asc(messages.id))
      .all();
  }

  /** A person's newest `limit` messages in a conversation, oldest first (the visitor's stream sends them on connect). */
  personMessages(conversationId: string, limit: number): MessageRow[] {
    return this.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversation_id, conversationId), eq(messages.from_person, true)))
      .orderBy(desc(messages.timestamp), desc(messages.id))
      .limit(limit)
      .all()
      .reverse();
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
      .where(
        and(eq(messages.conversation_id, conversationId), eq(messages.role, 'user'), gte(messages.timestamp, sinceIso)),
      )
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
