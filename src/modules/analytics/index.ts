export { AnalyticsRepo } from './repo.js';
export { AnalyticsService } from './service.js';
export { analyticsRoutes, days as analyticsDays } from './routes.js';
