export { leadsRoutes } from './routes.js';
export { createLeads } from './module.js';
export type { ChannelMailReply } from './lead-mail.js';
