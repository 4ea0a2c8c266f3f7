import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { conversationNotes, conversations, type ConversationNoteRow, type ConversationRow } from './tables.js';

/** How much of the last message the inbox shows. */
export const PREVIEW_CHARS = 200;

export interface InboxFilter {
  chatbotIds: string[];
  status?: ConversationRow['status'];
  /** a user id, or null: unassigned only */
  assignedTo?: string | null;
}

export type InboxRow = ConversationRow & { last_message: string | null };

/** The inbox's queries: every agent's conversations of an account, and internal notes. */
export class InboxRepo {
  constructor(private readonly db: Db) {}

  private where(f: InboxFilter): SQL | undefined {
    const where: SQL[] = [inArray(conversations.chatbot_id, f.chatbotIds)];
    if (f.status) where.push(eq(conversations.status, f.status));
    if (f.assignedTo === null) where.push(isNull(conversations.assigned_to));
    else if (f.assignedTo !== undefined) where.push(eq(conversations.assigned_to, f.assignedTo));
    return and(...where);
  }

  /** Newest activity first; `last_message`: the start of the latest message of the transcript. */
  page(f: InboxFilter, limit: number, offset: number): InboxRow[] {
    if (f.chatbotIds.length === 0) return [];
    return this.db
      .select({
        c: conversations,
        last: sql<
          string | null
        >`(select substr(m.content, 1, ${PREVIEW_CHARS}) from messages m where m.conversation_id = "conversations"."id" order by m.timestamp desc, m.id desc limit 1)`,
      })
      .from(conversations)
      .where(this.where(f))
      .orderBy(desc(conversations.updated_at), desc(conversations.id))
      .limit(limit)
      .offset(offset)
      .all()
      .map((r) => ({ ...r.c, last_message: r.last }));
  }

  count(f: InboxFilter): number {
    if (f.chatbotIds.length === 0) return 0;
    return this.db.select({ n: sql<number>`count(*)` }).from(conversations).where(this.where(f)).get()!.n;
  }

  setAssignee(conversationId: string, userId: string | null): ConversationRow | undefined {
    return this.db
      .update(conversations)
      .set({ assigned_to: userId })
      .where(eq(conversations.id, conversationId))
      .returning()
      .get();
  }

  insertNote(row: ConversationNoteRow): ConversationNoteRow {
    this.db.insert(conversationNotes).values(row).run();
    return row;
  }

  notes(conversationId: string): ConversationNoteRow[] {
    return this.db
      .select()
      .from(conversationNotes)
      .where(eq(conversationNotes.conversation_id, conversationId))
      .orderBy(asc(conversationNotes.created_at), asc(conversationNotes.id))
      .all();
  }
}
