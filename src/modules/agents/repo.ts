import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { CachedRowsById } from '../../platform/db/row-cache.js';
import { chatbots, type ChatbotRow, type NewChatbot } from './tables.js';

export type ChatbotPatch = Partial<
  Omit<ChatbotRow, 'id' | 'user_id' | 'created_at' | 'messages_count' | 'conversations_count'>
>;

export class AgentsRepo {
  // Read on every request of the public and owner routes: prepared once and cached by id; every
  // write below forgets the row it touches (row-cache.ts covers writes from other connections).
  private readonly cache: CachedRowsById<ChatbotRow>;
  private readonly counts;

  constructor(private readonly db: Db) {
    this.cache = new CachedRowsById(db, chatbots);
    this.counts = db
      .update(chatbots)
      .set({
        messages_count: sql`${chatbots.messages_count} + ${sql.placeholder('messages')}`,
        conversations_count: sql`${chatbots.conversations_count} + ${sql.placeholder('conversations')}`,
      })
      .where(eq(chatbots.id, sql.placeholder('id')))
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
  findOwned(id: string, userId: string): Readonly<ChatbotRow> | undefined {
    const row = this.findById(id);
    return row?.user_id === userId ? row : undefined;
  }

  findById(id: string): Readonly<ChatbotRow> | undefined {
    return this.cache.get(id);
  }

  insert(row: NewChatbot): ChatbotRow {
    this.cache.forget(row.id);
    return this.db.insert(chatbots).values(row).returning().get();
  }

  update(id: string, patch: ChatbotPatch): ChatbotRow {
    this.cache.forget(id);
    return this.db.update(chatbots).set(patch).where(eq(chatbots.id, id)).returning().get()!;
  }

  delete(id: string): void {
    this.cache.forget(id);
    this.db.delete(chatbots).where(eq(chatbots.id, id)).run();
  }

  /** Counter upkeep for the chat feature, called inside its message transaction. */
  addCounts(id: string, messages: number, conversations: number): void {
    this.cache.forget(id);
    this.counts.run({ id, messages, conversations });
  }
}
