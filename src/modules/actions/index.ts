export { createActions } from './module.js';
export { actionRoutes } from './routes.js';
export type { ActionsService } from './service.js';
export type {
  ActionCard,
  ActionRunner,
  BookingChoice,
  FinishOutcome,
  RunContext,
  StartOutcome,
  VerifiedVisitor,
} from './runner.js';
export type { ActionRow, ActionRunRow } from './tables.js';
