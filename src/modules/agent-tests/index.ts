export { agentTestRoutes } from './routes.js';
export { createAgentTests } from './module.js';
