import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import { databaseIsHealthy, type AppDatabase } from './platform/db/index.js';
import { WalCheckpointer } from './platform/db/checkpointer.js';
import { DatabaseCondition } from './platform/db/condition.js';
import { IntegrityWatch } from './platform/db/integrity.js';
import { SpaceReclaimer } from './platform/db/space.js';
import {
  clientErrorHandler,
  type ConnectionGuardOptions,
  DEFAULT_CONNECTION_GUARDS,
  frameworkErrorHandler,
  registerHttpPlatform,
} from './platform/http/index.js';
import { AppEvents } from './platform/events.js';
import { newId } from './platform/ids.js';
import { stdoutLogDestination } from './platform/log-destination.js';
import { appVersion } from './platform/version.js';
import { adminRoutes } from './modules/admin/index.js';
import { AgentsRepo, AgentsService, agentRoutes, visitorCorsPlugin } from './modules/agents/index.js';
import { AuthRepo, AuthService, authenticationPlugin, authRoutes } from './modules/auth/index.js';
import { ChatRepo, ChatService, chatRoutes, HandoffService } from './modules/chat/index.js';
import { AnalyticsRepo, AnalyticsService, analyticsRoutes } from './modules/analytics/index.js';
import { LeadsRepo, LeadsService, leadsRoutes, SEND_MAIL_JOB } from './modules/leads/index.js';
import { dynamicMailer } from './platform/mail/index.js';
import { AnswerGapsService, INGEST_JOB, IngestionService, KeywordSearcher, KnowledgeRepo, KnowledgeService, knowledgeRoutes, StorageQuota, VectorIndex } from './modules/knowledge/index.js';
import { JobQueue } from './platform/jobs/queue.js';
import { createParserPool } from './platform/workers/pool.js';
import { LimitsRepo, MessageQuota, PlanService, quotaWarningMail, RateLimiter, rateLimitPlugin, usageRoutes } from './modules/limits/index.js';
import { webRoutes } from './modules/web/index.js';
import { SystemService, systemRoutes } from './modules/system/index.js';
import { adminUiRoutes } from './modules/admin-ui/index.js';
import { BackupScheduler } from './modules/backup/index.js';
import { createEmbedder } from './providers/embeddings/index.js';
import { providerRegistry, type ProviderRegistry } from './providers/llm/registry.js';
import { ServerSettings, settingsRoutes } from './modules/settings/index.js';
import { WEBHOOK_JOB, WebhooksService, webhookRoutes } from './modules/webhooks/index.js';

export interface AppDeps {
  config: Config;
  database: AppDatabase;
  clock?: Clock;
  /** pino options or false; defaults to the configured level */
  logger?: boolean | { level: string };
  /** the HTTP timeouts, shortened by tests (defaults below) */
  httpTimeouts?: { requestMs: number; headersMs: number; checkEveryMs?: number };
  /** connections per address and the minimum body rate, shortened by tests (connection-guards.ts) */
  connectionGuards?: Partial<ConnectionGuardOptions>;
}

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** the durable job queue (tests wait on `jobs.idle()` instead of polling) */
    jobs: JobQueue;
    /** the lead-alert queue */
    mailJobs: JobQueue;
    /** the webhook-delivery queue (tests wait on `webhookJobs.idle()`) */
    webhookJobs: JobQueue;
    /** gives the space of deleted data back to the disk (tests wait on `space.idle()`) */
    space: SpaceReclaimer;
    /** quick_check at start, daily, and after a request met damage (tests await `checkNow()`) */
    integrity: IntegrityWatch;
    /** scheduled backups (BACKUP_INTERVAL_H), when on */
    backups: BackupScheduler | undefined;
    /** the LLM providers as configured now (environment, else an admin's stored settings) */
    providers: ProviderRegistry;
    /** provider keys and SMTP an admin stored (Admin > Server settings) */
    serverSettings: ServerSettings;
    /** what happened (conversation escalated or resolved, message or lead created), for listeners such as webhooks */
    events: AppEvents;
  }
}

