import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { backupDatabase, nextBackupPath, restoreDatabase } from '../modules/backup/index.js';
import { systemClock } from '../platform/clock.js';
import { lockDatabase } from '../platform/db/data-lock.js';
import { openDatabase, openSqlite } from '../platform/db/index.js';
import { addVariableOptions, CliError, configFrom, DATA_VARIABLES, requireDatabase } from './options.js';

/** `migrate`: pending migrations, then exit. */
export function migrateCommand(program: Command, env: NodeJS.ProcessEnv): void {
  addVariableOptions(
    program.command('migrate').description('apply pending database migrations and exit (serve does this too)'),
    DATA_VARIABLES,
  ).action((_opts, cmd: Command) => {
    const config = configFrom(cmd, DATA_VARIABLES, env);
    // not under a running server: it would go on with the schema it started with
    const lock = lockDatabase(config.databaseFile);
    let before: number;
    let after: number;
    try {
      before = existsSync(config.databaseFile) ? appliedMigrations(config.databaseFile) : 0;
      openDatabase(config.databaseFile).close();
      after = appliedMigrations(config.databaseFile);
    } finally {
      lock.release();
    }
    process.stdout.write(`${config.databaseFile}: ${after - before} migration(s) applied, ${after} in total\n`);
  });
}

/** `backup [file]`: a consistent, verified copy of the database. */
export function backupCommand(program: Command, env: NodeJS.ProcessEnv): void {
  addVariableOptions(
    program
      .command('backup')
      .argument('[file]', 'where to write it: a file, or a folder for a time-named file (default DATA_DIR/backups/)')
      .description(
        'write a consistent copy of the database (safe while the server runs), verified with integrity_check',
      ),
    DATA_VARIABLES,
  ).action(async (file: string | undefined, _opts, cmd: Command) => {
    const config = configFrom(cmd, DATA_VARIABLES, env);
    requireDatabase(config);
    const now = systemClock.now();
    const target = !file
      ? nextBackupPath(config.backup.dir, now)
      : existsSync(file) && statSync(file).isDirectory()
        ? nextBackupPath(file, now)
        : path.resolve(file);
    if (target === path.resolve(config.databaseFile)) throw new CliError('the backup target is the database itself');
    const source = openSqlite(config.databaseFile, { fileMustExist: true, readonly: true });
    try {
      const result = await backupDatabase(source, target);
      process.stdout.write(
        `backup written: ${result.file} (${result.bytes} bytes, ${result.ms} ms, integrity_check ok)\n`,
      );
    } finally {
      source.close();
    }
  });
}

/** `restore <file>`: a verified backup replaces the database. */
export function restoreCommand(program: Command, env: NodeJS.ProcessEnv): void {
  addVariableOptions(
    program
      .command('restore')
      .argument('<file>', 'a backup file')
      .description(
        'replace the database with a verified backup (the server must be stopped; the old database is kept beside it)',
      ),
    DATA_VARIABLES,
  ).action((file: string, _opts, cmd: Command) => {
    const config = configFrom(cmd, DATA_VARIABLES, env);
    const result = restoreDatabase(file, config.databaseFile, systemClock.now());
    process.stdout.write(
      `restored ${result.database} from ${result.restoredFrom}${result.previous ? `; the previous database is kept as ${result.previous}` : ''}\n`,
    );
  });
}

function appliedMigrations(databaseFile: string): number {
  const conn = openSqlite(databaseFile, { fileMustExist: true, readonly: true });
  try {
    const exists = conn.prepare(`SELECT 1 FROM sqlite_master WHERE name = '__drizzle_migrations'`).get();
    return exists ? (conn.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n : 0;
  } finally {
    conn.close();
  }
}
