import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import { JobQueue } from '../../platform/jobs/queue.js';
import { WebhooksRepo } from './repo.js';
import { WEBHOOK_JOB, type WebhookAllowance, WebhooksService } from './service.js';

export interface WebhooksDeps {
  db: Db;
  config: Config;
  clock: Clock;
  events: AppEvents;
  /** the account's plan and its webhook_deliveries_per_hour */
  allowance: (accountId: string) => WebhookAllowance;
  report: (what: string) => (err: unknown) => void;
}

/**
 * Webhooks and their own delivery queue. The service schedules retries itself (10 s up to 12 h
 * apart), so the queue's own attempts only count tries a crash interrupted. Two per account at once.
 */
export function createWebhooks(app: FastifyInstance, deps: WebhooksDeps) {
  const { db, config, clock } = deps;
  const webhookJobs = new JobQueue(db, clock, app.log, {
    concurrency: 4,
    perOwner: 2,
    kinds: [WEBHOOK_JOB],
    onError: (what, err) => deps.report(`webhook queue: ${what}`)(err),
  });
  app.decorate('webhookJobs', webhookJobs);
  const webhooks = new WebhooksService({
    repo: new WebhooksRepo(db),
    allowance: deps.allowance,
    queue: webhookJobs,
    events: deps.events,
    options: { dataDir: config.dataDir, allowPrivateUrls: config.allowPrivateUrls },
    clock,
    log: app.log,
  });
  app.addHook('onReady', async () => webhookJobs.start()); // picks up deliveries a previous process left unfinished
  app.addHook('onClose', async () => webhookJobs.stop());
  return { webhooks };
}
