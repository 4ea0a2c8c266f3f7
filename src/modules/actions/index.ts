export { createActions } from './module.js';
export { actionRoutes } from './routes.js';
export type {
  ActionCard,
  ActionRunner,
  BookingChoice,
  FinishOutcome,
  RunContext,
  VerifiedVisitor,
} from './runner.js';
