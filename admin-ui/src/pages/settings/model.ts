import type { Agent } from '../../types.js';
import type { Lang, TextKey } from '../../../../widget/src/i18n.js';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export interface TimeRange {
  from: string;
  to: string;
}
/** issue 34.4: when a person can be asked for, in one time zone (docs/API-NOTES.md "Office hours and availability") */
export interface OfficeHours {
  time_zone: string;
  days: Record<Weekday, TimeRange[]>;
}

/** The widget's language: `auto` follows the visitor's browser. */
export type WidgetLanguage = 'auto' | Lang;

/** The agent with the settings of issue 22 (lead form timing and consent, widget language and texts). */
export type AgentSettings = Agent & {
  lead_form_timing: 'before_chat' | 'after_messages';
  lead_form_after_messages: number;
  lead_consent_text: string | null;
  privacy_policy_url: string | null;
  language: WidgetLanguage;
  widget_texts: Partial<Record<TextKey, string>>;
  unavailable_message: string | null;
  // issue 23: starter questions, greeting bubble, idle resolution, escalation words
  starter_questions: string[];
  greeting_message: string | null;
  greeting_delay_s: number;
  auto_resolve_after_h: number | null;
  escalation_keywords: string[];
  /** live handoff: seconds an escalation waits for a person before the visitor is asked for contact details */
  handoff_wait_s: number;
  /** issue 33: the owner's synonyms for the keyword search, one group a line ("cornetto = croissant") */
  synonyms: string[];
  /** null: a person can be asked for at any time */
  office_hours: OfficeHours | null;
};

export type Draft = Partial<AgentSettings>;
export type Setter = <K extends keyof AgentSettings>(key: K, value: AgentSettings[K]) => void;

export const pick = (agent: AgentSettings, keys: Array<keyof AgentSettings>): Draft =>
  Object.fromEntries(keys.map((k) => [k, agent[k]])) as Draft;

/**
 * Unsaved edits of the settings, per section: only the fields that differ from the stored agent.
 * They are kept by the agent page, above its tabs (see AgentPage), so they outlive this tab and
 * any other section's Save; a section's own Save or Discard is what ends them.
 */
export interface SettingsDrafts {
  sections: Partial<Record<SectionId, Draft>>;
  /** the allowed-domains box's text (a list cannot be edited line by line) */
  domains?: string;
}
export type UpdateDrafts = (change: (drafts: SettingsDrafts) => SettingsDrafts) => void;
export const NO_DRAFTS: SettingsDrafts = { sections: {} };

/** The sections with a draft of the agent's fields: id, title (also the form's name) and fields. */
export const SECTIONS = {
  general: {
    title: 'General',
    keys: [
      'name',
      'description',
      'welcome_message',
      'no_answer_message',
      'unavailable_message',
      'show_sources',
      'public_access',
    ],
  },
  behaviour: {
    title: 'Behaviour',
    keys: ['provider', 'model', 'instructions', 'temperature', 'max_tokens', 'synonyms'],
  },
  appearance: {
    title: 'Appearance',
    keys: [
      'primary_color',
      'secondary_color',
      'secondary_follows_primary',
      'accent_color',
      'accent_follows_primary',
      'widget_position',
      'widget_theme',
      'widget_size',
      'bubble_style',
      'font_family',
      'font_size',
      'logo_url',
      'avatar_url',
      'auto_expand',
      'powered_by_text',
    ],
  },
  texts: { title: 'Language and texts', keys: ['language', 'widget_texts'] },
  leads: {
    title: 'Lead capture and e-mail alerts',
    keys: [
      'lead_capture_enabled',
      'lead_form_timing',
      'lead_form_after_messages',
      'lead_consent_text',
      'privacy_policy_url',
      'email_alerts_enabled',
      'email_alert_address',
    ],
  },
  rate: { title: 'Rate limit', keys: ['rate_limit_enabled', 'messages_per_hour', 'daily_message_limit'] },
  engagement: {
    title: 'Starters, greeting and hand-over',
    keys: [
      'starter_questions',
      'greeting_message',
      'greeting_delay_s',
      'auto_resolve_after_h',
      'escalation_keywords',
      'handoff_wait_s',
    ],
  },
  hours: { title: 'Office hours', keys: ['office_hours'] },
} satisfies Record<string, { title: string; keys: Array<keyof AgentSettings> }>;
export type SectionId = keyof typeof SECTIONS;

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of a section's draft that differ from the stored agent. */
export function changedFields(agent: AgentSettings, keys: Array<keyof AgentSettings>, draft: Draft | undefined): Draft {
  if (!draft) return {};
  return Object.fromEntries(
    keys.filter((k) => k in draft && !same(draft[k], agent[k])).map((k) => [k, draft[k]]),
  ) as Draft;
}

export const domainList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The titles of the sections with unsaved changes, in page order. */
export function unsavedSettings(stored: Agent, drafts: SettingsDrafts): string[] {
  const agent = stored as AgentSettings;
  const titles = (Object.keys(SECTIONS) as SectionId[])
    .filter((id) => Object.keys(changedFields(agent, SECTIONS[id].keys, drafts.sections[id])).length > 0)
    .map((id) => SECTIONS[id].title);
  if (drafts.domains !== undefined && !same(domainList(drafts.domains), agent.allowed_domains))
    titles.push('Allowed domains');
  return titles;
}

export const nullIfEmpty = (v: string) => (v.trim() === '' ? null : v);

/** What every section is given: the stored agent, the drafts kept above the tabs, and what to do once saved. */
export interface SectionProps {
  agent: AgentSettings;
  onSaved: (a: Agent) => void;
  drafts: SettingsDrafts;
  updateDrafts: UpdateDrafts;
}
