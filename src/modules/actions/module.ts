import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import type { AgentsService } from '../agents/index.js';
import { SettingsKey } from '../settings/index.js';
import { ActionsRepo } from './repo.js';
import { type BookingDeps, bookingRunner } from './booking.js';
import { ActionRunner } from './runner.js';
import type { ActionRunnerDeps } from './runner-types.js';
import { ActionsService } from './service.js';

export interface ActionsDeps {
  db: Db;
  config: Config;
  clock: Clock;
  events: AppEvents;
  agents: AgentsService;
  /** the account's plan's monthly_action_runs */
  monthlyRuns: (accountId: string) => number;
  /** the leads module's side of a booking: its lead and its invitation */
  leads: BookingDeps['leads'];
  /** the account's own address (a booking invitation's organizer) */
  accountEmail: (userId: string) => string;
  /** the conversation is the agent's (the chat module's) */
  holdsConversation: (chatbotId: string, conversationId: string) => boolean;
}

/** Actions: the owner's set-up (service) and their runs in conversations (runner). */
export function createActions(app: FastifyInstance, deps: ActionsDeps) {
  const repo = new ActionsRepo(deps.db);
  const key = new SettingsKey(deps.config.dataDir);
  const actions = new ActionsService({
    repo,
    agents: deps.agents,
    key,
    clock: deps.clock,
    options: { allowPrivateUrls: deps.config.allowPrivateUrls },
    holdsConversation: deps.holdsConversation,
  });
  const runnerDeps: ActionRunnerDeps = {
    repo,
    key,
    clock: deps.clock,
    events: deps.events,
    log: app.log,
    monthlyRuns: deps.monthlyRuns,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    timeoutMs: deps.config.actionTimeoutMs,
  };
  const runner = new ActionRunner(runnerDeps);
  // the booking side ends its runs through the runner, so it is made from it (the runner reads its deps at each run)
  runnerDeps.booking = bookingRunner(runner, {
    clock: deps.clock,
    events: deps.events,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    timeoutMs: deps.config.actionTimeoutMs,
    leads: deps.leads,
    accountEmail: deps.accountEmail,
    transaction: (fn) => repo.transaction(fn),
  });
  return { actions, runner, repo };
}
