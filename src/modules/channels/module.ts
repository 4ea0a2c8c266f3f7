import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import { JobQueue } from '../../platform/jobs/queue.js';
import type { AgentsService } from '../agents/index.js';
import type { ChannelTurns } from '../chat/index.js';
import { ChannelConnections } from './connections.js';
import { ChannelMessaging, type MessagingDeps, RECEIVE_JOB, SEND_JOB } from './messaging.js';
import { PollingReceivers } from './receiver.js';
import { ChannelsRepo } from './repo.js';
import { ChannelsService, type ChannelsServiceDeps } from './service.js';

/** how long one long poll waits for a message: Telegram's own examples use 25-30 s */
const TELEGRAM_POLL_S = 25;

export interface ChannelsDeps {
  db: Db;
  config: Config;
  clock: Clock;
  events: AppEvents;
  agents: AgentsService;
  chat: ChannelTurns;
  activityOf: ChannelsServiceDeps['activityOf'];
  allowVisitor: (key: string, accountId: string) => boolean;
  captureLead: MessagingDeps['captureLead'];
  queueMailReply: MessagingDeps['queueMailReply'];
  notice: (accountId: string, subject: string, body: string) => void;
  mailConfigured: () => boolean;
  report: (what: string) => (err: unknown) => void;
}

/**
 * Messaging channels (docs/CHANNELS.md) with two queues of their own: answering (a model's
 * answer takes seconds) and sending. Both run one job per chat at a time, so a chat's messages
 * are answered and sent in order.
 */
export function createChannels(app: FastifyInstance, deps: ChannelsDeps) {
  const { db, config, clock } = deps;
  const repo = new ChannelsRepo(db);
  const queue = (kind: string, concurrency: number) =>
    new JobQueue(db, clock, app.log, {
      concurrency,
      perOwner: 1,
      kinds: [kind],
      onError: (what, err) => deps.report(`channel queue: ${what}`)(err),
    });
  const receiveJobs = queue(RECEIVE_JOB, 4);
  const sendJobs = queue(SEND_JOB, 4);
  app.decorate('channelJobs', { receive: receiveJobs, send: sendJobs });
  const connections = new ChannelConnections({
    repo,
    agents: deps.agents,
    options: {
      dataDir: config.dataDir,
      publicUrl: config.publicUrl,
      webhooks: config.publicUrlConfigured && config.publicUrl.startsWith('https://'),
      apiRoots: { telegram: config.telegramApiRoot, whatsapp: config.whatsappApiRoot },
      allowPrivateUrls: config.allowPrivateUrls,
    },
    clock,
    log: app.log,
    notice: deps.notice,
    mailConfigured: deps.mailConfigured,
  });
  const messaging = new ChannelMessaging({
    repo,
    connections,
    agents: deps.agents,
    chat: deps.chat,
    receiveJobs,
    sendJobs,
    allowVisitor: deps.allowVisitor,
    captureLead: deps.captureLead,
    queueMailReply: deps.queueMailReply,
    clock,
    log: app.log,
  });
  const receivers = new PollingReceivers({
    client: (row) => connections.client(row),
    reload: (id) => repo.connection(id),
    store: (row, batch) => messaging.store(row, batch),
    fail: (row, reason) => connections.fail(row, reason),
    log: app.log,
    waitS: TELEGRAM_POLL_S,
  });
  const channels = new ChannelsService({
    repo,
    agents: deps.agents,
    connections,
    messaging,
    receivers,
    events: deps.events,
    clock,
    activityOf: deps.activityOf,
  });
  app.addHook('onReady', async () => {
    receiveJobs.start();
    sendJobs.start();
    channels.start();
  });
  app.addHook('onClose', async () => {
    await channels.stop();
    await Promise.all([receiveJobs.stop(), sendJobs.stop()]);
  });
  return { channels };
}
