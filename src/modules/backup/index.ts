export { BackupScheduler, type BackupSchedule, type BackupScheduleStatus } from './scheduler.js';
export {
  BackupError,
  DatabaseInUseError,
  backupDatabase,
  nextBackupPath,
  pruneScheduledBackups,
  removeAbandonedTempFiles,
  restoreDatabase,
  verifyDatabaseFile,
  type BackupResult,
  type RestoreResult,
} from './service.js';
export { createBackups } from './module.js';
