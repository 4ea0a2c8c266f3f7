import { Command } from 'commander';
import { ConfigError } from './config/index.js';
import { BackupError } from './modules/backup/index.js';
import { DatabaseInUseError } from './platform/db/data-lock.js';
import { DatabaseRefusal } from './platform/db/index.js';
import { ApiError } from './platform/http/errors.js';
import { appVersion } from './platform/version.js';
import { backupCommand, migrateCommand, restoreCommand } from './cli/database.js';
import { CliError, firstLine } from './cli/options.js';
import { type CliActions, healthcheckCommand, serveCommand, versionCommand } from './cli/server.js';
import { usersCommands } from './cli/users.js';

/**
 * The command line of `npm start` and of the single executable. Every flag stands for the
 * environment variable of the same name (--data-dir is DATA_DIR) and wins over it; secrets
 * (JWT_SECRET, provider keys, SMTP_URL) are environment-only so they never show in `ps`.
 *
 * One file per command group under cli/: options.ts (the flags and the configuration they
 * make), server.ts (serve, healthcheck, version), database.ts (migrate, backup, restore),
 * users.ts (users ...).
 */

export { CliError } from './cli/options.js';
export type { CliActions } from './cli/server.js';

export function buildCli(actions: CliActions, env: NodeJS.ProcessEnv): Command {
  const program = new Command('chat-agent')
    .description('Self-hosted chat-agent appliance: API, widget and admin UI in one process, data in one SQLite file.')
    .version(appVersion(), '-v, --version', 'print the version')
    .showSuggestionAfterError(true);

  serveCommand(program, env, actions);
  migrateCommand(program, env);
  backupCommand(program, env);
  restoreCommand(program, env);
  usersCommands(program, env);
  healthcheckCommand(program, env);
  versionCommand(program);
  return program;
}

/**
 * Parses argv and runs the command. Errors of the caller's making (bad flags, bad config values,
 * a backup that fails, an unknown account) are one line on stderr and exit code 1.
 */
export async function runCli(argv: string[], actions: CliActions, env: NodeJS.ProcessEnv): Promise<void> {
  const program = buildCli(actions, env);
  try {
    // serve is the default command, so commander would hand it a mistyped command name as an argument
    const first = argv[2];
    if (
      first !== undefined &&
      !first.startsWith('-') &&
      !program.commands.some((c) => c.name() === first || c.aliases().includes(first))
    ) {
      throw new CliError(`unknown command '${first}' (see chat-agent --help)`);
    }
    await program.parseAsync(argv);
  } catch (err) {
    const known =
      err instanceof CliError ||
      err instanceof ConfigError ||
      err instanceof BackupError ||
      err instanceof ApiError ||
      err instanceof DatabaseRefusal ||
      err instanceof DatabaseInUseError;
    const message = known ? (err as Error).message : firstLine(err);
    process.stderr.write(`${err instanceof ConfigError ? '' : 'error: '}${message}\n`);
    process.exitCode = 1;
  }
}
