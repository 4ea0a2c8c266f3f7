import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import { JobQueue } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AgentsService } from '../agents/index.js';
import type { PlanService } from '../limits/index.js';
import { LeadsRepo } from './repo.js';
import { LeadsService, SEND_CHANNEL_MAIL_JOB, SEND_MAIL_JOB } from './service.js';

export interface LeadsDeps {
  db: Db;
  config: Config;
  clock: Clock;
  agents: AgentsService;
  plans: PlanService;
  mailer: Mailer;
  /** called back when the mail settings change (the queue starts once mail is configured) */
  onMailSettingsChange: (listener: () => void) => void;
  accountEmail: (userId: string) => string;
  events: AppEvents;
  report: (what: string) => (err: unknown) => void;
}

/**
 * Leads and the account's e-mail notices (lead alerts, quota warnings, escalations), sent through
 * their own queue so a long ingestion never delays a lead's e-mail; retried until delivered
 * (backoff up to a minute), across restarts.
 */
export function createLeads(app: FastifyInstance, deps: LeadsDeps) {
  const { db, config, clock, mailer, report } = deps;
  const mailJobs = new JobQueue(db, clock, app.log, {
    concurrency: 2,
    maxAttempts: Number.MAX_SAFE_INTEGER,
    kinds: [SEND_MAIL_JOB],
    onError: (what, err) => report(`lead-alert queue: ${what}`)(err),
  });
  app.decorate('mailJobs', mailJobs);
  // an e-mail channel's replies through its own SMTP server: they need no SMTP_URL, so this queue always runs
  const channelMailJobs = new JobQueue(db, clock, app.log, {
    concurrency: 2,
    maxAttempts: Number.MAX_SAFE_INTEGER,
    kinds: [SEND_CHANNEL_MAIL_JOB],
    onError: (what, err) => report(`channel mail queue: ${what}`)(err),
  });
  const leads = new LeadsService({
    repo: new LeadsRepo(db),
    agents: deps.agents,
    plans: deps.plans,
    mailJobs,
    channelMailJobs,
    mailer,
    options: { publicUrl: config.publicUrl, accountEmail: deps.accountEmail },
    clock,
    log: app.log,
    events: deps.events,
  });

  // The queue runs while mail is configured: started when an admin saves an SMTP server
  // (held-back alerts then go out), stopped when it is removed (running sends stay queued).
  // One change at a time: a start waits until a stop has let the running sends settle.
  const mailQueue = {
    ready: false,
    closing: false,
    chain: Promise.resolve(),
    sync() {
      this.chain = this.chain
        .then(async () => {
          if (!this.ready || this.closing) return;
          if (mailer.configured) mailJobs.start();
          else await mailJobs.stop();
        })
        .catch(report('starting or stopping the lead-alert queue'));
    },
  };
  deps.onMailSettingsChange(() => mailQueue.sync());
  app.addHook('onReady', async () => {
    // without mail configured alerts stay queued (the status says so) and go out once it is
    mailQueue.ready = true;
    mailQueue.sync();
    channelMailJobs.start();
  });
  // running sends stop at a safe point; unsent mail stays queued for the next start
  app.addHook('onClose', async () => {
    mailQueue.closing = true;
    await mailQueue.chain;
    await Promise.all([mailJobs.stop(), channelMailJobs.stop()]);
  });
  return { leads };
}
