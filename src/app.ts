import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
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
import { requestIds } from './platform/ids.js';
import { stdoutLogDestination } from './platform/log-destination.js';
import { appVersion } from './platform/version.js';
import { adminRoutes } from './modules/admin/index.js';
import { adminUiRoutes } from './modules/admin-ui/index.js';
import {
  AgentsRepo,
  AgentsService,
  agentRoutes,
  IdentityService,
  identityRoutes,
  visitorCorsPlugin,
} from './modules/agents/index.js';
import { AnalyticsRepo, AnalyticsService, analyticsRoutes } from './modules/analytics/index.js';
import { authenticationPlugin, authRoutes, createAuth } from './modules/auth/index.js';
import { type BackupScheduler, createBackups } from './modules/backup/index.js';
import { actionRoutes, createActions } from './modules/actions/index.js';
import { channelRoutes, createChannels } from './modules/channels/index.js';
import { channelActivity, chatRoutes, conversationHeld, createChat, visitorQuestions } from './modules/chat/index.js';
import { createKnowledge, knowledgeRoutes } from './modules/knowledge/index.js';
import { agentTestRoutes, createAgentTests } from './modules/agent-tests/index.js';
import { createLeads, leadsRoutes } from './modules/leads/index.js';
import { createLimits, PlanService, planRate, rateLimitPlugin, usageRoutes } from './modules/limits/index.js';
import { decryptValue, encryptValue, ServerSettings, SettingsKey, settingsRoutes } from './modules/settings/index.js';
import { healthRoutes, SystemService, systemRoutes } from './modules/system/index.js';
import { webRoutes } from './modules/web/index.js';
import { createTeam, teamRoutes } from './modules/team/index.js';
import { createNotifications, notificationsRoutes } from './modules/notifications/index.js';
import { createWebhooks, webhookRoutes } from './modules/webhooks/index.js';
import { dynamicMailer } from './platform/mail/index.js';
import type { JobQueue } from './platform/jobs/queue.js';
import { providerRegistry, type ProviderRegistry } from './providers/llm/registry.js';

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
    /** the lead-alert queue; the website sources' sync schedule (knowledge module) */
    mailJobs: JobQueue;
    syncJobs: JobQueue;
    /** the webhook-delivery queue (tests wait on `webhookJobs.idle()`) */
    webhookJobs: JobQueue;
    /** the channels' queues: answering what came in, sending what goes out (tests wait on their `idle()`) */
    channelJobs: { receive: JobQueue; send: JobQueue };
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
    logger: deps.logger ?? { level: config.logLevel, stream: await stdoutLogDestination() },
    genReqId: requestIds(),
    bodyLimit: JSON_BODY_LIMIT,
    // requestTimeout bounds receiving the whole request, body included: a 100 MB upload at 1 Mbit/s
    // takes about 14 minutes (the former 30 s, which Node's 30 s checks stretched to 60-90 s, cut
    // uploads off mid-way with 408/EPIPE). Slow headers stay bounded by headersTimeout (60 s) and a
    // silent connection by connectionTimeout (60 s without a byte).
    requestTimeout: timeouts.requestMs,
    // Node checks both every connectionsCheckingInterval (30 s unless a test shortens it)
    http: {
      headersTimeout: timeouts.headersMs,
      ...(timeouts.checkEveryMs ? { connectionsCheckingInterval: timeouts.checkEveryMs } : {}),
    },
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

  const upkeep = databaseUpkeep(app, { config, database, clock });
  const { report } = upkeep;
  // behind a trusted proxy every connection comes from the proxy: the cap is the proxy's job there
  const connectionGuards = {
    ...DEFAULT_CONNECTION_GUARDS,
    ...(config.trustProxy === false ? {} : { maxPerAddress: 0 }),
    ...deps.connectionGuards,
  };
  await registerHttpPlatform(app, { version, connectionGuards, databaseCondition: upkeep.databaseCondition });
  const backups = createBackups(app, { database, config, clock });

  // Modules, each given what it needs by name, in the order of what they need, each with its own start (onReady)
  // and stop (onClose) hooks; Fastify runs onClose hooks last-added first: a module stops before what it was given.
  const db = database.db;
  // emitted inside the transactions that store the change (platform/events.ts)
  const events = new AppEvents();
  app.decorate('events', events);
  // Provider keys and the mail server: the environment's, else what an admin stored (encrypted,
  // modules/settings); both are read at every use, so a change applies without a restart.
  const serverSettings = new ServerSettings({ db, config, clock, log: app.log });
  app.decorate('serverSettings', serverSettings);
  const mailer = dynamicMailer(() => serverSettings.smtp());
  const providers = providerRegistry((name) => serverSettings.provider(name), config.llmTimeoutMs);
  app.decorate('providers', providers);
  const plans = new PlanService(config.plans, config.defaultPlan, clock);
  const { auth, accountOf, users } = createAuth(app, { db, config, clock, mailer, report });
  const { team, savedReplies } = createTeam(app, { db, config, clock, auth, users, plans, mailer, report });
  const agents = new AgentsService({
    repo: new AgentsRepo(db),
    plans,
    clock,
    accountOf,
    anyoneOnline: (accountId) => team.anyoneOnline(accountId),
  });
  // verified visitors: the agent's identity secret, encrypted with the settings key
  const settingsKey = new SettingsKey(config.dataDir);
  const identity = new IdentityService({
    db,
    agents,
    box: {
      seal: (name, plaintext) => encryptValue(settingsKey.readOrCreate(), name, plaintext),
      open: (name, stored) => {
        const key = settingsKey.read();
        if (!key) throw new Error('no settings key');
        return decryptValue(key, name, stored);
      },
    },
    clock,
    log: app.log,
  });
  const { knowledge, ingestion, gaps, storage, syncs } = createKnowledge(app, {
    config,
    database,
    clock,
    agents,
    plans,
    accountOf,
    events,
    visitorQuestions: visitorQuestions(db),
    freedSpace: () => void upkeep.space.soon(),
    report,
  });
  const { leads } = createLeads(app, {
    db,
    config,
    clock,
    agents,
    plans,
    mailer,
    onMailSettingsChange: (listener) => serverSettings.onChange(listener),
    accountEmail: (userId) => auth.getUser(userId).email,
    events,
    report,
  });
  const { rateLimiter, quota } = createLimits(app, {
    db,
    config,
    clock,
    plans,
    queueAccountNotice: (id, subject, body) => leads.queueAccountNotice(id, subject, body),
    report,
  });
  const { notifications } = createNotifications(app, { db, config, clock, users });
  const { actions, runner: actionRunner } = createActions(app, {
    db,
    config,
    clock,
    events,
    agents,
    monthlyRuns: (accountId) => plans.planOf(accountOf(accountId)).monthly_action_runs,
    leads,
    accountEmail: (userId) => auth.getUser(userId).email,
    holdsConversation: conversationHeld(db),
  });
  const { chat, handoff, drafts, inbox, actionTurns, history } = createChat(app, {
    db,
    clock,
    agents,
    identity,
    knowledge,
    plans,
    quota,
    providers: providers.get,
    events,
    users,
    notices: {
      publicUrl: config.publicUrl,
      escalationMailTo: (accountId) => notifications.escalationMailTo(accountId),
      queueMail: (accountId, to, subject, body) => leads.queueAccountNotice(accountId, subject, body, to),
      notify: (notice) => notifications.notify(notice),
    },
    actions: actionRunner,
    report,
  });
  const { channels } = createChannels(app, {
    db,
    config,
    clock,
    events,
    agents,
    chat,
    activityOf: channelActivity(db),
    // the visitor-facing routes' limit under the owner's plan, keyed on the channel's user id (no client address)
    allowVisitor: (key, accountId) =>
      planRate(rateLimiter, `${key}:owner:${accountId}`, plans.planOf(accountOf(accountId))).allowed,
    captureLead: (chatbotId, lead) => leads.captureChannelLead(chatbotId, lead),
    queueMailReply: (accountId, reply) => leads.queueChannelReply(accountId, reply),
    notice: (id, subject, body) => leads.queueAccountNotice(id, subject, body),
    mailConfigured: () => leads.mailConfigured,
    report,
  });
  // a teammate's reply is refused (409) once the visitor's network closed its reply window (WhatsApp's 24 hours)
  handoff.replyRefusal = (conversationId) => channels.replyRefusal(conversationId);
  leads.channelMailers = (connectionId) => channels.mailerFor(connectionId);
  const analytics = new AnalyticsService(new AnalyticsRepo(db), agents, clock);
  const { webhooks } = createWebhooks(app, {
    db,
    config,
    clock,
    events,
    allowance: (accountId) => {
      const account = accountOf(accountId);
      return { plan: account.plan_id, perHour: plans.planOf(account).webhook_deliveries_per_hour };
    },
    report,
  });
  const agentTests = createAgentTests(app, { db, clock, events, agents, plans, knowledge, providers, leads, report });
  // what the admin UI shows about the set-up (registration, provider keys, mail)
  const system = new SystemService({
    config,
    providerSource: (name) => serverSettings.providerSource(name),
    registrationOpen: () => auth.registrationOpen(),
    hasAccounts: () => auth.hasAccounts(),
    mail: {
      configured: () => leads.mailConfigured,
      source: () => serverSettings.smtpSource(),
      pending: (user) => leads.pendingMailCount(user),
    },
    database: () => upkeep.databaseCondition.current(),
    backups: () => backups?.status() ?? null,
    testRegressions: (user) => agentTests.runner.openRegressions(user),
  });

  // Request hooks, each plugin naming the ones it needs before it (fastify-plugin dependencies):
  // the account, then the visitor's agent and CORS (so a browser can read a 429), then the rate limit.
  await app.register(authenticationPlugin, { auth });
  await app.register(visitorCorsPlugin, { agents, publicUrl: config.publicUrl });
  await app.register(rateLimitPlugin, { limiter: rateLimiter, plans, accountOf });
  // multipart is read by the routes that take forms (sources); limits are set per route
  await app.register(multipart, { limits: { fieldNameSize: 100, fields: 20, files: 1, parts: 21, headerPairs: 200 } });

  // Routes.
  await app.register(healthRoutes, {
    version,
    database: () => upkeep.databaseCondition.current(),
    databaseAnswers: () => databaseIsHealthy(database.sqlite),
    backups: () => backups?.status() ?? null,
  });
  await app.register(authRoutes, { auth });
  await app.register(agentRoutes, { agents });
  await app.register(identityRoutes, { identity });
  await app.register(knowledgeRoutes, { knowledge, ingestion, gaps, syncs });
  await app.register(chatRoutes, { chat, handoff, drafts, inbox, actionTurns, history, durable: upkeep.durable });
  await app.register(analyticsRoutes, { analytics });
  await app.register(leadsRoutes, { leads });
  await app.register(webhookRoutes, { webhooks });
  await app.register(actionRoutes, { actions });
  await app.register(channelRoutes, { channels });
  await app.register(agentTestRoutes, agentTests);
  await app.register(teamRoutes, { team, savedReplies });
  await app.register(notificationsRoutes, { notifications });
  await app.register(adminRoutes, { auth });
  await app.register(webRoutes, { agents });
  await app.register(usageRoutes, { plans, quota, storage, agentCount: (user) => agents.list(user).length });
  await app.register(systemRoutes, { system });
  await app.register(settingsRoutes, {
    settings: serverSettings,
    providers,
    mailer,
    emailOf: (userId) => auth.getUser(userId).email,
  });
  await app.register(adminUiRoutes);

  return app;
}

