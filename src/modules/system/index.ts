export { SystemService } from './service.js';
export { systemRoutes } from './routes.js';
export { healthRoutes } from './health.js';
