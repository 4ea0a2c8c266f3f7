export { PlanService, type PlanHolder } from './plans.js';
export { planRate, rateLimitPlugin, RATE_LIMIT_HEADERS } from './plugin.js';
export { MessageQuota, VISITOR_UNAVAILABLE_TEXT, type Account } from './quota.js';
export { usageRoutes } from './usage.js';
export { createLimits } from './module.js';
