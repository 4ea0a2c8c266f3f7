export { AnalyticsRepo } from './repo.js';
export { AnalyticsService } from './service.js';
export { analyticsRoutes } from './routes.js';
