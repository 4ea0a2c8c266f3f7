import { index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { PROVIDER_NAMES } from '../../providers/llm/catalog.js';
import { users } from '../auth/tables.js';
import type { OfficeHours } from './office-hours.js';
import { ownerId } from '../../platform/db/columns.js';

/**
 * Agents ("chatbots" in paths and fields). Column names are the API's field names, so a row maps
 * onto the Agent object without renaming. Tables of later features reference chatbots.id with
 * ON DELETE CASCADE, which is how DELETE /api/chatbots/{id} removes everything an agent owns.
 */
export const chatbots = sqliteTable(
  'chatbots',
  {
    id: text('id').primaryKey(),
    user_id: ownerId('user_id', () => users.id),
    name: text('name').notNull(),
    description: text('description'),
    model: text('model').notNull(),
    provider: text('provider', { enum: PROVIDER_NAMES }).notNull(),
    temperature: real('temperature').notNull(),
    max_tokens: integer('max_tokens').notNull(),
    instructions: text('instructions').notNull(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    public_access: integer('public_access', { mode: 'boolean' }).notNull(),
    /** kept by the chat feature in the same transaction that stores messages */
    messages_count: integer('messages_count').notNull().default(0),
    conversations_count: integer('conversations_count').notNull().default(0),
    primary_color: text('primary_color').notNull(),
    secondary_color: text('secondary_color').notNull(),
    accent_color: text('accent_color').notNull(),
    /**
     * whether the secondary (header gradient's end) and accent (links, focus rings) colours follow
     * the primary because the owner never set them: the colour columns then hold the derived colour
     * (followingColor), rewritten whenever the primary changes
     */
    secondary_follows_primary: integer('secondary_follows_primary', { mode: 'boolean' }).notNull().default(true),
    accent_follows_primary: integer('accent_follows_primary', { mode: 'boolean' }).notNull().default(true),
    welcome_message: text('welcome_message').notNull(),
    widget_position: text('widget_position', {
      enum: ['bottom-right', 'bottom-left', 'top-right', 'top-left'],
    }).notNull(),
    widget_theme: text('widget_theme', { enum: ['light', 'dark', 'auto'] }).notNull(),
    widget_size: text('widget_size', { enum: ['small', 'medium', 'large'] }).notNull(),
    lead_capture_enabled: integer('lead_capture_enabled', { mode: 'boolean' }).notNull(),
    email_alerts_enabled: integer('email_alerts_enabled', { mode: 'boolean' }).notNull(),
    email_alert_address: text('email_alert_address'),
    rate_limit_enabled: integer('rate_limit_enabled', { mode: 'boolean' }).notNull(),
    messages_per_hour: integer('messages_per_hour').notNull(),
    logo_url: text('logo_url'),
    avatar_url: text('avatar_url'),
    font_family: text('font_family').notNull(),
    font_size: integer('font_size').notNull(),
    bubble_style: text('bubble_style', { enum: ['rounded', 'square'] }).notNull(),
    auto_expand: integer('auto_expand', { mode: 'boolean' }).notNull(),
    powered_by_text: text('powered_by_text'),
    /** host patterns (`example.com`, `*.example.com`) allowed to embed the agent; empty: any site */
    allowed_domains: text('allowed_domains', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** visitor messages per UTC day for this agent; null: no cap beyond the account's quota */
    daily_message_limit: integer('daily_message_limit'),
    /** what a visitor reads when nothing in the knowledge base answers (no provider key); null: the default sentence */
    no_answer_message: text('no_answer_message'),
    /** whether visitors see which sources an answer came from (the owner always does) */
    show_sources: integer('show_sources', { mode: 'boolean' }).notNull().default(true),
    /**
     * when the widget asks for the visitor's contact details, if `lead_capture_enabled`: before the
     * first message, or once `lead_form_after_messages` answers have been given
     */
    lead_form_timing: text('lead_form_timing', { enum: ['before_chat', 'after_messages'] })
      .notNull()
      .default('before_chat'),
    lead_form_after_messages: integer('lead_form_after_messages').notNull().default(1),
    /** the consent sentence above the lead form's button; null: the default one */
    lead_consent_text: text('lead_consent_text'),
    /** the owner's privacy policy, linked from the lead form; null: no link */
    privacy_policy_url: text('privacy_policy_url'),
    /** the widget's language: `auto` follows the visitor's browser, else a language code (en, es, fr, de, it, pt, nl) */
    language: text('language', { enum: ['auto', 'en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] })
      .notNull()
      .default('auto'),
    /** the owner's own wording for the widget's fixed texts, by text key; missing keys use the language's */
    widget_texts: text('widget_texts', { mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
    /** what a visitor reads when the owner's monthly messages are used up; null: the default sentence */
    unavailable_message: text('unavailable_message'),
    /** questions shown as buttons in the widget before the first message */
    starter_questions: text('starter_questions', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** a bubble beside the closed widget after `greeting_delay_s` seconds; null: none */
    greeting_message: text('greeting_message'),
    greeting_delay_s: integer('greeting_delay_s').notNull().default(5),
    /** an open conversation idle this long is resolved; null: never by itself */
    auto_resolve_after_h: integer('auto_resolve_after_h').default(24),
    /** words in a visitor's message that escalate the conversation to a person (besides the widget's button) */
    escalation_keywords: text('escalation_keywords', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /**
     * the owner's synonyms for the keyword search, one group a line: "cornetto = croissant" (a
     * question with one of them also searches the others; knowledge/search-query.ts)
     */
    synonyms: text('synonyms', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** an escalated conversation nobody takes within this many seconds: the visitor is told and asked for contact details */
    handoff_wait_s: integer('handoff_wait_s').notNull().default(120),
    /** when a person can be asked for, in a time zone (office-hours.ts); null: always */
    office_hours: text('office_hours', { mode: 'json' }).$type<OfficeHours | null>(),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('chatbots_user_created').on(t.user_id, t.created_at)],
);

/**
 * An agent's identity secret (verified visitors: modules/agents/identity.ts), apart from the agent's
 * row so that nothing that shows an agent can show it. Kept encrypted with the server's settings key.
 */
export const chatbotIdentity = sqliteTable('chatbot_identity', {
  chatbot_id: text('chatbot_id')
    .primaryKey()
    .references(() => chatbots.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  created_at: text('created_at').notNull(),
});

export type ChatbotRow = typeof chatbots.$inferSelect;
export type NewChatbot = typeof chatbots.$inferInsert;
