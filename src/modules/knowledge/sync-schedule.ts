import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { IngestionService } from './ingestion.js';
import type { KnowledgeRepo } from './repo.js';
import type { KnowledgeService } from './service.js';
import type { SourceRow } from './tables.js';

export const SYNC_JOB = 'sync-source';
export const SYNC_INTERVALS = ['off', 'daily', 'weekly'] as const;
export type SyncInterval = (typeof SYNC_INTERVALS)[number];

const INTERVAL_MS: Record<Exclude<SyncInterval, 'off'>, number> = { daily: 86_400_000, weekly: 7 * 86_400_000 };
/** sources due together start up to this far apart (each source keeps its own offset) */
const SPREAD_MS = 3_600_000;
/** a scheduled sync that finds its source busy or the queue full tries again this much later */
const POSTPONE_MS = 3_600_000;

export interface SyncScheduleDeps {
  repo: KnowledgeRepo;
  knowledge: KnowledgeService;
  agents: AgentsService;
  ingestion: IngestionService;
  /** the schedule's own queue: a job per source waits for its time (runAfter), across restarts */
  jobs: JobQueue;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Website sources re-synced by themselves, daily or weekly. Each due sync is a durable job that
 * waits for its time; when it runs it queues the sync (the ingestion queue runs it like a
 * re-crawl) and the next one. A source's offset within the hour after its time comes from its id,
 * so many sources set at once do not all start at once.
 */
export class SyncSchedule {
  constructor(private readonly deps: SyncScheduleDeps) {
    deps.jobs.register(SYNC_JOB, (job) => this.due(job.subject_id));
  }

  /** Sets how often the source syncs by itself (400 for a source that is not a website). */
  set(user: AuthUser, sourceId: string, interval: SyncInterval): SourceRow {
    const source = this.deps.knowledge.ownedSource(user, sourceId);
    if (source.type !== 'website') throw badRequest('interval: only website sources are synced');
    const next = interval === 'off' ? null : this.nextRun(source.id, interval);
    this.deps.repo.transaction(() => {
      this.deps.repo.updateSource(source.id, { sync_interval: interval, next_sync_at: next?.toISOString() ?? null });
      if (next) this.deps.jobs.enqueue(SYNC_JOB, source.id, { runAfter: next });
    });
    return this.deps.repo.findSource(source.id)!;
  }

  private async due(sourceId: string): Promise<void> {
    const source = this.deps.repo.findSource(sourceId);
    if (source?.type !== 'website' || source.sync_interval === 'off' || !source.next_sync_at) return;
    const now = this.deps.clock.now();
    // a job of an earlier schedule: the source's own time is later (its job waits for it)
    if (now.getTime() < Date.parse(source.next_sync_at)) return;
    const agent = this.deps.agents.findById(source.chatbot_id);
    if (!agent) return;
    let next = this.nextRun(source.id, source.sync_interval);
    try {
      this.deps.ingestion.startSync(source, agent.user_id, 'scheduled');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // busy (a re-crawl running) or the account's queue full: try again a little later
      next = new Date(now.getTime() + POSTPONE_MS);
      this.deps.log.info({ sourceId, reason: err.message }, 'scheduled sync postponed');
    }
    this.deps.repo.transaction(() => {
      this.deps.repo.updateSource(source.id, { next_sync_at: next.toISOString() });
      this.deps.jobs.enqueue(SYNC_JOB, source.id, { runAfter: next });
    });
  }

  /** the interval from now, plus the source's own offset within the hour */
  private nextRun(sourceId: string, interval: Exclude<SyncInterval, 'off'>): Date {
    const offset = createHash('sha256').update(sourceId).digest().readUInt32BE(0) % SPREAD_MS;
    return new Date(this.deps.clock.now().getTime() + INTERVAL_MS[interval] + offset);
  }
}
