export { AgentsRepo } from './repo.js';
export {
  AgentsService,
  DEFAULT_MODEL,
  toAgentView,
  DEFAULT_WELCOME,
  DEFAULT_INSTRUCTIONS,
  type PublicAgentInfo,
} from './service.js';
export type { ChatbotRow } from './tables.js';
export { agentRoutes } from './routes.js';
export { agentSchema } from './schemas.js';
export * as agentTables from './tables.js';
export { visitorCorsPlugin, visitorPreflight } from './visitor-cors.js';
