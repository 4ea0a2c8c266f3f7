import { and, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { answerGapConversations, answerGaps, sources } from './tables.js';

export type GapRow = typeof answerGaps.$inferSelect;

/** The answer gaps' rows (gaps.ts decides when a gap opens, counts again or is answered). */
export class AnswerGapsRepo {
  constructor(private readonly db: Db) {}

  findById(id: string): GapRow | undefined {
    return this.db.select().from(answerGaps).where(eq(answerGaps.id, id)).get();
  }

  /** The agent's gap of this grouping key, if any. */
  findByKey(chatbotId: string, questionKey: string): GapRow | undefined {
    return this.db
      .select()
      .from(answerGaps)
      .where(and(eq(answerGaps.chatbot_id, chatbotId), eq(answerGaps.question_key, questionKey)))
      .get();
  }

  /** A new gap and the conversation it came from. */
  insert(row: typeof answerGaps.$inferInsert & { conversation_id: string }): void {
    this.db.insert(answerGaps).values(row).run();
    this.db.insert(answerGapConversations).values({ gap_id: row.id, conversation_id: row.conversation_id }).run();
  }

  /**
   * One more occurrence of the gap: its wording, reasons and status change; its count goes up by
   * one only when the conversation is one it has not come from yet (in SQL, so two at once both count).
   */
  recordOccurrence(
    id: string,
    conversationId: string,
    changes: Pick<GapRow, 'question' | 'reasons' | 'status' | 'conversation_id' | 'last_seen_at'>,
  ): void {
    const added = this.db
      .insert(answerGapConversations)
      .values({ gap_id: id, conversation_id: conversationId })
      .onConflictDoNothing()
      .run().changes;
    this.db
      .update(answerGaps)
      .set(added > 0 ? { ...changes, count: sql`${answerGaps.count} + 1` } : changes)
      .where(eq(answerGaps.id, id))
      .run();
  }

  setStatus(id: string, changes: Pick<GapRow, 'status'> & Partial<Pick<GapRow, 'source_id'>>): GapRow {
    return this.db.update(answerGaps).set(changes).where(eq(answerGaps.id, id)).returning().get();
  }

  /** The agent's gaps with this status, most asked first, then the most recent (at most `limit`). */
  /** With each answered gap's "check this" (its Q&A answer's: a sync changed the page it answers from). */
  listByStatus(
    chatbotId: string,
    status: GapRow['status'],
    limit: number,
  ): (GapRow & { check_reason: string | null })[] {
    return this.db
      .select({ ...getTableColumns(answerGaps), check_reason: sources.check_reason })
      .from(answerGaps)
      .leftJoin(sources, eq(sources.id, answerGaps.source_id))
      .where(and(eq(answerGaps.chatbot_id, chatbotId), eq(answerGaps.status, status)))
      .orderBy(desc(answerGaps.count), desc(answerGaps.last_seen_at), desc(answerGaps.id))
      .limit(limit)
      .all();
  }

  /**
   * Erasure of a conversation: deletes the agent's gaps whose wording came last from it, and the
   * other gaps it counted in count one conversation less.
   */
  deleteByConversation(chatbotId: string, conversationId: string): void {
    this.db
      .delete(answerGaps)
      .where(and(eq(answerGaps.chatbot_id, chatbotId), eq(answerGaps.conversation_id, conversationId)))
      .run();
    const counted = this.db
      .delete(answerGapConversations)
      .where(
        and(
          eq(answerGapConversations.conversation_id, conversationId),
          inArray(
            answerGapConversations.gap_id,
            this.db.select({ id: answerGaps.id }).from(answerGaps).where(eq(answerGaps.chatbot_id, chatbotId)),
          ),
        ),
      )
      .returning({ gap_id: answerGapConversations.gap_id })
      .all()
      .map((r) => r.gap_id);
    if (counted.length > 0)
      this.db
        .update(answerGaps)
        .set({ count: sql`max(${answerGaps.count} - 1, 1)` })
        .where(inArray(answerGaps.id, counted))
        .run();
  }

  /** Whether the source (a gap's qa answer) still exists. */
  sourceExists(sourceId: string): boolean {
    return this.db.select({ id: sources.id }).from(sources).where(eq(sources.id, sourceId)).get() !== undefined;
  }
}
