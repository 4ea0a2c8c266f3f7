/** Shapes of the API's answers (README "API"), as far as the UI reads them. */

export interface User {
  id: string;
  name: string;
  email: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended' | 'banned';
  plan_id: string;
  plan_expires_at?: string | null;
  created_at: string;
  last_login: string | null;
}

export type Provider = 'openai' | 'anthropic' | 'google' | 'ollama';

export interface Agent {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  model: string;
  provider: Provider;
  temperature: number;
  max_tokens: number;
  instructions: string;
  status: 'active' | 'inactive';
  public_access: boolean;
  messages_count: number;
  conversations_count: number;
  primary_color: string;
  secondary_color: string;
  accent_color: string;
  welcome_message: string;
  widget_position: 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';
  widget_theme: 'light' | 'dark' | 'auto';
  widget_size: 'small' | 'medium' | 'large';
  lead_capture_enabled: boolean;
  email_alerts_enabled: boolean;
  email_alert_address: string | null;
  rate_limit_enabled: boolean;
  messages_per_hour: number;
  logo_url: string | null;
  avatar_url: string | null;
  font_family: string;
  font_size: number;
  bubble_style: 'rounded' | 'square';
  auto_expand: boolean;
  powered_by_text: string | null;
  allowed_domains: string[];
  daily_message_limit: number | null;
  /** what visitors read when the knowledge has no answer (no provider key); null: the default sentence */
  no_answer_message: string | null;
  /** whether visitors see the sources of an answer */
  show_sources: boolean;
  created_at: string;
  updated_at: string;
}

export interface Source {
  id: string;
  chatbot_id: string;
  type: 'file' | 'website' | 'text' | 'qa';
  name: string;
  url: string | null;
  file_type: string | null;
  file_size: number | null;
  status: 'processing' | 'completed' | 'failed';
  error_message: string | null;
  progress: number;
  pages_done: number | null;
  pages_found: number | null;
  /** websites: the crawl's cap and report (absent from older servers) */
  max_pages?: number | null;
  pages_skipped?: number | null;
  pages_skipped_by?: Record<'robots' | 'excluded' | 'not_html' | 'too_large' | 'failed', number> | null;
  page_cap_hit?: boolean | null;
  /** qa sources only: the question and the owner's answer */
  qa_question?: string;
  qa_answer?: string;
  created_at: string;
}

/** GET /api/chatbots/{id}/gaps: a question the agent could not answer well, grouped */
export interface AnswerGap {
  id: string;
  chatbot_id: string;
  question: string;
  question_key: string;
  reasons: Array<'no_passage' | 'unsure' | 'thumbs_down' | 'asked_person'>;
  count: number;
  status: 'open' | 'answered' | 'dismissed';
  source_id: string | null;
  conversation_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

/** One passage extracted from a source, and where in the source it comes from. */
export interface Passage {
  id: number;
  ordinal: number;
  content: string;
  token_count: number;
  /** the web page's title, or the document's title when it has one */
  title: string | null;
  /** websites: the page's own URL */
  page_url: string | null;
  /** PDFs: the page the passage starts on */
  page: number | null;
  /** the headings above the passage, outermost first, joined by " > " */
  heading: string | null;
}

/** GET /api/sources/{id}/passages */
export interface PassagePage {
  source: Source;
  total: number;
  offset: number;
  passages: Passage[];
}

export interface Conversation {
  id: string;
  chatbot_id: string;
  session_id: string | null;
  user_name: string | null;
  user_email: string | null;
  status: 'active' | 'resolved' | 'escalated';
  /** 1-5 from the visitor's thumbs (share of thumbs up); null when no answer is rated */
  rating: number | null;
  message_count: number;
  created_at: string;
  updated_at: string;
  escalated_at?: string | null;
  resolved_at?: string | null;
  /** a message came after the transcript was last opened */
  unread?: boolean;
}

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  /** an answer cut off part-way: `content` is the partial text the visitor saw */
  interrupted: boolean;
  /** the visitor's thumbs on an answer: 1 up, -1 down */
  feedback?: number | null;
}

