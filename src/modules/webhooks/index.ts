export {
  WebhooksService,
  WEBHOOK_JOB,
  WEBHOOK_EVENTS,
  MAX_WEBHOOKS,
  MAX_ATTEMPTS,
  RETRY_SCHEDULE_MS,
} from './service.js';
export { WebhooksRepo } from './repo.js';
export { webhookRoutes } from './routes.js';
export { signatureHeader, verifySignature } from './signing.js';
export { createWebhooks, type WebhooksDeps } from './module.js';
