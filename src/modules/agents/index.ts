export { AgentsRepo } from './repo.js';
export { AgentsService, DEFAULT_MODEL, type PublicAgentInfo } from './service.js';
export type { ChatbotRow } from './tables.js';
export { agentRoutes } from './routes.js';
export { visitorCorsPlugin, visitorPreflight } from './visitor-cors.js';
export { synonymTerms } from './schemas.js';
export { instantOfWallTime, knownTimeZone, type OfficeHours, WEEKDAYS, wallClockMs } from './office-hours.js';
export { type ClaimedUser, IdentityService, type VisitorUser } from './identity.js';
export { identityRoutes } from './identity-routes.js';
