import type { Api } from './api.js';
import type { MoreTexts, Texts } from './i18n.js';
import type { VisitorState } from './storage.js';
import type { Failure } from './failure.js';
import type { VisitorIdentity } from './identity.js';
import type { Transcript } from './transcript.js';

/**
 * What the widget's parts (transcript, lead form, live handoff, feedback, starters, greeting)
 * share, given to each by the ChatWidget that composes them. Read at use time: `state` is a new
 * object after "new conversation", and the texts are set once the agent's language is known.
 */
export interface WidgetContext {
  readonly api: Api;
  readonly state: VisitorState;
  readonly t: Texts;
  readonly more: MoreTexts;
  /** the visitor's locale in the widget's language (dates and times) */
  readonly locale: string;
  /** the agent is not active: no messages, no live stream, no lead form, no greeting */
  readonly offline: boolean;
  readonly transcript: Transcript;
  /** the site's signed-in user (data-user-*), sent with each message; null: anonymous */
  readonly identity: VisitorIdentity | null;
  /** writes `state` to localStorage */
  save(): void;
  failure(err: unknown): Failure;
  /** the line above the message box, with a Retry button when `retry` is given */
  showNotice(message: string, retry: (() => void) | null): void;
  /** the message box takes the focus (not while it is disabled) */
  focusInput(): void;
}
