export { createActions } from './module.js';
export { actionRoutes } from './routes.js';
export type {
  ActionCard,
  BookingChoice,
  FinishOutcome,
  RunContext,
  VerifiedVisitor,
} from './runner-types.js';
export type { ActionRunner } from './runner.js';
