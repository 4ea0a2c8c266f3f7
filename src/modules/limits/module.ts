import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import { MessageQuota, quotaWarningMail } from './quota.js';
import type { PlanService } from './plans.js';
import { RateLimiter } from './rate-limiter.js';
import { LimitsRepo } from './repo.js';

export interface LimitsDeps {
  db: Db;
  config: Config;
  clock: Clock;
  plans: PlanService;
  /** queues an e-mail to an account (the leads module's outbox) */
  queueAccountNotice: (accountId: string, subject: string, body: string) => void;
  report: (what: string) => (err: unknown) => void;
}

/** Message quotas and the rate limiter, whose counters of running windows come back from the database. */
export function createLimits(app: FastifyInstance, deps: LimitsDeps) {
  const { db, config, clock, plans } = deps;
  const repo = new LimitsRepo(db);
  const rateLimiter = new RateLimiter({ repo, clock, onFlushError: deps.report('writing the rate-limit counters') });
  // the message that makes the month reach 80% or 100% queues the owner's warning, in its transaction
  const quota = new MessageQuota({
    repo,
    plans,
    clock,
    onCrossing: (crossing) => {
      const mail = quotaWarningMail(crossing, config.publicUrl);
      deps.queueAccountNotice(crossing.account.id, mail.subject, mail.body);
    },
  });
  // a restart is no reset
  rateLimiter.start();
  app.addHook('onClose', async () => rateLimiter.stop());
  return { rateLimiter, quota };
}
