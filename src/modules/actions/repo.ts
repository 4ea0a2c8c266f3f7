import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { RowCache } from '../../platform/db/row-cache.js';
import { type ActionRow, type ActionRunRow, actionRuns, actions } from './tables.js';

export type NewAction = typeof actions.$inferInsert;
export type NewActionRun = typeof actionRuns.$inferInsert;

/** Per action: its runs in a time range by outcome (analytics). */
export interface ActionRunCounts {
  action_id: string | null;
  action_name: string;
  action_type: ActionRow['type'];
  runs: number;
  confirmed: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  expired: number;
}

/** An agent's actions and their runs. */
export class ActionsRepo {
  /** an agent's actions: read on every chat turn, so prepared once */
  private readonly ofAgent;
  /** and kept by agent between turns; every write below forgets its agent's list */
  private readonly listsByAgent: RowCache<{ rows: readonly ActionRow[] }>;

  constructor(private readonly db: Db) {
    this.listsByAgent = new RowCache(db.$client);
    this.ofAgent = db
      .select()
      .from(actions)
      .where(eq(actions.chatbot_id, sql.placeholder('chatbotId')))
      .orderBy(asc(actions.created_at), asc(actions.id))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  list(chatbotId: string): readonly ActionRow[] {
    const kept = this.listsByAgent.get(chatbotId, (id) => ({
      rows: Object.freeze(this.ofAgent.all({ chatbotId: id }).map((row) => Object.freeze(row))),
    }));
    return kept!.rows;
  }

  count(chatbotId: string): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(actions).where(eq(actions.chatbot_id, chatbotId)).get()!.n;
  }

  find(chatbotId: string, id: string): ActionRow | undefined {
    return this.db
      .select()
      .from(actions)
      .where(and(eq(actions.chatbot_id, chatbotId), eq(actions.id, id)))
      .get();
  }

  findByName(chatbotId: string, name: string): ActionRow | undefined {
    return this.db
      .select()
      .from(actions)
      .where(and(eq(actions.chatbot_id, chatbotId), eq(actions.name, name)))
      .get();
  }

  insert(row: NewAction): ActionRow {
    this.listsByAgent.forget(row.chatbot_id);
    return this.db.insert(actions).values(row).returning().get();
  }

  update(id: string, patch: Partial<NewAction>): ActionRow {
    const row = this.db.update(actions).set(patch).where(eq(actions.id, id)).returning().get();
    if (row) this.listsByAgent.forget(row.chatbot_id);
    return row;
  }

  remove(id: string): void {
    const gone = this.db.delete(actions).where(eq(actions.id, id)).returning({ chatbot_id: actions.chatbot_id }).get();
    if (gone) this.listsByAgent.forget(gone.chatbot_id);
  }

  // --- runs ----------------------------------------------------------------------------------

  insertRun(row: NewActionRun): ActionRunRow {
    return this.db.insert(actionRuns).values(row).returning().get();
  }

  findRun(chatbotId: string, id: string): ActionRunRow | undefined {
    return this.db
      .select()
      .from(actionRuns)
      .where(and(eq(actionRuns.chatbot_id, chatbotId), eq(actionRuns.id, id)))
      .get();
  }

  /**
   * Moves a run on from `awaiting_confirmation` only: true when this call did it. Two clicks on
   * Confirm (or Confirm and Cancel) race here, and only one wins: a confirmation is used once.
   */
  claimAwaiting(id: string, patch: Partial<NewActionRun>): boolean {
    const res = this.db
      .update(actionRuns)
      .set(patch)
      .where(and(eq(actionRuns.id, id), eq(actionRuns.status, 'awaiting_confirmation')))
      .run();
    return res.changes === 1;
  }

  updateRun(id: string, patch: Partial<NewActionRun>): ActionRunRow | undefined {
    return this.db.update(actionRuns).set(patch).where(eq(actionRuns.id, id)).returning().get();
  }

  /** Runs still waiting for the visitor that were asked before `before` become expired. */
  expireAwaiting(before: string, now: string): number {
    return this.db
      .update(actionRuns)
      .set({ status: 'expired', outcome: 'The visitor did not confirm in time.', finished_at: now })
      .where(and(eq(actionRuns.status, 'awaiting_confirmation'), lt(actionRuns.created_at, before)))
      .run().changes;
  }

  runsOfConversation(conversationId: string): ActionRunRow[] {
    return this.db
      .select()
      .from(actionRuns)
      .where(eq(actionRuns.conversation_id, conversationId))
      .orderBy(asc(actionRuns.created_at), asc(actionRuns.id))
      .all();
  }

  /** Runs of the account since `since` that count against its monthly cap (all but cancelled and expired). */
  countedRunsSince(userId: string, since: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(actionRuns)
      .where(
        and(
          eq(actionRuns.user_id, userId),
          gte(actionRuns.created_at, since),
          sql`${actionRuns.status} IN ('succeeded', 'failed')`,
        ),
      )
      .get()!.n;
  }

  /** Per action, the runs of the agent created in [from, to). */
  countsByAction(chatbotId: string, from: string, to: string): ActionRunCounts[] {
    const count = (status: string) => sql<number>`sum(CASE WHEN ${actionRuns.status} = ${status} THEN 1 ELSE 0 END)`;
    return this.db
      .select({
        action_id: actionRuns.action_id,
        action_name: actionRuns.action_name,
        action_type: actionRuns.action_type,
        runs: sql<number>`count(*)`,
        confirmed: sql<number>`count(${actionRuns.confirmed_at})`,
        succeeded: count('succeeded'),
        failed: count('failed'),
        cancelled: count('cancelled'),
        expired: count('expired'),
      })
      .from(actionRuns)
      .where(and(eq(actionRuns.chatbot_id, chatbotId), gte(actionRuns.created_at, from), lt(actionRuns.created_at, to)))
      .groupBy(actionRuns.action_name, actionRuns.action_id, actionRuns.action_type)
      .orderBy(desc(sql`count(*)`))
      .all();
  }
}
