import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { answerGaps, sources } from './tables.js';

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

  insert(row: typeof answerGaps.$inferInsert): void {
    this.db.insert(answerGaps).values(row).run();
  }

  /** One more occurrence of the gap: its count goes up by one (in SQL, so two at once both count). */
  recordOccurrence(
    id: string,
    changes: Pick<GapRow, 'question' | 'reasons' | 'status' | 'conversation_id' | 'last_seen_at'>,
  ): void {
    this.db
      .update(answerGaps)
      .set({ ...changes, count: sql`${answerGaps.count} + 1` })
      .where(eq(answerGaps.id, id))
      .run();
  }

  setStatus(id: string, changes: Pick<GapRow, 'status'> & Partial<Pick<GapRow, 'source_id'>>): GapRow {
    return this.db.update(answerGaps).set(changes).where(eq(answerGaps.id, id)).returning().get();
  }

  /** The agent's gaps with this status, most asked first, then the most recent (at most `limit`). */
  listByStatus(chatbotId: string, status: GapRow['status'], limit: number): GapRow[] {
    return this.db
      .select()
      .from(answerGaps)
      .where(and(eq(answerGaps.chatbot_id, chatbotId), eq(answerGaps.status, status)))
      .orderBy(desc(answerGaps.count), desc(answerGaps.last_seen_at), desc(answerGaps.id))
      .limit(limit)
      .all();
  }

  /** Deletes the agent's gaps whose wording came last from this conversation. */
  deleteByConversation(chatbotId: string, conversationId: string): void {
    this.db
      .delete(answerGaps)
      .where(and(eq(answerGaps.chatbot_id, chatbotId), eq(answerGaps.conversation_id, conversationId)))
      .run();
  }

  /** Whether the source (a gap's qa answer) still exists. */
  sourceExists(sourceId: string): boolean {
    return this.db.select({ id: sources.id }).from(sources).where(eq(sources.id, sourceId)).get() !== undefined;
  }
}
