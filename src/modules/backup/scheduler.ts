import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { backupDatabase, nextBackupPath, pruneBackups } from './service.js';

export interface BackupSchedule {
  /** time between backups; the first one is one interval after start */
  intervalMs: number;
  /** backups kept in `dir`; older ones are removed after each new one */
  keep: number;
  dir: string;
}

/**
 * Scheduled backups from the server's own connection (BACKUP_INTERVAL_H, BACKUP_KEEP). A failed
 * backup is logged and tried again at the next tick; it never stops the server.
 */
export class BackupScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly schedule: BackupSchedule,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.arm();
  }

  /** Stops the schedule and waits for a backup in progress (it is not torn mid-write). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
        this.arm();
      });
    }, this.schedule.intervalMs);
    this.timer.unref();
  }

  async runOnce(): Promise<void> {
    try {
      const target = nextBackupPath(this.schedule.dir, this.clock.now());
      const result = await backupDatabase(this.sqlite, target, { sameConnectionAsWriter: true });
      const removed = pruneBackups(this.schedule.dir, this.schedule.keep);
      this.log.info({ file: result.file, bytes: result.bytes, ms: result.ms, removed }, 'scheduled backup written');
    } catch (err) {
      this.log.error({ err }, 'scheduled backup failed');
    }
  }
}
