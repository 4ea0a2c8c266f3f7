/**
 * Shapes of the API's answers (docs/API-NOTES.md), named as the pages use them. They are derived from
 * api-types.ts, which scripts/gen-admin-types.ts generates from the server's /openapi.json, so a
 * change to a route's answer shows up here as a type error instead of a surprise at run time.
 */
import type { paths } from './api-types.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON answer of `method path` with status `status`. */
type Answer<P extends keyof paths, M extends Method & keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;
/** One element of an answer that is a list. */
type Item<T> = T extends ReadonlyArray<infer E> ? E : never;

/** GET /api/admin/users: an account as an administrator sees it */
export type User = Item<Answer<'/api/admin/users', 'get'>>;

/** GET /api/chatbots/{id} */
export type Agent = Answer<'/api/chatbots/{chatbot_id}', 'get'>;

export type Provider = Agent['provider'];

/** GET /api/sources/chatbot/{id}: a knowledge source */
export type Source = Item<Answer<'/api/sources/chatbot/{chatbot_id}', 'get'>>;

/** GET /api/chatbots/{id}/gaps: a question the agent could not answer well, grouped */
export type AnswerGap = Item<Answer<'/api/chatbots/{chatbot_id}/gaps', 'get'>>;

/** GET /api/sources/{id}/passages */
export type PassagePage = Answer<'/api/sources/{source_id}/passages', 'get'>;

/** One passage extracted from a source, and where in the source it comes from. */
export type Passage = PassagePage['passages'][number];

/** GET /api/chat/conversations/{chatbot_id} */
export type Conversation = Item<Answer<'/api/chat/conversations/{chatbot_id}', 'get'>>;

/** GET /api/chat/messages/{conversation_id} */
export type Message = Item<Answer<'/api/chat/messages/{conversation_id}', 'get'>>;

/** POST /api/chat/conversations/{chatbot_id}/{conversation_id}/draft-reply: a suggested reply for a taken conversation */
export type DraftReply = Answer<'/api/chat/conversations/{chatbot_id}/{conversation_id}/draft-reply', 'post'>;

/** GET /api/chatbot-leads/{chatbot_id}: a lead a visitor left in the widget */
export type WidgetLead = Item<Answer<'/api/chatbot-leads/{chatbot_id}', 'get'>>;

/** GET /api/leads: the account's own lead list */
export type AccountLead = Item<Answer<'/api/leads', 'get'>>;

export type LeadStatus = AccountLead['status'];

/** GET /api/analytics/dashboard */
export type Dashboard = Answer<'/api/analytics/dashboard', 'get'>;

/** GET /api/analytics/trends */
export type Trends = Answer<'/api/analytics/trends', 'get'>;

/** GET /api/analytics/chatbot/{id} */
export type AgentAnalytics = Answer<'/api/analytics/chatbot/{chatbot_id}', 'get'>;

/** Outcomes of the requested window (both analytics routes). */
export type AnalyticsOutcomes = Pick<
  Dashboard & AgentAnalytics,
  'conversations_resolved' | 'resolution_rate' | 'escalations' | 'thumbs_up' | 'thumbs_down' | 'thumbs_up_ratio'
>;

/** An open answer gap among the most asked. */
export type UnansweredQuestion = AgentAnalytics['top_unanswered'][number];

/** GET /api/system/status */
export type SystemStatus = Answer<'/api/system/status', 'get'>;

/** GET /api/auth/password-reset: whether the server can e-mail reset links (the login page's "Forgot password?"). */
export type PasswordResetAvailability = Answer<'/api/auth/password-reset', 'get'>;

/** POST /api/auth/password */
export type PasswordChanged = Answer<'/api/auth/password', 'post'>;

/** GET /api/auth/registration */
export type RegistrationState = Answer<'/api/auth/registration', 'get'>;

/** GET /api/admin/settings */
export type ServerSettingsView = Answer<'/api/admin/settings', 'get'>;

/** One server setting as an admin sees it: never the secret, a hint at most. */
export type SettingView = Omit<ServerSettingsView['smtp'], 'from'>;

