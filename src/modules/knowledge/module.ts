import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { AppDatabase } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import { JobQueue } from '../../platform/jobs/queue.js';
import { createParserPool } from '../../platform/workers/pool.js';
import { createEmbedder } from '../../providers/embeddings/index.js';
import type { AgentsService } from '../agents/index.js';
import type { PlanHolder, PlanService } from '../limits/index.js';
import { AnswerGapsRepo } from './gaps-repo.js';
import { AnswerGapsService, type VisitorQuestions } from './gaps.js';
import { INGEST_JOB, IngestionService } from './ingestion.js';
import { KeywordSearcher } from './keyword-searcher.js';
import { KnowledgeRepo } from './repo.js';
import { KnowledgeService } from './service.js';
import { StorageQuota } from './storage-quota.js';
import { SyncRepo } from './sync-repo.js';
import { SYNC_JOB, SyncSchedule } from './sync-schedule.js';
import { VectorIndex } from './vector-index.js';

export interface KnowledgeDeps {
  config: Config;
  database: AppDatabase;
  clock: Clock;
  agents: AgentsService;
  plans: PlanService;
  accountOf: (userId: string) => PlanHolder;
  events: AppEvents;
  /** the visitor questions before an answer (the chat module's messages), for answer gaps */
  visitorQuestions: VisitorQuestions;
  /** asked to give freed pages back to the disk after a source is deleted */
  freedSpace: () => void;
  /** reports a background failure (never throws) */
  report: (what: string) => (err: unknown) => void;
}

/**
 * Sources, retrieval and answer gaps, with what runs beside them: the ingestion queue (picks up
 * what a previous process left unfinished), the parser threads, the keyword searcher's thread and
 * the ingestion watchdog. Started when the app is ready, stopped when it closes.
 */
export function createKnowledge(app: FastifyInstance, deps: KnowledgeDeps) {
  const { config, database, clock, agents, plans, report } = deps;
  const embedder = createEmbedder(config);
  const vectors = embedder
    ? new VectorIndex({ sqlite: database.sqlite, embedderId: embedder.id, dimensions: embedder.dimensions })
    : null;
  vectors?.ensure();
  const repo = new KnowledgeRepo(database.db);
  const keywordSearcher = new KeywordSearcher(config.databaseFile, repo, app.log);
  // added before the queue's hook, so (hooks close last-added first) it closes after the jobs have stopped
  app.addHook('onClose', async () => keywordSearcher.close());
  const storage = new StorageQuota(repo, plans, deps.accountOf);
  const knowledge = new KnowledgeService({
    repo,
    agents,
    embedder,
    vectors,
    clock,
    log: app.log,
    keywordSearch: keywordSearcher.search,
    storage,
    events: deps.events,
  });
  // one slot more than an account may use: another account's source never waits for one account's crawl
  const jobs = new JobQueue(database.db, clock, app.log, {
    concurrency: config.ingestConcurrency + 1,
    perOwner: config.ingestConcurrency,
    kinds: [INGEST_JOB],
    onError: (what, err) => report(`ingestion queue: ${what}`)(err),
  });
  app.decorate('jobs', jobs);
  const parsers = createParserPool({
    maxThreads: config.ingestConcurrency,
    timeoutMs: config.ingestTimeoutMs,
    maxMemoryMb: config.ingestMemoryMb,
  });
  const ingestion = new IngestionService({
    repo,
    knowledge,
    agents,
    jobs,
    parsers,
    options: {
      dataDir: config.dataDir,
      allowPrivateUrls: config.allowPrivateUrls,
      storage,
      freedSpace: deps.freedSpace,
    },
    clock,
    log: app.log,
    syncRepo: new SyncRepo(database.db),
  });
  // website sources re-synced by themselves: a job per source waits for its time on a queue of its own
  const syncJobs = new JobQueue(database.db, clock, app.log, {
    concurrency: 1,
    kinds: [SYNC_JOB],
    onError: (what, err) => report(`sync schedule: ${what}`)(err),
  });
  app.decorate('syncJobs', syncJobs);
  const syncs = new SyncSchedule({ repo, knowledge, agents, ingestion, jobs: syncJobs, clock, log: app.log });
  // answer gaps: recorded by listeners in the chat module's transactions
  const gaps = new AnswerGapsService({
    repo: new AnswerGapsRepo(database.db),
    agents,
    knowledge,
    clock,
    events: deps.events,
    questions: deps.visitorQuestions,
  });

  app.addHook('onReady', async () => {
    // chunks stored while the embedder was unreachable, or before an embedder change, get vectors now
    void knowledge.scheduleBackfill();
    jobs.start(); // picks up ingestion a previous process left unfinished
    syncJobs.start();
    // a start on a full disk still serves (reads work; writes get 507 until space is freed)
    await ingestion.watchdog().catch(report('the ingestion watchdog'));
  });
  const watchdog = setInterval(() => void ingestion.watchdog().catch(report('the ingestion watchdog')), 60_000);
  watchdog.unref();
  // running jobs stop at a safe point (they resume at the next start), then the workers go
  app.addHook('onClose', async () => {
    clearInterval(watchdog);
    await Promise.all([jobs.stop(), syncJobs.stop()]);
    await parsers.close();
  });
  return { knowledge, ingestion, gaps, storage, jobs, syncs };
}
