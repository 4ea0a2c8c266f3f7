import { z } from 'zod';
import { FIELD_MAX } from '../field-limits.js';
import { emailField } from '../auth/index.js';
import { normaliseHostPattern } from './origins.js';
import { officeHoursSchema, officeHoursView } from './office-hours.js';

export { PROVIDER_NAMES as PROVIDERS } from '../../providers/llm/catalog.js';
import { PROVIDER_NAMES as PROVIDERS } from '../../providers/llm/catalog.js';

const color = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex color like #rgb or #rrggbb');
const name = z.string().trim().min(1).max(FIELD_MAX.agent.name);
const description = z.string().max(FIELD_MAX.agent.description).nullable();
const model = z
  .string()
  .trim()
  .min(1)
  .max(FIELD_MAX.agent.model)
  .regex(/^[\w.:/@-]+$/, 'must be a model name such as gpt-4o-mini');
const instructions = z.string().max(FIELD_MAX.agent.instructions);
const welcome = z.string().max(FIELD_MAX.agent.welcome_message);
const temperature = z.number().min(0).max(1);
const maxTokens = z.number().int().min(1).max(16384);
/** `""` (or blank) reads as null: clients of the original service send it for "none" */
const blankAsNull = (v: string | null) => (v === null || v.trim() === '' ? null : v);
const httpUrlOrNull = z
  .string()
  .nullable()
  .transform(blankAsNull)
  .pipe(
    z
      .url({ protocol: /^https?$/ })
      .max(FIELD_MAX.agent.url)
      .nullable(),
  )
  .describe('an http(s) URL; "" or null for none');
/** Font sizes in words, as the original service took them, in pixels: medium is the widget's default. */
export const FONT_SIZES = { small: 12, medium: 14, large: 16 } as const;
const FONT_SIZE_RULE = 'must be an integer from 10 to 32, or small, medium or large';
const fontSize = z
  .union(
    [
      z.number().int({ error: FONT_SIZE_RULE }).min(10, { error: FONT_SIZE_RULE }).max(32, { error: FONT_SIZE_RULE }),
      z.enum(['small', 'medium', 'large']).transform((word) => FONT_SIZES[word]),
    ],
    { error: FONT_SIZE_RULE },
  )
  .describe(`pixels; small = ${FONT_SIZES.small}, medium = ${FONT_SIZES.medium}, large = ${FONT_SIZES.large}`);
