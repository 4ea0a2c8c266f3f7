export { BackupScheduler, type BackupSchedule } from './scheduler.js';
export { BackupError, DatabaseInUseError, backupDatabase, nextBackupPath, pruneBackups, restoreDatabase, verifyDatabaseFile, type BackupResult, type RestoreResult } from './service.js';
