export { LeadsRepo } from './repo.js';
export { LeadsService, SEND_MAIL_JOB, DEDUP_WINDOW_MS } from './service.js';
export { leadsRoutes } from './routes.js';
export { toCsv } from './csv.js';
export { createLeads, type LeadsDeps } from './module.js';