// A font name goes into the widget's CSS: letters, digits, spaces, commas, quotes and hyphens only.
const fontFamily = z
  .string()
  .trim()
  .min(1)
  .max(FIELD_MAX.agent.font_family)
  .regex(/^[\w\s,'"-]+$/, 'must be a CSS font-family list');

// Website hosts allowed to embed the agent (beyond the spec); see origins.ts for the pattern rules.
const allowedDomains = z
  .array(z.string().max(300))
  .max(100)
  .transform((items, ctx) => {
    const patterns: string[] = [];
    items.forEach((item, i) => {
      const result = normaliseHostPattern(item);
      if ('error' in result) ctx.addIssue({ code: 'custom', path: [i], message: result.error });
      else if (!patterns.includes(result.pattern)) patterns.push(result.pattern);
    });
    return patterns;
  });

/** Languages the widget's fixed texts come in; `auto` follows the visitor's browser (en when it is none of these). */
export const WIDGET_LANGUAGES = ['auto', 'en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const;

/**
 * The widget's fixed texts an owner may reword (widget/src/i18n.ts has them in every language; a
 * test keeps the two lists equal). An unknown key is a 400, so a typo never silently does nothing.
 */
export const WIDGET_TEXT_KEYS = [
  'placeholder',
  'send',
  'online',
  'offline',
  'new_conversation',
  'close',
  'open_chat',
  'lead_intro',
  'lead_name',
  'lead_phone',
  'lead_submit',
  'lead_skip',
  'lead_consent',
  'privacy_policy',
  'lead_phone_missing',
  'lead_failed',
  'sources',
  'retry',
  'error_network',
  'error_busy',
  'error_offline',
  'error_unavailable',
  'error_generic',
  'error_too_long',
  'feedback_up',
  'feedback_down',
  'ask_person',
  'asked_person',
  'greeting_dismiss',
  'person_label',
  'person_joined',
  'person_left',
  'handoff_timeout',
  'handoff_closed',
] as const;

const widgetTexts = z
  .partialRecord(
    z.enum(WIDGET_TEXT_KEYS, { error: `must be one of ${WIDGET_TEXT_KEYS.join(', ')}` }),
    z.string().trim().max(FIELD_MAX.agent.widget_text),
  )
  // an empty text means "the language's own": it is dropped, not stored
  .transform((texts) => Object.fromEntries(Object.entries(texts).filter(([, v]) => v !== '')))
  .describe("the owner's wording of the widget's fixed texts, by key; missing keys use the language's");

/** A short owner text: `""` or blank reads as null (the default one). */
const ownerText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .transform((v) => v || null);

/** A list of short owner texts: trimmed, blanks and repeats dropped. */
const shortTexts = (maxItems: number, maxChars: number) =>
  z
    .array(z.string().trim().max(maxChars))
    .max(maxItems)
    .transform((items) => [...new Set(items.filter((v) => v !== ''))]);

/** The terms of one synonym line, "cornetto = croissant = brioche" (commas separate as well): trimmed, spaces collapsed. */
export function synonymTerms(line: string): string[] {
  return line
    .split(/[=,]/)
    .map((t) => t.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
}

/**
 * The owner's synonyms for the keyword search (issue 33): one group a line, its words or short
 * phrases separated by "=" (or commas), stored as "cornetto = croissant". Blank lines are
 * dropped, repeated ones kept once.
 */
const synonyms = z
  .array(
    z
      .string()
      .max(FIELD_MAX.agent.synonym_line)
      // a blank line is dropped; one with "=" but no words is refused
      .transform((line) => (line.trim() === '' ? '' : synonymTerms(line).join(' = ') || '='))
      .refine((line) => line === '' || synonymTerms(line).length >= 2, {
        message: 'each line needs two or more words or phrases separated by "=", e.g. "cornetto = croissant"',
      })
      .refine((line) => synonymTerms(line).length <= 10, { message: 'at most 10 words or phrases on one line' })
      .refine((line) => synonymTerms(line).every((t) => t.length <= 60 && /[\p{L}\p{N}]/u.test(t)), {
        message: 'each word or phrase must hold a letter or digit and be at most 60 characters',
      }),
  )
  .max(FIELD_MAX.agent.synonyms, { message: `at most ${FIELD_MAX.agent.synonyms} lines` })
  .transform((lines) => [...new Set(lines.filter((v) => v !== ''))]);

export const updateAgentBody = z.object({
  name: name.optional(),
  description: description.optional(),
  model: model.optional(),
  provider: z.enum(PROVIDERS).optional(),
  instructions: instructions.optional(),
  system_message: instructions.optional(),
  welcome_message: welcome.optional(),
  temperature: temperature.optional(),
  max_tokens: maxTokens.optional(),
  status: z.enum(['active', 'inactive']).optional(),
  public_access: z.boolean().optional(),
  primary_color: color.optional(),
  /** null: follow the primary colour again (docs/API-NOTES.md "Agents") */
  secondary_color: color.nullable().optional(),
  accent_color: color.nullable().optional(),
  /** true: follow the primary colour; false: keep the colour as it is (or as sent) */
  secondary_follows_primary: z.boolean().optional(),
  accent_follows_primary: z.boolean().optional(),
  widget_position: z.enum(['bottom-right', 'bottom-left', 'top-right', 'top-left']).optional(),
  widget_theme: z.enum(['light', 'dark', 'auto']).optional(),
  widget_size: z.enum(['small', 'medium', 'large']).optional(),
  lead_capture_enabled: z.boolean().optional(),
  email_alerts_enabled: z.boolean().optional(),
  email_alert_address: emailField.nullable().optional(),
  rate_limit_enabled: z.boolean().optional(),
  messages_per_hour: z.number().int().min(1).max(10000).optional(),
  logo_url: httpUrlOrNull.optional(),
  avatar_url: httpUrlOrNull.optional(),
  font_family: fontFamily.optional(),
  font_size: fontSize.optional(),
  bubble_style: z.enum(['rounded', 'square']).optional(),
  auto_expand: z.boolean().optional(),
  // "" reads as null (the default branding), like the URLs above
  powered_by_text: z
    .string()
    .trim()
    .max(FIELD_MAX.agent.powered_by_text)
    .nullable()
    .transform((v) => v || null)
    .optional(),
  allowed_domains: allowedDomains.optional(),
  daily_message_limit: z.number().int().min(1).max(1_000_000).nullable().optional(),
  // what visitors read when the knowledge base has no answer (no provider key); "" or null: the default sentence
  no_answer_message: z
    .string()
    .trim()
    .max(FIELD_MAX.agent.no_answer_message)
    .nullable()
    .transform((v) => v || null)
    .optional(),
  show_sources: z.boolean().optional(),
  // issue 22.6: when the lead form shows, and what it says about consent
  lead_form_timing: z.enum(['before_chat', 'after_messages']).optional(),
  lead_form_after_messages: z.number().int().min(1).max(50).optional(),
  lead_consent_text: ownerText(FIELD_MAX.agent.lead_consent_text).optional(),
  privacy_policy_url: httpUrlOrNull.optional(),
  // issue 22.7: the widget's language and the owner's own wording
  language: z.enum(WIDGET_LANGUAGES).optional(),
  widget_texts: widgetTexts.optional(),
  // issue 22.3: what visitors read when the account's monthly messages are used up
  unavailable_message: ownerText(FIELD_MAX.agent.unavailable_message).optional(),
  // issue 23: starter questions, the greeting bubble, idle resolution, escalation words
  starter_questions: shortTexts(6, 120).optional(),
  greeting_message: ownerText(FIELD_MAX.agent.greeting_message).optional(),
  greeting_delay_s: z.number().int().min(1).max(120).optional(),
  auto_resolve_after_h: z.number().int().min(1).max(720).nullable().optional(),
  escalation_keywords: shortTexts(20, 40).optional(),
  // issue 33: the owner's synonyms, added to a question's keyword search
  synonyms: synonyms.optional(),
  // live handoff: how long an escalation waits for a person before the visitor is asked for contact details
  handoff_wait_s: z.number().int().min(15).max(3600).optional(),
  // issue 34.4: when a person can be asked for; null: always
  office_hours: officeHoursSchema.nullable().optional(),
});

/** Create takes every field update takes, with the same rules; only `name` is required. */
export const createAgentBody = updateAgentBody.extend({ name });

export type CreateAgentInput = z.infer<typeof createAgentBody>;
export type UpdateAgentInput = z.infer<typeof updateAgentBody>;

/** The Agent object: every field of docs/API.md "Objects" plus the widget fields of Public agent info. */
export const agentSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  model: z.string(),
  provider: z.enum(PROVIDERS),
  temperature: z.number(),
  max_tokens: z.number().int(),
  instructions: z.string(),
  system_message: z.string(),
  status: z.enum(['active', 'inactive']),
  public_access: z.boolean(),
  messages_count: z.number().int(),
  conversations_count: z.number().int(),
  primary_color: z.string(),
  secondary_color: z.string(),
  accent_color: z.string(),
  /** beyond the spec: the colour was never set (or was set to null) and follows the primary */
  secondary_follows_primary: z.boolean(),
  accent_follows_primary: z.boolean(),
  welcome_message: z.string(),
  widget_position: z.string(),
  widget_theme: z.string(),
  widget_size: z.string(),
  lead_capture_enabled: z.boolean(),
  email_alerts_enabled: z.boolean(),
  email_alert_address: z.string().nullable(),
  rate_limit_enabled: z.boolean(),
  messages_per_hour: z.number().int(),
  logo_url: z.string().nullable(),
  avatar_url: z.string().nullable(),
  font_family: z.string(),
  font_size: z.number().int(),
  bubble_style: z.string(),
  auto_expand: z.boolean(),
  powered_by_text: z.string().nullable(),
  allowed_domains: z.string().array(),
  daily_message_limit: z.number().int().nullable(),
  no_answer_message: z.string().nullable(),
  show_sources: z.boolean(),
  lead_form_timing: z.enum(['before_chat', 'after_messages']),
  lead_form_after_messages: z.number().int(),
  lead_consent_text: z.string().nullable(),
  privacy_policy_url: z.string().nullable(),
  language: z.enum(WIDGET_LANGUAGES),
  widget_texts: z.record(z.string(), z.string()),
  unavailable_message: z.string().nullable(),
  starter_questions: z.string().array(),
  greeting_message: z.string().nullable(),
  greeting_delay_s: z.number().int(),
  auto_resolve_after_h: z.number().int().nullable(),
  escalation_keywords: z.string().array(),
  synonyms: z.string().array(),
  handoff_wait_s: z.number().int(),
  office_hours: officeHoursView.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/**
 * Beyond the spec: the answer to a save (create, PUT) that sent a colour or the theme is the Agent
 * object plus `warnings`, one per colour the owner chose that the widget cannot show as chosen at
 * 4.5:1, saying what it shows instead (docs/API-NOTES.md "Agents"); nothing is refused for its colours.
 */
export const savedAgentSchema = agentSchema.extend({
  warnings: z
    .array(z.object({ field: z.enum(['primary_color', 'secondary_color', 'accent_color']), message: z.string() }))
    .optional(),
});

export const toggleResponse = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'inactive']),
  updated_at: z.string(),
});

