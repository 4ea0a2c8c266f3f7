export { AnalyticsRepo } from './repo.js';
export { AnalyticsService, formatDuration, trendLabel, DEFAULT_DAYS, MIN_DAYS, MAX_DAYS } from './service.js';
export { analyticsRoutes } from './routes.js';