/** How often open conversations are checked for their agent's idle time (auto_resolve_after_h). */
const IDLE_RESOLVE_EVERY_MS = 5 * 60_000;

/**
 * Request ids for the log: a random prefix per process start plus a counter. Unique across
 * restarts in practice, and far cheaper per request than a UUID (which draws random bytes).
 */
function requestIds(): () => string {
  const prefix = newId().slice(-8);
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/** JSON request bodies above this are refused with 413 (file uploads get their own limit). */
const JSON_BODY_LIMIT = 1024 * 1024;

/** Longest time to receive one request, body included (see the Fastify options below). */
const REQUEST_TIMEOUT_MS = 15 * 60_000;
/** Longest time to receive a request's headers. */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * Builds the whole app without listening: platform plugins, then feature modules. Tests call this
 * and `inject`; main.ts calls it and listens. The caller owns the database and closes it.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;
  const timeouts = deps.httpTimeouts ?? { requestMs: REQUEST_TIMEOUT_MS, headersMs: HEADERS_TIMEOUT_MS };
  const version = appVersion();

  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel, stream: stdoutLogDestination() },
    genReqId: requestIds(),
    bodyLimit: JSON_BODY_LIMIT,
    // requestTimeout bounds receiving the whole request, body included: a 100 MB upload at 1 Mbit/s
    // takes about 14 minutes (the former 30 s, which Node's 30 s checks stretched to 60-90 s, cut
    // uploads off mid-way with 408/EPIPE). Slow headers stay bounded by headersTimeout (60 s) and a
    // silent connection by connectionTimeout (60 s without a byte).
    requestTimeout: timeouts.requestMs,
    // Node checks both every connectionsCheckingInterval (30 s unless a test shortens it)
    http: { headersTimeout: timeouts.headersMs, ...(timeouts.checkEveryMs ? { connectionsCheckingInterval: timeouts.checkEveryMs } : {}) },
    connectionTimeout: 60_000,
    keepAliveTimeout: 10_000,
    // a number of hops as Fastify reads one (its types leave numbers out): the n proxies nearest
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Whoever meets a full disk or a damaged page tells `databaseCondition`: requests through the
  // error handler (507/503), timers and background tasks through `report`, which never throws, so
  // no timer can take the process down on a database error.
  const databaseCondition = new DatabaseCondition(config.dataDir, clock, app.log);
  const report = (what: string) => (err: unknown) => databaseCondition.report(what, err);
  app.decorate('databaseCondition', databaseCondition);
  // behind a trusted proxy every connection comes from the proxy: the cap is the proxy's job there
  const connectionGuards = { ...DEFAULT_CONNECTION_GUARDS, ...(config.trustProxy === false ? {} : { maxPerAddress: 0 }), ...deps.connectionGuards };
  await registerHttpPlatform(app, { version, connectionGuards, databaseCondition });
  // Group commit (platform/db/durability.ts): a response that may acknowledge a write waits until
  // the WAL is on disk. Reads never wait. Streamed chat answers wait before their `done` event.
  const durable = () => database.durability.barrier();
  // WAL checkpoints in a worker thread instead of inside whichever commit crosses the threshold
  const checkpointer = new WalCheckpointer(database.sqlite, config.databaseFile, app.log, report('a WAL checkpoint'));
  checkpointer.start();
  app.addHook('onClose', async () => checkpointer.stop());
  // space freed by deletions goes back to the disk (checked every minute, and at once after a source is deleted)
  const space = new SpaceReclaimer(database.sqlite, app.log, () => checkpointer.checkpointNow(), report('giving free database pages back'));
  space.start();
  app.addHook('onClose', async () => space.stop());
  app.decorate('space', space);
  const integrity = new IntegrityWatch(config.databaseFile, databaseCondition, app.log);
  databaseCondition.onCorruptionNoticed = () => integrity.soon();
  app.addHook('onClose', async () => integrity.stop());
  app.decorate('integrity', integrity);
  const backups = config.backup.intervalMs > 0 ? new BackupScheduler(database.sqlite, config.backup, clock, app.log) : undefined;
  app.decorate('backups', backups);
  // callback style, so a read passes straight through (no promise, no microtask hop)
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return done(null, payload);
    durable().then(() => done(null, payload), done);
  });

  // Services: one instance each, wired by hand (the graph is small and reads top to bottom).
  // Provider keys and the mail server: the environment's, else what an admin stored (encrypted,
  // modules/settings); both are read at every use, so a change applies without a restart.
  // emitted inside the transactions that store the change (platform/events.ts)
  const events = new AppEvents();
  app.decorate('events', events);
  const serverSettings = new ServerSettings({ db: database.db, config, clock, log: app.log });
  app.decorate('serverSettings', serverSettings);
  const mailer = dynamicMailer(() => serverSettings.smtp());
  const plans = new PlanService(config.plans, config.defaultPlan, clock);
  const auth = new AuthService(new AuthRepo(database.db), config, clock, mailer);
  const agents = new AgentsService(new AgentsRepo(database.db), plans, clock, (userId) => auth.getUser(userId).status);
  const ownerPlan = (userId: string) => auth.getUser(userId);
  const embedder = createEmbedder(config);
  const vectors = embedder ? new VectorIndex(database.sqlite, embedder.id, embedder.dimensions) : null;
  vectors?.ensure();
  const knowledgeRepo = new KnowledgeRepo(database.db);
  const keywordSearcher = new KeywordSearcher(config.databaseFile, knowledgeRepo, app.log);
  app.addHook('onClose', async () => keywordSearcher.close());
  const storage = new StorageQuota(knowledgeRepo, plans, ownerPlan);
  const knowledge = new KnowledgeService(knowledgeRepo, agents, embedder, vectors, clock, app.log, keywordSearcher.search, storage);
  // one slot more than an account may use: another account's source never waits for one account's crawl
  const jobs = new JobQueue(database.db, clock, app.log, {
    concurrency: config.ingestConcurrency + 1,
    perOwner: config.ingestConcurrency,
    kinds: [INGEST_JOB],
    onError: (what, err) => databaseCondition.report(`ingestion queue: ${what}`, err),
  });
  const parsers = createParserPool({ maxThreads: config.ingestConcurrency, timeoutMs: config.ingestTimeoutMs, maxMemoryMb: config.ingestMemoryMb });
  const ingestion = new IngestionService(knowledgeRepo, knowledge, agents, jobs, parsers, { dataDir: config.dataDir, allowPrivateUrls: config.allowPrivateUrls, storage, freedSpace: () => void space.soon() }, clock, app.log);
  const providers = providerRegistry((name) => serverSettings.provider(name), config.llmTimeoutMs);
  app.decorate('providers', providers);
  const limitsRepo = new LimitsRepo(database.db);
  const rateLimiter = new RateLimiter(limitsRepo, clock, report('writing the rate-limit counters'));
  // the message that makes the month reach 80% or 100% queues the owner's warning, in its transaction
  const quota = new MessageQuota(limitsRepo, plans, clock, (crossing) => {
    const mail = quotaWarningMail(crossing, config.publicUrl);
    leads.queueAccountNotice(crossing.account.id, mail.subject, mail.body);
  });
  // answer gaps: recorded by listeners in the chat module's transactions
  const chatRepo = new ChatRepo(database.db);
  const gaps = new AnswerGapsService(database.db, agents, knowledge, clock, events, {
    before: (conversationId, answerId) => chatRepo.visitorMessageBefore(conversationId, answerId),
    latest: (conversationId) => chatRepo.latestVisitorMessages(conversationId),
  });
  const chat = new ChatService(chatRepo, agents, knowledge, plans, quota, ownerPlan, providers.get, clock, app.log, events);
  // live handoff: the owner takes a conversation over; the visitor's and the owner's streams
  const handoff = new HandoffService(new ChatRepo(database.db), agents, clock, events, app.log);
  const analytics = new AnalyticsService(new AnalyticsRepo(database.db), agents, clock);
  // Lead alerts: their own queue, so a long ingestion never delays a lead's e-mail; retried until
  // delivered (backoff up to a minute), across restarts.
  const mailJobs = new JobQueue(database.db, clock, app.log, {
    concurrency: 2,
    maxAttempts: Number.MAX_SAFE_INTEGER,
    kinds: [SEND_MAIL_JOB],
    onError: (what, err) => databaseCondition.report(`lead-alert queue: ${what}`, err),
  });
  const leads = new LeadsService(new LeadsRepo(database.db), agents, plans, mailJobs, mailer, { publicUrl: config.publicUrl, accountEmail: (userId) => auth.getUser(userId).email }, clock, app.log, events);
  // a visitor asked for a person: the owner's e-mail, queued in the escalation's transaction
  events.on('conversation.escalated', (e) => {
    const agentName = agents.findById(e.chatbot_id)?.name ?? 'your agent';
    const link = `${config.publicUrl.replace(/\/$/, '')}/#/agents/${encodeURIComponent(e.chatbot_id)}/conversations/${encodeURIComponent(e.conversation_id)}`;
    leads.queueAccountNotice(
      e.account_id,
      `A visitor asked for a person on ${agentName}`,
      `A visitor of ${agentName} asked to talk to a person (${e.reason === 'visitor' ? 'the "Talk to a person" button' : 'one of the escalation keywords'}).\n\nTake the conversation over and reply: ${link}\n`,
    );
  });
  // Webhooks: their own queue; the service schedules retries itself (10 s up to 12 h apart), so
  // the queue's own attempts only count tries a crash interrupted. Two per account at once.
  const webhookJobs = new JobQueue(database.db, clock, app.log, {
    concurrency: 4,
    perOwner: 2,
    kinds: [WEBHOOK_JOB],
    onError: (what, err) => databaseCondition.report(`webhook queue: ${what}`, err),
  });
  const webhooks = new WebhooksService(database.db, webhookJobs, events, { dataDir: config.dataDir, allowPrivateUrls: config.allowPrivateUrls }, clock, app.log);

  await app.register(authenticationPlugin, { auth });
  // After authentication (the account is known), before any body is read. CORS first, so a
  // visitor's browser can read the 429 that the rate limit may answer.
  await app.register(visitorCorsPlugin, { agents, publicUrl: config.publicUrl });
  // the visitor CORS hook has already looked the agent up for this request
  const agentOwner = (request: FastifyRequest) => (request.visitorAgent ? auth.getUser(request.visitorAgent.user_id) : undefined);
  await app.register(rateLimitPlugin, { limiter: rateLimiter, plans, agentOwner });
  // counters of the windows still running come back from the database (a restart is no reset)
  rateLimiter.start();
  app.addHook('onClose', async () => rateLimiter.stop());
  // multipart is read by the routes that take forms (sources); limits are set per route
  await app.register(multipart, { limits: { fieldNameSize: 100, fields: 20, files: 1, parts: 21, headerPairs: 200 } });

  app.get('/api/health', {
    // monitors and the container HEALTHCHECK poll it; it reads nothing an abuser could use
    config: { public: true, rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'ok; degraded (200) when scheduled backups fail; error (503) when the disk is full or the database damaged',
      response: {
        200: z.object({
          status: z.enum(['ok', 'degraded']),
          version: z.string(),
          database: z.literal('ok'),
          backups: z.enum(['ok', 'failing']).optional().describe('only when backups are scheduled'),
          detail: z.string().optional().describe('what is wrong, when something is'),
        }),
        503: z.object({
          status: z.literal('error'),
          version: z.string(),
          database: z.enum(['full', 'corrupt', 'error']),
          backups: z.enum(['ok', 'failing']).optional(),
          detail: z.string(),
        }),
      },
    },
    // whether mail goes out is for the signed-in owner (GET /api/system/status), not for anyone;
    // the failing backup's own message names folders, so only the admin status carries it
    handler: async (_req, reply) => {
      const backupState = backups ? { backups: backups.status().failing ? ('failing' as const) : ('ok' as const) } : {};
      const condition = databaseCondition.current();
      if (condition.state !== 'ok') {
        return reply.code(503).send({ status: 'error' as const, version, database: condition.state, ...backupState, detail: condition.detail! });
      }
      if (!databaseIsHealthy(database.sqlite)) {
        return reply.code(503).send({ status: 'error' as const, version, database: 'error' as const, ...backupState, detail: 'The database does not answer.' });
      }
      if (backupState.backups === 'failing') {
        return { status: 'degraded' as const, version, database: 'ok' as const, ...backupState, detail: 'The last scheduled backup failed; the admin status and the server log say why.' };
      }
      return { status: 'ok' as const, version, database: 'ok' as const, ...backupState };
    },
  });

  await app.register(authRoutes, { auth });
  await app.register(agentRoutes, { agents, ownerPlan });
  await app.register(knowledgeRoutes, { knowledge, ingestion, gaps });
  await app.register(chatRoutes, { chat, handoff, durable });
  await app.register(analyticsRoutes, { analytics });
  await app.register(leadsRoutes, { leads });
  await app.register(webhookRoutes, { webhooks });
  await app.register(adminRoutes, { auth });
  await app.register(webRoutes, { agents, ownerPlan });
  await app.register(usageRoutes, { plans, quota, storage, agentCount: (user) => agents.list(user).length });
  // what the admin UI shows about the set-up (registration, provider keys, mail), and the UI itself
  const accounts = new AuthRepo(database.db);
  const system = new SystemService({
    config,
    providerSource: (name) => serverSettings.providerSource(name),
    countAccounts: () => accounts.countUsers(),
    mail: { configured: () => leads.mailConfigured, source: () => serverSettings.smtpSource(), pending: (user) => leads.pendingMailCount(user) },
    database: () => databaseCondition.current(),
    backups: () => backups?.status() ?? null,
  });
  await app.register(systemRoutes, { system });
  await app.register(settingsRoutes, { settings: serverSettings, providers, mailer, emailOf: (userId) => auth.getUser(userId).email });
  await app.register(adminUiRoutes);

  // Expired sessions are refused on use anyway; this only keeps the table small.
  const sweep = setInterval(() => {
    try {
      auth.purgeExpiredSessions();
    } catch (err) {
      report('removing expired sessions')(err);
    }
  }, 60 * 60 * 1000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
  // conversations idle past their agent's auto_resolve_after_h become resolved (listing does it too)
  const idleResolver = setInterval(() => {
    try {
      chat.resolveIdle();
    } catch (err) {
      report('resolving idle conversations')(err);
    }
  }, IDLE_RESOLVE_EVERY_MS);
  idleResolver.unref();
  app.addHook('onClose', async () => clearInterval(idleResolver));
  // chunks stored while the embedder was unreachable, or before an embedder change, get vectors now
  app.addHook('onReady', async () => {
    void knowledge.scheduleBackfill();
    jobs.start(); // picks up ingestion a previous process left unfinished
    webhookJobs.start(); // and deliveries
    // without mail configured alerts stay queued (the status says so) and go out once it is
    mailQueue.ready = true;
    mailQueue.sync();
    // a start on a full disk still serves (reads work; writes get 507 until space is freed)
    await ingestion.watchdog().catch(report('the ingestion watchdog'));
    integrity.start();
    backups?.start();
  });
  // The lead-alert queue runs while mail is configured: started when an admin saves an SMTP server
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
  serverSettings.onChange(() => mailQueue.sync());
  const watchdog = setInterval(() => void ingestion.watchdog().catch(report('the ingestion watchdog')), 60_000);
  watchdog.unref();
  // Shutdown: running jobs stop at a safe point (they resume at the next start), then the workers go.
  app.addHook('onClose', async () => {
    clearInterval(watchdog);
    mailQueue.closing = true;
    await mailQueue.chain;
    await jobs.stop();
    await mailJobs.stop();
    await webhookJobs.stop();
    await parsers.close();
    // a backup in progress completes (it is not torn mid-write) before the database closes
    await backups?.stop();
  });
  app.decorate('jobs', jobs);
  app.decorate('mailJobs', mailJobs);
  app.decorate('webhookJobs', webhookJobs);

  return app;
}

/** Believes X-Forwarded-For for `hops` proxies counted from the socket (proxy-addr's hop index). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