/** Where a provider key or the mail server comes from (GET /api/admin/settings, GET /api/system/status `configured_by`). */
export type SettingSource = SettingView['source'];

/** GET /api/webhooks: an account's webhook (the API never shows its secret again after creating or rotating it). */
export type Webhook = Item<Answer<'/api/webhooks', 'get'>>;

/** POST /api/webhooks: the new webhook with its secret, shown this once */
export type WebhookWithSecret = Answer<'/api/webhooks', 'post', 201>;

/** GET /api/webhooks/{id}/deliveries */
export type WebhookDelivery = Item<Answer<'/api/webhooks/{id}/deliveries', 'get'>>;

/** GET /api/inbox: a conversation of any of the account's agents */
export type InboxItem = Item<Answer<'/api/inbox', 'get'>>;

/** GET /api/chat/conversations/{chatbot_id}/{conversation_id}/notes: an internal note */
export type ConversationNote = Item<Answer<'/api/chat/conversations/{chatbot_id}/{conversation_id}/notes', 'get'>>;

/** GET /api/saved-replies: a reply inserted with `/shortcut` */
export type SavedReply = Item<Answer<'/api/saved-replies', 'get'>>;

/** GET /api/team/assignees: a person a conversation can be assigned to */
export type Assignee = Item<Answer<'/api/team/assignees', 'get'>>;

/** GET /api/team/me: the signed-in person as the team sees them */
export type TeamMe = Answer<'/api/team/me', 'get'>;

/** take, hand back, assign: who handles the conversation and who it is assigned to */
export type TeamHandoffState = Answer<'/api/chat/conversations/{chatbot_id}/{conversation_id}/assignee', 'put'>;

/** GET /api/chatbots/{id}/actions: an agent's action (the API never shows its signing secret again after creating it) */
export type AgentAction = Item<Answer<'/api/chatbots/{chatbot_id}/actions', 'get'>>;

export type ActionType = AgentAction['type'];

/** POST /api/chatbots/{id}/actions: the new action with its signing secret, shown this once */
export type AgentActionWithSecret = Answer<'/api/chatbots/{chatbot_id}/actions', 'post', 201>;

/** What POST /api/chatbots/{id}/actions takes (PUT takes the same fields, each optional). */
export type AgentActionInput =
  paths['/api/chatbots/{chatbot_id}/actions']['post']['requestBody']['content']['application/json'];

/** GET /api/chatbots/{id}/conversations/{conversation_id}/action-runs: one run of an action in a conversation */
export type ActionRun = Item<Answer<'/api/chatbots/{chatbot_id}/conversations/{conversation_id}/action-runs', 'get'>>;

/** GET /api/analytics/chatbot/{id}/actions: per action, its runs in the window by how they ended */
export type ActionAnalytics = Answer<'/api/analytics/chatbot/{chatbot_id}/actions', 'get'>;

/** GET /api/chatbots/{id}/channels: a messaging network the agent can answer on (the token is never returned) */
export type ChannelView = Item<Answer<'/api/chatbots/{chatbot_id}/channels', 'get'>>;

/** The channel a conversation came in on: `web` (the widget, the share page) or a messaging network. */
export type ConversationChannel = Conversation['channel'];

/** GET /api/analytics/chatbot/{id}/channels: per channel, conversations started and messages written in the window */
export type ChannelActivity = Answer<'/api/analytics/chatbot/{chatbot_id}/channels', 'get'>;

/** GET /api/chatbots/{id}/tests: a test question and what a right answer holds */
export type AgentTest = Item<Answer<'/api/chatbots/{chatbot_id}/tests', 'get'>>;

/** POST /api/chatbots/{id}/tests/run: a run of the agent's tests with each result */
export type TestRun = Answer<'/api/chatbots/{chatbot_id}/tests/run', 'post'>;

/** GET /api/chatbots/{id}/tests/runs: the runs, newest first, without their results */
export type TestRunSummary = Item<Answer<'/api/chatbots/{chatbot_id}/tests/runs', 'get'>>;

/** POST /api/chatbots/{id}/tests/import: what a CSV added and the lines it could not use */
export type TestImport = Answer<'/api/chatbots/{chatbot_id}/tests/import', 'post'>;
