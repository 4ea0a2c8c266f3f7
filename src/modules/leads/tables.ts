import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { chatbots } from '../agents/tables.js';
import { users } from '../auth/tables.js';

/** Name + phone left by a visitor in the widget; belongs to an agent. */
export const widgetLeads = sqliteTable(
  'widget_leads',
  {
    id: text('id').primaryKey(),
    chatbot_id: text('chatbot_id')
      .notNull()
      .references(() => chatbots.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    /** the visitor's chat session, when the widget sent it (links the lead to its conversation) */
    session_id: text('session_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [index('widget_leads_chatbot_created').on(t.chatbot_id, t.created_at), index('widget_leads_dedup').on(t.chatbot_id, t.name, t.phone, t.created_at)],
);

/** The account owner's own lead list (a small CRM). */
export const accountLeads = sqliteTable(
  'account_leads',
  {
    id: text('id').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    contact: text('contact').notNull(),
    status: text('status', { enum: ['New', 'Contacted', 'Closed'] }).notNull(),
    notes: text('notes'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('account_leads_user_created').on(t.user_id, t.created_at)],
);

/**
 * E-mail alerts waiting to be sent. Written in the same transaction as the lead, so a stored lead
 * always has its alert queued; a job per row delivers it, retrying across restarts.
 */
export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    to_address: text('to_address').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** pending until delivered; rejected when the mail server refused it for good (5xx) */
    status: text('status', { enum: ['pending', 'sent', 'rejected'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    last_error: text('last_error'),
    created_at: text('created_at').notNull(),
    sent_at: text('sent_at'),
  },
  (t) => [index('mail_outbox_status').on(t.status, t.created_at)],
);

export type WidgetLeadRow = typeof widgetLeads.$inferSelect;
export type AccountLeadRow = typeof accountLeads.$inferSelect;
export type MailRow = typeof mailOutbox.$inferSelect;
