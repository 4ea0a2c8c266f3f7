import type { ChatbotRow } from './tables.js';

/** What visitors' widgets are told about an agent (GET /api/public/chatbot/{id}). */

export type PublicAgentInfo = Pick<
  ChatbotRow,
  | 'id'
  | 'name'
  | 'welcome_message'
  | 'primary_color'
  | 'secondary_color'
  | 'accent_color'
  | 'logo_url'
  | 'avatar_url'
  | 'font_family'
  | 'font_size'
  | 'bubble_style'
  | 'widget_theme'
  | 'widget_position'
  | 'widget_size'
  | 'auto_expand'
  | 'lead_capture_enabled'
  | 'powered_by_text'
  | 'status'
  | 'lead_form_timing'
  | 'lead_form_after_messages'
  | 'lead_consent_text'
  | 'privacy_policy_url'
  | 'language'
  | 'widget_texts'
  | 'starter_questions'
  | 'greeting_message'
  | 'greeting_delay_s'
>;

/** An agent's public info, and its JSON once the public route asked for it. */
export interface PublicEntry {
  info: PublicAgentInfo;
  json?: string;
}

/** What visitors' widgets read about an agent (docs/API.md "Objects"). */
export function publicView(row: ChatbotRow, branded: boolean, status: 'active' | 'inactive'): PublicAgentInfo {
  return {
    id: row.id,
    name: row.name,
    welcome_message: row.welcome_message,
    primary_color: row.primary_color,
    secondary_color: row.secondary_color,
    accent_color: row.accent_color,
    logo_url: row.logo_url,
    avatar_url: row.avatar_url,
    font_family: row.font_family,
    font_size: row.font_size,
    bubble_style: row.bubble_style,
    widget_theme: row.widget_theme,
    widget_position: row.widget_position,
    widget_size: row.widget_size,
    auto_expand: row.auto_expand,
    lead_capture_enabled: row.lead_capture_enabled,
    powered_by_text: branded ? row.powered_by_text : null,
    status,
    lead_form_timing: row.lead_form_timing,
    lead_form_after_messages: row.lead_form_after_messages,
    lead_consent_text: row.lead_consent_text,
    privacy_policy_url: row.privacy_policy_url,
    language: row.language,
    widget_texts: row.widget_texts,
    starter_questions: row.starter_questions,
    greeting_message: row.greeting_message,
    greeting_delay_s: row.greeting_delay_s,
  };
}
