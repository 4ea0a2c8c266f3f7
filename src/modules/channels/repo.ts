import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import type { InboundMessage } from '../../providers/channels/index.js';
import {
  type ChannelChatRow,
  type ChannelConnectionRow,
  type ChannelInboundRow,
  type ChannelOutboxRow,
  channelChats,
  channelConnections,
  channelInbound,
  channelOutbox,
} from './tables.js';

export type NewConnection = typeof channelConnections.$inferInsert;

/** The channels module's tables. Only the main thread writes; every write is one statement or transaction. */
export class ChannelsRepo {
  /** the channel chat a conversation belongs to: looked up for every message stored, so prepared once */
  private readonly chatOfConversationId;

  constructor(private readonly db: Db) {
    this.chatOfConversationId = db
      .select()
      .from(channelChats)
      .where(eq(channelChats.conversation_id, sql.placeholder('conversationId')))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn);
  }

  connection(id: string): ChannelConnectionRow | undefined {
    return this.db.select().from(channelConnections).where(eq(channelConnections.id, id)).get();
  }

  connectionOf(chatbotId: string, channel: string): ChannelConnectionRow | undefined {
    return this.db
      .select()
      .from(channelConnections)
      .where(and(eq(channelConnections.chatbot_id, chatbotId), sql`${channelConnections.channel} = ${channel}`))
      .get();
  }

  connectionsOf(chatbotId: string): ChannelConnectionRow[] {
    return this.db.select().from(channelConnections).where(eq(channelConnections.chatbot_id, chatbotId)).all();
  }

  byAccountHash(hash: string): ChannelConnectionRow | undefined {
    return this.db.select().from(channelConnections).where(eq(channelConnections.account_hash, hash)).get();
  }

  /** The connections that receive messages now (started with the server). */
  connected(): ChannelConnectionRow[] {
    return this.db.select().from(channelConnections).where(eq(channelConnections.state, 'connected')).all();
  }

  /**
   * Inserts the agent's connection to a network, or updates it in place (a new token for the same
   * agent keeps the connection's id, so its chats and the replies waiting in its outbox stay).
   */
  saveConnection(row: NewConnection): ChannelConnectionRow {
    const { id, ...fields } = row;
    return this.db
      .insert(channelConnections)
      .values(row)
      .onConflictDoUpdate({ target: channelConnections.id, set: fields })
      .returning()
      .get();
  }

  deleteConnection(id: string): void {
    this.db.delete(channelConnections).where(eq(channelConnections.id, id)).run();
  }

  /** Puts the connection in `error`; true when it was connected until now (the owner is told once). */
  markError(id: string, error: string, now: string): boolean {
    const changed = this.db
      .update(channelConnections)
      .set({ state: 'error', error, updated_at: now })
      .where(and(eq(channelConnections.id, id), eq(channelConnections.state, 'connected')))
      .run();
    return changed.changes > 0;
  }

  /**
   * Stores a batch of messages and the offset that will confirm them, in one transaction: the
   * network is told only after this. The same update twice is kept once. Returns the new rows.
   */
  storeInbound(
    connectionId: string,
    messages: InboundMessage[],
    nextOffset: number | null,
    now: string,
  ): ChannelInboundRow[] {
    return this.transaction(() => {
      const rows: ChannelInboundRow[] = [];
      for (const m of messages) {
        const row = this.db
          .insert(channelInbound)
          .values({
            id: newId(),
            connection_id: connectionId,
            external_id: m.externalId,
            chat_id: m.chatId,
            user_id: m.userId,
            user_name: m.userName,
            text: m.text,
            contact_phone: m.contact?.phone ?? null,
            state: 'queued',
            received_at: now,
          })
          .onConflictDoNothing()
          .returning()
          .get();
        if (!row) continue;
        rows.push(row);
        // the person's last message: WhatsApp's reply window counts from it
        this.chat(connectionId, m.chatId, now);
        this.db
          .update(channelChats)
          .set({ last_inbound_at: now, ...(m.thread ? { reply_thread: JSON.stringify(m.thread) } : {}) })
          .where(and(eq(channelChats.connection_id, connectionId), eq(channelChats.chat_id, m.chatId)))
          .run();
      }
      const set: Partial<ChannelConnectionRow> = {};
      if (nextOffset !== null) set.update_offset = nextOffset;
      if (rows.length > 0) set.last_message_at = now;
      if (Object.keys(set).length > 0)
        this.db.update(channelConnections).set(set).where(eq(channelConnections.id, connectionId)).run();
      return rows;
    });
  }

  /**
   * The place of a stored message among those its sender wrote to the connection since a time
   * (the e-mail channel's daily cap): 1 for the first, counted in the order they were stored.
   */
  placeOfSender(row: ChannelInboundRow, sinceIso: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(channelInbound)
      .where(
        and(
          eq(channelInbound.connection_id, row.connection_id),
          eq(channelInbound.user_id, row.user_id),
          sql`${channelInbound.received_at} >= ${sinceIso}`,
          sql`rowid <= (SELECT rowid FROM ${channelInbound} WHERE ${channelInbound.id} = ${row.id})`,
        ),
      )
      .get()!.n;
  }

  inbound(id: string): ChannelInboundRow | undefined {
    return this.db.select().from(channelInbound).where(eq(channelInbound.id, id)).get();
  }

  markInboundStored(id: string, userMessageId: string): void {
    this.db.update(channelInbound).set({ user_message_id: userMessageId }).where(eq(channelInbound.id, id)).run();
  }

  /** Answered (or given up on): the text goes, the conversation holds it. */
  finishInbound(id: string, state: 'done' | 'failed', error: string | null = null): void {
    this.db
      .update(channelInbound)
      .set({ state, error, text: null, contact_phone: null })
      .where(eq(channelInbound.id, id))
      .run();
  }

  /** The person's chat on the connection, made at their first message with a random session id. */
  chat(connectionId: string, chatId: string, now: string): ChannelChatRow {
    const found = this.db
      .select()
      .from(channelChats)
      .where(and(eq(channelChats.connection_id, connectionId), eq(channelChats.chat_id, chatId)))
      .get();
    if (found) return found;
    return this.db
      .insert(channelChats)
      .values({
        id: newId(),
        connection_id: connectionId,
        chat_id: chatId,
        session_id: `ch_${randomBytes(18).toString('base64url')}`,
        conversation_id: null,
        created_at: now,
      })
      .returning()
      .get();
  }

  /** Counts an answer; true when the share-your-phone button is due with it (asked once per chat). */
  countAnswer(chatRowId: string, askAfter: number | null): boolean {
    const row = this.db
      .update(channelChats)
      .set({ answers: sql`${channelChats.answers} + 1` })
      .where(eq(channelChats.id, chatRowId))
      .returning()
      .get();
    if (!row || askAfter === null || row.contact_asked || row.answers < askAfter) return false;
    this.markContactAsked(chatRowId);
    return true;
  }

  markContactAsked(chatRowId: string): void {
    this.db.update(channelChats).set({ contact_asked: true }).where(eq(channelChats.id, chatRowId)).run();
  }

  linkConversation(chatRowId: string, conversationId: string): void {
    this.db.update(channelChats).set({ conversation_id: conversationId }).where(eq(channelChats.id, chatRowId)).run();
  }

  /** The person's chat the outgoing message goes to (its reply window). */
  chatOf(connectionId: string, chatId: string): ChannelChatRow | undefined {
    return this.db
      .select()
      .from(channelChats)
      .where(and(eq(channelChats.connection_id, connectionId), eq(channelChats.chat_id, chatId)))
      .get();
  }

  chatOfConversation(conversationId: string): ChannelChatRow | undefined {
    return this.chatOfConversationId.get({ conversationId });
  }

  /** Erasure: the chat's record, what came in and what waits to go out (the next message starts afresh). */
  eraseChat(sessionId: string): void {
    const chat = this.db.select().from(channelChats).where(eq(channelChats.session_id, sessionId)).get();
    if (!chat) return;
    const ofChat = (t: typeof channelInbound | typeof channelOutbox) =>
      and(eq(t.connection_id, chat.connection_id), eq(t.chat_id, chat.chat_id));
    this.db.delete(channelInbound).where(ofChat(channelInbound)).run();
    this.db.delete(channelOutbox).where(ofChat(channelOutbox)).run();
    this.db.delete(channelChats).where(eq(channelChats.id, chat.id)).run();
  }

  /** Queues a message to a chat; a stored message is queued once (null when it already was). */
  queueOutgoing(row: {
    connection_id: string;
    chat_id: string;
    message_id: string | null;
    text: string;
    ask_contact?: boolean;
    created_at: string;
  }): ChannelOutboxRow | undefined {
    return this.db
      .insert(channelOutbox)
      .values({ id: newId(), state: 'queued', ...row })
      .onConflictDoNothing()
      .returning()
      .get();
  }

  outgoing(id: string): ChannelOutboxRow | undefined {
    return this.db.select().from(channelOutbox).where(eq(channelOutbox.id, id)).get();
  }

  /** The connection's messages still waiting (sent again after a reconnect), oldest first. */
  queuedOutgoing(connectionId: string): ChannelOutboxRow[] {
    return this.db
      .select()
      .from(channelOutbox)
      .where(and(eq(channelOutbox.connection_id, connectionId), eq(channelOutbox.state, 'queued')))
      .orderBy(asc(channelOutbox.created_at), asc(channelOutbox.id))
      .all();
  }

  countAttempt(id: string, error: string | null): number {
    const row = this.db
      .update(channelOutbox)
      .set({ attempts: sql`${channelOutbox.attempts} + 1`, error })
      .where(eq(channelOutbox.id, id))
      .returning({ attempts: channelOutbox.attempts })
      .get();
    return row?.attempts ?? 0;
  }

  finishOutgoing(id: string, state: 'sent' | 'failed', now: string, error: string | null = null): void {
    this.db
      .update(channelOutbox)
      .set({ state, error, ...(state === 'sent' ? { sent_at: now } : {}) })
      .where(eq(channelOutbox.id, id))
      .run();
  }

  /** Deletes sent messages' text and old finished rows: the conversation is the record. */
  prune(beforeIso: string): void {
    this.db
      .delete(channelOutbox)
      .where(and(inArray(channelOutbox.state, ['sent', 'failed']), sql`${channelOutbox.created_at} < ${beforeIso}`))
      .run();
    this.db
      .delete(channelInbound)
      .where(and(inArray(channelInbound.state, ['done', 'failed']), sql`${channelInbound.received_at} < ${beforeIso}`))
      .run();
  }
}