export interface WidgetLead {
  id: string;
  chatbot_id: string;
  name: string;
  phone: string;
  session_id: string | null;
  created_at: string;
}

export type LeadStatus = 'New' | 'Contacted' | 'Closed';

export interface AccountLead {
  id: string;
  name: string;
  contact: string;
  status: LeadStatus;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

/** Outcomes of the requested window (both analytics routes). */
export interface AnalyticsOutcomes {
  conversations_resolved: number;
  /** 0..1 */
  resolution_rate: number;
  escalations: number;
  thumbs_up: number;
  thumbs_down: number;
  /** 0..1; null when nothing was rated */
  thumbs_up_ratio: number | null;
}

/** An open answer gap among the most asked. */
export interface UnansweredQuestion {
  id: string;
  question: string;
  count: number;
  reasons: string[];
  last_seen_at: string;
}

export interface Dashboard extends AnalyticsOutcomes {
  total_conversations: number;
  total_messages: number;
  active_chatbots: number;
  total_chatbots: number;
  total_leads: number;
  top_unanswered: Array<UnansweredQuestion & { chatbot_id: string; chatbot_name: string }>;
}

export interface Trends {
  conversations: Array<{ date: string; count: number }>;
  messages: Array<{ date: string; count: number }>;
  avg_response_time: string;
}

export interface AgentAnalytics extends AnalyticsOutcomes {
  total_conversations: number;
  total_messages: number;
  date_range: string[];
  conversations_by_date: Record<string, number>;
  messages_by_date: Record<string, number>;
  top_unanswered: UnansweredQuestion[];
}

export interface SystemStatus {
  providers: Record<Provider, boolean>;
  knowledge_only: boolean;
  embeddings: 'openai' | 'google' | 'ollama' | 'none';
  mail: { configured: boolean; pending: number };
  /** where each provider key and the mail server come from (absent from older servers) */
  configured_by?: Record<Provider | 'mail', SettingSource>;
  plans: string[];
  /** base URL of embed snippets, share links and e-mail links (PUBLIC_URL, or http://localhost:PORT) */
  public_url: string;
  /** whether PUBLIC_URL is set on the server */
  public_url_configured: boolean;
  /** full: the disk is full (writes refused, reads work); corrupt: a restore is needed */
  database: { state: 'ok' | 'full' | 'corrupt'; detail: string | null; integrity_checked_at: string | null };
  backups:
    | { scheduled: false }
    | { scheduled: true; last_success_at: string | null; last_failure_at: string | null; last_error: string | null; failing: boolean };
}

/** GET /api/auth/password-reset: whether the server can e-mail reset links (the login page's "Forgot password?"). */
export interface PasswordResetAvailability {
  available: boolean;
}

/** POST /api/auth/password */
export interface PasswordChanged {
  detail: string;
  other_sessions_ended: number;
}

export interface RegistrationState {
  registration: 'open' | 'closed' | 'first-only';
  open: boolean;
}

/** Where a provider key or the mail server comes from (GET /api/admin/settings, GET /api/system/status `configured_by`). */
export type SettingSource = 'environment' | 'database' | 'none';

/** One server setting as an admin sees it: never the secret, a hint at most. */
export interface SettingView {
  source: SettingSource;
  configured: boolean;
  /** the environment variable that wins when set (OPENAI_API_KEY, SMTP_URL, ...) */
  env_variable: string;
  /** the key's last 4 characters, or the host/URL without its password */
  hint: string | null;
  /** what the server's database holds; unreadable: its key file was lost, so it must be entered again */
  stored: 'none' | 'readable' | 'unreadable';
  updated_at: string | null;
}

/** GET /api/admin/settings */
export interface ServerSettingsView {
  providers: Record<Provider, SettingView & { base_url: string | null }>;
  smtp: SettingView & { from: string | null };
  embeddings: SystemStatus['embeddings'];
}

/** An account's webhook (the API never shows its secret again after creating or rotating it). */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  created_at: string;
  updated_at: string;
}

export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}
