export { SystemService, type SystemStatus, type RegistrationState, type SettingSource } from './service.js';
export { systemRoutes } from './routes.js';
export { healthRoutes, type HealthRouteOptions } from './health.js';
