export { BackupScheduler, type BackupScheduleStatus } from './scheduler.js';
export { BackupError, backupDatabase, nextBackupPath, restoreDatabase } from './service.js';
export { createBackups } from './module.js';
