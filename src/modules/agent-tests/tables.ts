import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ownerId } from '../../platform/db/columns.js';
import { chatbots } from '../agents/tables.js';

/** Where a test question came from (docs/API-NOTES.md "Test questions"). */
export const TEST_ORIGINS = ['manual', 'thumbs_down', 'gap', 'qa', 'csv'] as const;

/**
 * A test question of an agent: what a right answer must contain (phrases) and/or which source it
 * must come from. `expected_source_id` is no foreign key: a test whose source was deleted stays,
 * and fails saying so (that is the regression it is there to catch).
 */
export const agentTests = sqliteTable(
  'agent_tests',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    question: text('question').notNull(),
    expected_phrases: text('expected_phrases', { mode: 'json' }).$type<string[]>().notNull().default([]),
    expected_source_id: text('expected_source_id'),
    /** the expected source's name when the test was saved: what a failure names once the source is gone */
    expected_source_name: text('expected_source_name'),
    origin: text('origin', { enum: TEST_ORIGINS }).notNull().default('manual'),
    /** made from an answer: its conversation, whose erasure takes the test (the visitor's words) with it */
    conversation_id: text('conversation_id'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('agent_tests_chatbot_created').on(t.chatbot_id, t.created_at)],
);

/** One test's outcome in a run (stored in the run's `results`). */
export interface StoredTestResult {
  test_id: string;
  question: string;
  passed: boolean;
  answer: string;
  sources: Array<{ source_id: string; name: string }>;
  reason: string | null;
  /** the provider failed: no verdict on the knowledge, never a regression */
  error?: boolean;
}

/** A run of an agent's tests: by hand or after its knowledge changed, with what regressed since the run before. */
export const agentTestRuns = sqliteTable(
  'agent_test_runs',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    trigger: text('trigger', { enum: ['manual', 'auto'] }).notNull(),
    /** the agent's model answered (a provider key), else the answer quoted from the knowledge */
    with_model: integer('with_model', { mode: 'boolean' }).notNull(),
    passed: integer('passed').notNull(),
    failed: integer('failed').notNull(),
    /** ids of the tests that passed in the run before and fail in this one */
    regressions: text('regressions', { mode: 'json' }).$type<string[]>().notNull().default([]),
    results: text('results', { mode: 'json' }).$type<StoredTestResult[]>().notNull(),
    started_at: text('started_at').notNull(),
    finished_at: text('finished_at').notNull(),
  },
  (t) => [index('agent_test_runs_chatbot_started').on(t.chatbot_id, t.started_at)],
);

/** Per-agent settings of its tests, and the pending automatic run (debounced after knowledge changes). */
export const agentTestSettings = sqliteTable('agent_test_settings', {
  chatbot_id: text('chatbot_id')
    .primaryKey()
    .references(() => chatbots.id, { onDelete: 'cascade' }),
  /** automatic runs ask the agent's model (it costs money); off: they judge the answer quoted from the knowledge */
  auto_run_with_model: integer('auto_run_with_model', { mode: 'boolean' }).notNull().default(false),
  /** when the pending automatic run is due (the last change plus the debounce); null: none pending */
  auto_run_after: text('auto_run_after'),
});

export type AgentTestRow = typeof agentTests.$inferSelect;
export type AgentTestRunRow = typeof agentTestRuns.$inferSelect;
export type AgentTestSettingsRow = typeof agentTestSettings.$inferSelect;