/**
 * The database's own upkeep, beside the requests: WAL checkpoints in a worker thread, free pages
 * given back to the disk, integrity checks, and the group commit that makes a write's response
 * wait until the WAL is on disk.
 */
function databaseUpkeep(
  app: App,
  { config, database, clock }: { config: Config; database: AppDatabase; clock: Clock },
) {
  // Whoever meets a full disk or a damaged page tells `databaseCondition`: requests through the error handler
  // (507/503), timers and background tasks through `report`, which never throws (no timer takes the process down).
  const databaseCondition = new DatabaseCondition(config.dataDir, clock, app.log);
  const report = (what: string) => (err: unknown) => databaseCondition.report(what, err);
  app.decorate('databaseCondition', databaseCondition);
  // Group commit (platform/db/durability.ts): a response that may acknowledge a write waits until
  // the WAL is on disk. Reads never wait. Streamed chat answers wait before their `done` event.
  const durable = () => database.durability.barrier();
  // WAL checkpoints in a worker thread instead of inside whichever commit crosses the threshold
  const checkpointer = new WalCheckpointer(database.sqlite, config.databaseFile, app.log, report('a WAL checkpoint'));
  checkpointer.start();
  app.addHook('onClose', async () => checkpointer.stop());
  // space freed by deletions goes back to the disk (checked every minute, and at once after a source is deleted)
  const space = new SpaceReclaimer(
    database.sqlite,
    app.log,
    () => checkpointer.checkpointNow(),
    report('giving free database pages back'),
  );
  space.start();
  app.addHook('onClose', async () => space.stop());
  app.decorate('space', space);
  const integrity = new IntegrityWatch(config.databaseFile, databaseCondition, app.log);
  databaseCondition.onCorruptionNoticed = () => integrity.soon();
  app.addHook('onReady', async () => integrity.start());
  app.addHook('onClose', async () => integrity.stop());
  app.decorate('integrity', integrity);
  // callback style, so a read passes straight through (no promise, no microtask hop)
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS')
      return done(null, payload);
    durable().then(() => done(null, payload), done);
  });
  return { databaseCondition, report, durable, space };
}

/** Believes X-Forwarded-For for `hops` proxies counted from the socket (proxy-addr's hop index). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
