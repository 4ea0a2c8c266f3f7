export { AgentsRepo } from './repo.js';
export { AgentsService, toAgentView, DEFAULT_WELCOME, DEFAULT_INSTRUCTIONS } from './service.js';
export { agentRoutes } from './routes.js';
export { agentSchema } from './schemas.js';
export * as agentTables from './tables.js';
