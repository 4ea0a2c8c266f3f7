export { PlanService, type PlanHolder } from './plans.js';
export { LimitsRepo } from './repo.js';
export { RateLimiter } from './rate-limiter.js';
export { rateLimitPlugin, RATE_LIMIT_HEADERS } from './plugin.js';
export { MessageQuota, quotaWarningMail, VISITOR_UNAVAILABLE_TEXT, type Account, type QuotaCrossing } from './quota.js';
export { usageRoutes, usageOf, type Usage } from './usage.js';
export { createLimits, type LimitsDeps } from './module.js';
