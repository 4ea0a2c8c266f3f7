export { SystemService, type SystemStatus, type RegistrationState } from './service.js';
export { systemRoutes } from './routes.js';
