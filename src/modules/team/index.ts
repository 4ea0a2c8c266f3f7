export { teamRoutes } from './routes.js';
export { createTeam } from './module.js';