export const agentIdParams = z.object({ chatbot_id: z.string().min(1).max(100) });

/** Public agent info (docs/API.md "Objects"), plus `status` so the widget can say when the agent is offline. */
export const publicAgentSchema = agentSchema
  .pick({
    id: true,
    name: true,
    welcome_message: true,
    primary_color: true,
    secondary_color: true,
    accent_color: true,
    logo_url: true,
    avatar_url: true,
    font_family: true,
    font_size: true,
    bubble_style: true,
    widget_theme: true,
    widget_position: true,
    widget_size: true,
    auto_expand: true,
    lead_capture_enabled: true,
    powered_by_text: true,
    status: true,
    /** beyond the spec: when the lead form shows, its consent text and privacy link */
    lead_form_timing: true,
    lead_form_after_messages: true,
    lead_consent_text: true,
    privacy_policy_url: true,
    /** beyond the spec: the widget's language (`auto`: the visitor's browser) and the owner's wording */
    language: true,
    widget_texts: true,
    /** beyond the spec: buttons before the first message, and the greeting bubble beside the closed widget */
    starter_questions: true,
    greeting_message: true,
    greeting_delay_s: true,
  })
  .extend({
    /** beyond the spec (issue 34.4): whether a person can be asked for now, and when the office hours open next */
    handoff: z.object({ available: z.boolean(), next_opening: z.string().nullable() }),
  });
