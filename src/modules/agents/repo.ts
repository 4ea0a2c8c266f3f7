import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { chatbots, type ChatbotRow, type NewChatbot } from './tables.js';

export type ChatbotPatch = Partial<Omit<ChatbotRow, 'id' | 'user_id' | 'created_at' | 'messages_count' | 'conversations_count'>>;

export class AgentsRepo {
  // Read on every request of the public and owner routes: built and prepared once, not per call.
  private readonly byId;
  private readonly ownedById;

  constructor(private readonly db: Db) {
    this.byId = db.select().from(chatbots).where(eq(chatbots.id, sql.placeholder('id'))).prepare();
    this.ownedById = db
      .select()
      .from(chatbots)
      .where(and(eq(chatbots.id, sql.placeholder('id')), eq(chatbots.user_id, sql.placeholder('userId'))))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  countByUser(userId: string): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(chatbots).where(eq(chatbots.user_id, userId)).get()!.n;
  }

  listByUser(userId: string): ChatbotRow[] {
    return this.db
      .select()
      .from(chatbots)
      .where(eq(chatbots.user_id, userId))
      .orderBy(desc(chatbots.created_at), desc(chatbots.id))
      .all();
  }

  /** The agent only if it belongs to `userId`: another account's id looks exactly like a missing one. */
  findOwned(id: string, userId: string): ChatbotRow | undefined {
    return this.ownedById.get({ id, userId });
  }

  findById(id: string): ChatbotRow | undefined {
    return this.byId.get({ id });
  }

  insert(row: NewChatbot): ChatbotRow {
    return this.db.insert(chatbots).values(row).returning().get();
  }

  update(id: string, patch: ChatbotPatch): ChatbotRow {
    return this.db.update(chatbots).set(patch).where(eq(chatbots.id, id)).returning().get()!;
  }

  delete(id: string): void {
    this.db.delete(chatbots).where(eq(chatbots.id, id)).run();
  }

  /** Counter upkeep for the chat feature, called inside its message transaction. */
  addCounts(id: string, messages: number, conversations: number): void {
    this.db
      .update(chatbots)
      .set({
        messages_count: sql`${chatbots.messages_count} + ${messages}`,
        conversations_count: sql`${chatbots.conversations_count} + ${conversations}`,
      })
      .where(eq(chatbots.id, id))
      .run();
  }
}
