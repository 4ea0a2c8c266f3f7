export { webhookRoutes } from './routes.js';
export { createWebhooks } from './module.js';
