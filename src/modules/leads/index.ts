export { leadsRoutes } from './routes.js';
export { createLeads } from './module.js';
