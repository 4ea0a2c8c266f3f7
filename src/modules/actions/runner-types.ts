import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import type { ChatbotRow } from '../agents/index.js';
import type { SettingsKey } from '../settings/index.js';
import type { ActionsRepo } from './repo.js';
import type { ActionRow, ActionRunRow } from './tables.js';

/** The shapes of action runs (runner.ts), for the chat module and the booking side. */

/** The visitor the site vouched for in this turn (agents/identity.ts): what `{{user.*}}` fills from. */
export interface VerifiedVisitor {
  id: string;
  name?: string;
  email?: string;
}

export interface RunContext {
  agent: ChatbotRow;
  conversationId: string;
  /** the conversation's session (a booking's lead is linked by it) */
  sessionId: string;
  visitor?: VerifiedVisitor;
  signal?: AbortSignal;
}

/** What the widget shows for a run that waits for the visitor: what will be sent, Confirm / Cancel. */
export interface ActionCard {
  run_id: string;
  action_name: string;
  type: 'do' | 'booking';
  description: string;
  inputs: Record<string, string>;
  /** do: where it goes ("POST https://shop.example/tickets") */
  sends: string | null;
  /** booking: free slots to pick from */
  slots: { start: string; end: string }[];
  time_zone: string | null;
  /** booking: the visitor must give an e-mail address (none known) */
  needs_email: boolean;
}

export type StartOutcome =
  /** a look-up's result or failure, or why the action could not start: `text` for the model, `visitorText` for the visitor (no model) */
  | { kind: 'answer'; text: string; visitorText: string; run: ActionRunRow | null }
  /** a card for the visitor; nothing was sent yet */
  | { kind: 'confirm'; text: string; card: ActionCard; run: ActionRunRow };

export interface FinishOutcome {
  run: ActionRunRow;
  /** what the visitor is told (stored in the conversation as the agent's message) */
  message: string;
}

/** The booking side, plugged in by module.ts (booking.ts). */
export interface BookingRunner {
  offer(ctx: RunContext, action: ActionRow, run: ActionRunRow): Promise<ActionCard | string>;
  book(ctx: RunContext, action: ActionRow, run: ActionRunRow, choice: BookingChoice): Promise<FinishOutcome>;
}

export interface BookingChoice {
  start?: string;
  email?: string;
  name?: string;
}

export interface ActionRunnerDeps {
  repo: ActionsRepo;
  key: SettingsKey;
  clock: Clock;
  events: AppEvents;
  log: FastifyBaseLogger;
  /** the account's plan's monthly_action_runs */
  monthlyRuns: (accountId: string) => number;
  allowPrivateUrls: boolean;
  /** ACTION_TIMEOUT_S */
  timeoutMs: number;
  booking?: BookingRunner;
}
