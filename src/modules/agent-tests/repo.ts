import { and, asc, count, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { chatbots } from '../agents/tables.js';
import { messages } from '../chat/tables.js';
import { answerGaps, sources } from '../knowledge/tables.js';
import {
  type AgentTestRow,
  type AgentTestRunRow,
  type AgentTestSettingsRow,
  agentTestRuns,
  agentTestSettings,
  agentTests,
} from './tables.js';

/** the runs kept per agent (older ones are removed as new ones are stored) */
export const RUNS_KEPT = 50;

/**
 * The agent tests' rows: tests, runs and per-agent settings. It reads (never writes) the rows a
 * test is made from: a source, an answer gap, an answer (message).
 */
export class AgentTestsRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  list(chatbotId: string): AgentTestRow[] {
    return this.db
      .select()
      .from(agentTests)
      .where(eq(agentTests.chatbot_id, chatbotId))
      .orderBy(asc(agentTests.created_at), asc(agentTests.id))
      .all();
  }

  count(chatbotId: string): number {
    return this.db.select({ n: count() }).from(agentTests).where(eq(agentTests.chatbot_id, chatbotId)).get()!.n;
  }

  find(id: string): AgentTestRow | undefined {
    return this.db.select().from(agentTests).where(eq(agentTests.id, id)).get();
  }

  insert(row: typeof agentTests.$inferInsert): AgentTestRow {
    return this.db.insert(agentTests).values(row).returning().get();
  }

  update(id: string, changes: Partial<AgentTestRow>): AgentTestRow {
    return this.db.update(agentTests).set(changes).where(eq(agentTests.id, id)).returning().get();
  }

  delete(id: string): void {
    this.db.delete(agentTests).where(eq(agentTests.id, id)).run();
  }

  /**
   * Removes the agent's tests made from an answer of this conversation (its erasure), and blanks
   * their question and answer in the runs' results (the counts and reasons stay).
   */
  deleteByConversation(chatbotId: string, conversationId: string): void {
    const ids = this.db
      .delete(agentTests)
      .where(and(eq(agentTests.chatbot_id, chatbotId), eq(agentTests.conversation_id, conversationId)))
      .returning({ id: agentTests.id })
      .all()
      .map((r) => r.id);
    if (ids.length === 0) return;
    this.db.run(sql`
      UPDATE ${agentTestRuns} SET results = (
        SELECT json_group_array(CASE WHEN json_extract(value, '$.test_id') IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
          THEN json_set(value, '$.question', '', '$.answer', '') ELSE json(value) END)
        FROM json_each(${agentTestRuns.results}))
      WHERE ${agentTestRuns.chatbot_id} = ${chatbotId}`);
  }

  /** Stores a run and removes the agent's runs beyond the newest RUNS_KEPT. */
  insertRun(row: typeof agentTestRuns.$inferInsert): AgentTestRunRow {
    const run = this.db.insert(agentTestRuns).values(row).returning().get();
    const kept = this.db
      .select({ id: agentTestRuns.id })
      .from(agentTestRuns)
      .where(eq(agentTestRuns.chatbot_id, row.chatbot_id))
      .orderBy(desc(agentTestRuns.started_at), desc(agentTestRuns.id))
      .limit(RUNS_KEPT)
      .all()
      .map((r) => r.id);
    this.db
      .delete(agentTestRuns)
      .where(and(eq(agentTestRuns.chatbot_id, row.chatbot_id), notInArray(agentTestRuns.id, kept)))
      .run();
    return run;
  }

  /** The agent's newest runs first. */
  runs(chatbotId: string, limit: number): AgentTestRunRow[] {
    return this.db
      .select()
      .from(agentTestRuns)
      .where(eq(agentTestRuns.chatbot_id, chatbotId))
      .orderBy(desc(agentTestRuns.started_at), desc(agentTestRuns.id))
      .limit(limit)
      .all();
  }

  findRun(id: string): AgentTestRunRow | undefined {
    return this.db.select().from(agentTestRuns).where(eq(agentTestRuns.id, id)).get();
  }

  /**
   * How many tests regressed in the latest run of each of the account's agents, tests deleted
   * since left out (the admin's banner).
   */
  openRegressions(accountId: string): number {
    const row = this.db.get<{ n: number | null }>(sql`
      SELECT count(*) AS n
      FROM ${agentTestRuns} r
      JOIN ${chatbots} c ON c.id = r.chatbot_id, json_each(r.regressions) j
      JOIN ${agentTests} t ON t.id = j.value
      WHERE c.user_id = ${accountId}
        AND r.id = (SELECT r2.id FROM ${agentTestRuns} r2 WHERE r2.chatbot_id = r.chatbot_id
                    ORDER BY r2.started_at DESC, r2.id DESC LIMIT 1)`);
    return row?.n ?? 0;
  }

  settings(chatbotId: string): AgentTestSettingsRow {
    return (
      this.db.select().from(agentTestSettings).where(eq(agentTestSettings.chatbot_id, chatbotId)).get() ?? {
        chatbot_id: chatbotId,
        auto_run_with_model: false,
        auto_run_after: null,
      }
    );
  }

  saveSettings(chatbotId: string, changes: Partial<Omit<AgentTestSettingsRow, 'chatbot_id'>>): AgentTestSettingsRow {
    return this.db
      .insert(agentTestSettings)
      .values({ chatbot_id: chatbotId, ...changes })
      .onConflictDoUpdate({ target: agentTestSettings.chatbot_id, set: changes })
      .returning()
      .get();
  }

  /** A source of the knowledge module, read for a test's expectations. */
  source(id: string) {
    return this.db
      .select({
        id: sources.id,
        chatbot_id: sources.chatbot_id,
        name: sources.name,
        type: sources.type,
        qa_question: sources.qa_question,
        qa_answer: sources.qa_answer,
      })
      .from(sources)
      .where(eq(sources.id, id))
      .get();
  }

  /** The agent's sources named `name` (any case), for a CSV row naming its expected source. */
  sourcesNamed(chatbotId: string, names: string[]) {
    if (names.length === 0) return [];
    return this.db
      .select({ id: sources.id, name: sources.name })
      .from(sources)
      .where(and(eq(sources.chatbot_id, chatbotId), inArray(sql`lower(${sources.name})`, names)))
      .all();
  }

  /** An answer gap, read for a test made from it. */
  gap(id: string) {
    return this.db
      .select({
        id: answerGaps.id,
        chatbot_id: answerGaps.chatbot_id,
        question: answerGaps.question,
        status: answerGaps.status,
        source_id: answerGaps.source_id,
      })
      .from(answerGaps)
      .where(eq(answerGaps.id, id))
      .get();
  }

  /** A message of a conversation, read for a test made from an answer. */
  message(id: string) {
    return this.db
      .select({
        id: messages.id,
        chatbot_id: messages.chatbot_id,
        conversation_id: messages.conversation_id,
        role: messages.role,
        from_person: messages.from_person,
      })
      .from(messages)
      .where(eq(messages.id, id))
      .get();
  }
}
