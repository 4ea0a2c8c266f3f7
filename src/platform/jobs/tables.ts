import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The durable job queue: a job is a row, so work accepted before a crash is still there after it.
 * `running` rows found at start belonged to a process that died; they are queued again.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    /** what the job is about (a source id, an outbox message id): lets a feature cancel its jobs */
    subject_id: text('subject_id').notNull(),
    /** the account the work is for: the queue shares its slots between accounts (null: no account) */
    owner: text('owner'),
    payload: text('payload').notNull().default('{}'),
    status: text('status', { enum: ['queued', 'running', 'done', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    run_after: text('run_after').notNull(),
    last_error: text('last_error'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('jobs_status_run_after').on(t.status, t.run_after), index('jobs_subject').on(t.subject_id)],
);

export type JobRow = typeof jobs.$inferSelect;
