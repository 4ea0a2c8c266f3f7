import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { backupDatabase, newestScheduledBackupAt, nextBackupPath, pruneScheduledBackups } from './service.js';

export interface BackupSchedule {
  /** time between backups */
  intervalMs: number;
  /** scheduled backups kept in `dir`; older ones are removed after each new one (manual backups never are) */
  keep: number;
  dir: string;
}

/** What the admin status and health show about scheduled backups. */
export interface BackupScheduleStatus {
  scheduled: true;
  last_success_at: string | null;
  last_failure_at: string | null;
  /** the failure's message; the status route shows it to admins only (it names folders) */
  last_error: string | null;
  /** the latest attempt failed */
  failing: boolean;
}

/** a backup never starts sooner than this after start: the server first gets on its feet */
const FIRST_BACKUP_AT_THE_EARLIEST_MS = 60_000;

export interface BackupSchedulerDeps {
  sqlite: Database.Database;
  schedule: BackupSchedule;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Scheduled backups from the server's own connection (BACKUP_INTERVAL_H, BACKUP_KEEP). A failed
 * backup is logged, shown in health and the admin status, and tried again at the next tick; it
 * never stops the server.
 *
 * The next backup is due one interval after the newest scheduled backup in the folder, not after
 * the start: a server restarted every day (updates) with a daily schedule used to never back up.
 */
export class BackupScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastSuccessAt: string | null = null;
  private lastFailure: { at: string; message: string } | null = null;

  private readonly sqlite: Database.Database;
  private readonly schedule: BackupSchedule;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;

  constructor({ sqlite, schedule, clock, log }: BackupSchedulerDeps) {
    this.sqlite = sqlite;
    this.schedule = schedule;
    this.clock = clock;
    this.log = log;
  }

  start(): void {
    this.stopped = false;
    const newest = newestScheduledBackupAt(this.schedule.dir);
    if (newest) this.lastSuccessAt = newest.toISOString();
    const dueIn = newest
      ? newest.getTime() + this.schedule.intervalMs - this.clock.now().getTime()
      : this.schedule.intervalMs;
    this.arm(Math.max(Math.min(FIRST_BACKUP_AT_THE_EARLIEST_MS, this.schedule.intervalMs), dueIn));
  }

  /** Stops the schedule and waits for a backup in progress (it is not torn mid-write). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  status(): BackupScheduleStatus {
    const failing =
      this.lastFailure !== null && (this.lastSuccessAt === null || this.lastFailure.at > this.lastSuccessAt);
    return {
      scheduled: true,
      last_success_at: this.lastSuccessAt,
      last_failure_at: this.lastFailure?.at ?? null,
      last_error: this.lastFailure?.message ?? null,
      failing,
    };
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    // setTimeout takes at most ~24.8 days; a longer wait is re-armed when it ends
    const MAX_TIMEOUT_MS = 2 ** 31 - 1;
    this.timer = setTimeout(
      () => {
        if (delayMs > MAX_TIMEOUT_MS) return this.arm(delayMs - MAX_TIMEOUT_MS);
        this.running = this.runOnce().finally(() => {
          this.running = undefined;
          this.arm(this.schedule.intervalMs);
        });
      },
      Math.min(delayMs, MAX_TIMEOUT_MS),
    );
    this.timer.unref();
  }

  /** One scheduled backup now, then the rotation. Never rejects: a failure is recorded. */
  async runOnce(): Promise<void> {
    try {
      const target = nextBackupPath(this.schedule.dir, this.clock.now(), 'scheduled');
      const result = await backupDatabase(this.sqlite, target, { sameConnectionAsWriter: true });
      const removed = pruneScheduledBackups(this.schedule.dir, this.schedule.keep);
      this.lastSuccessAt = isoNow(this.clock);
      this.log.info({ file: result.file, bytes: result.bytes, ms: result.ms, removed }, 'scheduled backup written');
    } catch (err) {
      this.lastFailure = { at: isoNow(this.clock), message: (err as Error).message };
      this.log.error({ err }, 'scheduled backup failed');
    }
  }
}
