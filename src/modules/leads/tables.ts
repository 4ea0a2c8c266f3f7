import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { chatbots } from '../agents/tables.js';
import { users } from '../auth/tables.js';
import { ownerId } from '../../platform/db/columns.js';

/** Name + phone left by a visitor in the widget; belongs to an agent. */
export const widgetLeads = sqliteTable(
  'widget_leads',
  {
    id: text('id').primaryKey(),
    chatbot_id: ownerId('chatbot_id', () => chatbots.id),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    /** a booking's lead (modules/actions): the e-mail address the invitation went to; '' phone then */
    email: text('email'),
    /** the visitor's chat session, when the widget sent it (links the lead to its conversation) */
    session_id: text('session_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('widget_leads_chatbot_created').on(t.chatbot_id, t.created_at),
    index('widget_leads_dedup').on(t.chatbot_id, t.name, t.phone, t.created_at),
  ],
);

/** The account owner's own lead list (a small CRM). */
export const accountLeads = sqliteTable(
  'account_leads',
  {
    id: text('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
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
    /** the account the message is sent for (null on rows from before it was recorded) */
    user_id: text('user_id'),
    /**
     * a lead alert, the confirmation of an alert address (counted against a daily cap), a notice
     * to the account's own address (the month's messages at 80% or 100%), a booking's invitation,
     * or an e-mail channel's answer to the person who wrote (modules/channels)
     */
    kind: text('kind', {
      enum: ['lead_alert', 'confirm_address', 'account_notice', 'booking_invitation', 'channel_reply'],
    })
      .notNull()
      .default('lead_alert'),
    to_address: text('to_address').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** an iCalendar invitation sent with it (METHOD:REQUEST), for a booking */
    ics: text('ics'),
    /** a channel reply: the mailbox's address it comes from (else the server's SMTP_FROM) */
    from_address: text('from_address'),
    /** a channel reply: the Message-ID it answers and the thread's ids (JSON array), so it threads */
    in_reply_to: text('in_reply_to'),
    references: text('references'),
    /** a channel reply through the channel's own SMTP server: the channel connection's id */
    transport: text('transport'),
    /**
     * pending until delivered; rejected when the mail server refused it for good (5xx); held while
     * its address waits for confirmation (released when confirmed)
     */
    status: text('status', { enum: ['pending', 'sent', 'rejected', 'held'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    last_error: text('last_error'),
    created_at: text('created_at').notNull(),
    sent_at: text('sent_at'),
  },
  (t) => [
    index('mail_outbox_status').on(t.status, t.created_at),
    index('mail_outbox_user_kind').on(t.user_id, t.kind, t.created_at),
  ],
);

/**
 * Addresses an account asked lead alerts to go to, other than its own e-mail (always allowed).
 * Alerts go out only once the address's owner clicked the confirmation link: with open
 * registration, an unconfirmed address would make this server a relay for anyone's mail.
 */
export const alertAddresses = sqliteTable(
  'alert_addresses',
  {
    user_id: ownerId('user_id', () => users.id),
    /** lower case */
    address: text('address').notNull(),
    /** SHA-256 of the link's token (the token itself is only in the e-mail) */
    token_hash: text('token_hash'),
    token_expires_at: text('token_expires_at'),
    /** when the last confirmation e-mail was queued (one an hour per address at most) */
    requested_at: text('requested_at'),
    confirmed_at: text('confirmed_at'),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.address] }), uniqueIndex('alert_addresses_token').on(t.token_hash)],
);

export type WidgetLeadRow = typeof widgetLeads.$inferSelect;
export type AccountLeadRow = typeof accountLeads.$inferSelect;
export type MailRow = typeof mailOutbox.$inferSelect;
export type AlertAddressRow = typeof alertAddresses.$inferSelect;
