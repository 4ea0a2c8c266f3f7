import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { AppDatabase } from '../../platform/db/index.js';
import { BackupScheduler } from './scheduler.js';

/** Scheduled backups (BACKUP_INTERVAL_H), or undefined when they are off. */
export function createBackups(
  app: FastifyInstance,
  deps: { database: AppDatabase; config: Config; clock: Clock },
): BackupScheduler | undefined {
  const { config } = deps;
  const backups =
    config.backup.intervalMs > 0
      ? new BackupScheduler({ sqlite: deps.database.sqlite, schedule: config.backup, clock: deps.clock, log: app.log })
      : undefined;
  app.decorate('backups', backups);
  if (backups) {
    app.addHook('onReady', async () => backups.start());
    // a backup in progress completes (it is not torn mid-write) before the database closes
    app.addHook('onClose', async () => backups.stop());
  }
  return backups;
}
