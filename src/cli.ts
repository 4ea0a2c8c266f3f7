import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Argument, Command, Option } from 'commander';
import { z } from 'zod';
import { ConfigError, loadConfig, loadPort, type Config } from './config/index.js';
import { BackupError, backupDatabase, nextBackupPath, restoreDatabase } from './modules/backup/index.js';
import { AuthRepo, AuthService, emailField } from './modules/auth/index.js';
import { runMode } from './platform/assets.js';
import { systemClock } from './platform/clock.js';
import { DatabaseInUseError, lockDatabase } from './platform/db/data-lock.js';
import { DatabaseRefusal, openDatabase, openSqlite } from './platform/db/index.js';
import { ApiError } from './platform/http/errors.js';
import { appVersion } from './platform/version.js';
import { EMBEDDING_PROVIDERS } from './providers/embeddings/index.js';
import { LLM_PROVIDERS } from './providers/llm/catalog.js';

/**
 * The command line of `npm start` and of the single executable. Every flag stands for the
 * environment variable of the same name (--data-dir is DATA_DIR) and wins over it; secrets
 * (JWT_SECRET, provider keys, SMTP_URL) are environment-only so they never show in `ps`.
 */

export interface CliActions {
  serve(config: Config): Promise<void>;
}

/** The limits of POST /api/auth/register (docs/API.md "Fields and formats"). */
const newAccount = z.object({
  name: z.string().trim().min(1).max(100),
  email: emailField,
  password: z.string().min(8).max(128),
});

/** A mistake of the caller: printed as one line, exit code 1. */
export class CliError extends Error {}

/** Variables `serve` takes as flags; the flag is the name in lower kebab case. */
const SERVE_VARIABLES: Array<[variable: string, valueName: string, description: string]> = [
  ['PORT', 'number', 'listen port; 0 picks a free one (default 3000)'],
  ['HOST', 'address', 'listen address (default 0.0.0.0)'],
  ['DATA_DIR', 'dir', 'holds the SQLite file, uploads and backups (default ./data)'],
  ['PUBLIC_URL', 'url', 'base URL in embed snippets and e-mails'],
  ['REGISTRATION', 'mode', 'open, closed or first-only (default)'],
  ['PLANS_FILE', 'file', 'JSON plan table replacing the built-in one'],
  ['DEFAULT_PLAN', 'plan', 'plan of new accounts (default free)'],
  ['FIRST_ACCOUNT_PLAN', 'plan', 'plan of the first account, the owner (default owner, or DEFAULT_PLAN when set)'],
  ['SESSION_IDLE_TIMEOUT_S', 'seconds', 'a token unused this long gives 401'],
  ['SESSION_MAX_AGE_S', 'seconds', 'a token older than this gives 401'],
  ['EMBEDDINGS', 'name', `${EMBEDDING_PROVIDERS.join(', ')} or none`],
  // each provider's base URL or host (its key is environment-only)
  ...LLM_PROVIDERS.map(({ connection: c }): [string, string, string] =>
    c.kind === 'key' ? [c.baseUrlVariable, 'url', c.baseUrlHelp] : [c.hostVariable, 'url', c.hostHelp],
  ),
  ['SMTP_FROM', 'address', 'sender of lead alerts'],
  ['ALLOW_PRIVATE_URLS', 'bool', 'website sources may reach private networks (tests only)'],
  ['TRUST_PROXY', 'bool|hops|addresses', 'proxies believed about the client address (X-Forwarded-For)'],
  ['INGEST_CONCURRENCY', 'n', 'ingestion jobs at once (default 1)'],
  ['INGEST_TIMEOUT_S', 'seconds', 'longest parse of one file (default 300)'],
  ['LLM_TIMEOUT_S', 'seconds', 'provider answer timeout (default 60)'],
  ['BACKUP_INTERVAL_H', 'hours', 'scheduled backups to DATA_DIR/backups every this many hours (default 0: off)'],
  ['BACKUP_KEEP', 'n', 'scheduled backups kept (default 7)'],
  ['LOG_LEVEL', 'level', 'fatal, error, warn, info (default), debug, trace or silent'],
];
const DATA_VARIABLES = SERVE_VARIABLES.filter(([v]) => v === 'DATA_DIR');
const PLAN_VARIABLES = SERVE_VARIABLES.filter(([v]) =>
  ['DATA_DIR', 'PLANS_FILE', 'DEFAULT_PLAN', 'FIRST_ACCOUNT_PLAN'].includes(v),
);

const flagOf = (variable: string) => `--${variable.toLowerCase().replace(/_/g, '-')}`;
const attributeOf = (variable: string) =>
  variable.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function addVariableOptions(cmd: Command, variables: typeof SERVE_VARIABLES): Command {
  for (const [variable, valueName, description] of variables) {
    // a flag whose value may be a bool may stand alone (`--trust-proxy` is `--trust-proxy true`)
    const flags = valueName.startsWith('bool')
      ? `${flagOf(variable)} [${valueName}]`
      : `${flagOf(variable)} <${valueName}>`;
    cmd.addOption(new Option(flags, `${description} [${variable}]`));
  }
  return cmd;
}

/** The environment with the given flags laid over it, then validated like the environment alone. */
function configFrom(cmd: Command, variables: typeof SERVE_VARIABLES, env: NodeJS.ProcessEnv): Config {
  const opts = cmd.opts<Record<string, string | boolean | undefined>>();
  const fromFlags: Record<string, string> = {};
  for (const [variable] of variables) {
    const value = opts[attributeOf(variable)];
    if (value !== undefined) fromFlags[variable] = value === true ? 'true' : String(value);
  }
  try {
    return loadConfig({ ...env, ...fromFlags });
  } catch (err) {
    // name the flag when the bad value came from one
    if (err instanceof ConfigError && err.variable && err.variable in fromFlags) {
      throw new ConfigError(err.message.replace(`${err.variable}:`, `${flagOf(err.variable)}:`), err.variable);
    }
    throw err;
  }
}

function requireDatabase(config: Config): void {
  if (!existsSync(config.databaseFile))
    throw new CliError(`no database at ${config.databaseFile} (check --data-dir / DATA_DIR)`);
}

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

/** `serve` (the default): the API, widget and admin UI. */
function serveCommand(program: Command, env: NodeJS.ProcessEnv, actions: CliActions): void {
  addVariableOptions(
    program
      .command('serve', { isDefault: true })
      .description('serve the API, widget and admin UI (the default command)'),
    SERVE_VARIABLES,
  ).action(async (_opts, cmd: Command) => actions.serve(configFrom(cmd, SERVE_VARIABLES, env)));
}

/** `migrate`: pending migrations, then exit. */
function migrateCommand(program: Command, env: NodeJS.ProcessEnv): void {
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
function backupCommand(program: Command, env: NodeJS.ProcessEnv): void {
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
function restoreCommand(program: Command, env: NodeJS.ProcessEnv): void {
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

/** `users create|promote|set-plan|set-status|reset-password`: accounts from the console. */
function usersCommands(program: Command, env: NodeJS.ProcessEnv): void {
  const users = program
    .command('users')
    .description('manage accounts from the command line (works while the server runs)');
  addVariableOptions(
    users
      .command('create')
      .argument('<email>', 'login e-mail')
      .requiredOption('--name <name>', 'display name')
      .option('--password-stdin', 'read the password from standard input (otherwise one is generated and printed)')
      .option('--admin', 'make the account an admin')
      .option('--plan <plan>', 'plan of the account (default DEFAULT_PLAN)')
      .description('create an account (whatever REGISTRATION says)'),
    PLAN_VARIABLES,
  ).action(
    async (
      email: string,
      opts: { name: string; passwordStdin?: boolean; admin?: boolean; plan?: string },
      cmd: Command,
    ) => {
      const config = configFrom(cmd, PLAN_VARIABLES, env);
      const generated = !opts.passwordStdin;
      const password = generated
        ? randomBytes(15).toString('base64url')
        : readFileSync(0, 'utf8').replace(/\r?\n$/, '');
      const parsed = newAccount.safeParse({ name: opts.name, email, password });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new CliError(`${String(issue.path[0] ?? 'input')}: ${issue.message}`);
      }
      await withAuth(config, async (auth, repo) => {
        await auth.register(parsed.data, { ip: '127.0.0.1', userAgent: 'chat-agent cli' });
        let user = repo.findUserByEmail(parsed.data.email.toLowerCase())!;
        if (opts.admin || opts.plan)
          user = auth.updateUser(user.id, {
            ...(opts.admin ? { role: 'admin' as const } : {}),
            ...(opts.plan ? { plan_id: opts.plan } : {}),
          });
        printUser(user);
        if (generated) process.stdout.write(`password: ${password}\n`);
      });
    },
  );

  addVariableOptions(
    users.command('promote').argument('<email>').description('make an account an admin'),
    PLAN_VARIABLES,
  ).action(async (email: string, _opts, cmd: Command) => {
    await withAuth(configFrom(cmd, PLAN_VARIABLES, env), async (auth, repo) =>
      printUser(auth.updateUser(userId(repo, email), { role: 'admin' })),
    );
  });

  addVariableOptions(
    users
      .command('set-plan')
      .argument('<email>')
      .argument('<plan>', 'a plan of the plan table')
      .option('--expires <date>', 'when the plan ends: an ISO date/time, or "never"')
      .description("change an account's plan"),
    PLAN_VARIABLES,
  ).action(async (email: string, plan: string, opts: { expires?: string }, cmd: Command) => {
    let expires: string | null | undefined;
    if (opts.expires === 'never') expires = null;
    else if (opts.expires !== undefined) {
      const at = Date.parse(opts.expires);
      if (Number.isNaN(at))
        throw new CliError(`--expires: not a date: ${JSON.stringify(opts.expires)} (ISO, e.g. 2026-12-31, or "never")`);
      expires = new Date(at).toISOString();
    }
    await withAuth(configFrom(cmd, PLAN_VARIABLES, env), async (auth, repo) =>
      printUser(
        auth.updateUser(userId(repo, email), {
          plan_id: plan,
          ...(expires !== undefined ? { plan_expires_at: expires } : {}),
        }),
      ),
    );
  });

  addVariableOptions(
    users
      .command('set-status')
      .argument('<email>')
      .addArgument(new Argument('<status>').choices(['active', 'suspended', 'banned']))
      .description('activate, suspend or ban an account'),
    PLAN_VARIABLES,
  ).action(async (email: string, status: 'active' | 'suspended' | 'banned', _opts, cmd: Command) => {
    await withAuth(configFrom(cmd, PLAN_VARIABLES, env), async (auth, repo) =>
      printUser(auth.updateUser(userId(repo, email), { status })),
    );
  });

  addVariableOptions(
    users
      .command('reset-password')
      .argument('<email>')
      .option(
        '--password-stdin',
        'read the new password from standard input (otherwise it is asked for, twice, on the terminal)',
      )
      .description("set an account's password and end all its sessions (works while the server runs)"),
    DATA_VARIABLES,
  ).action(async (email: string, opts: { passwordStdin?: boolean }, cmd: Command) => {
    const config = configFrom(cmd, DATA_VARIABLES, env);
    // the account first: nobody types a password for an address that has none
    await withAuth(config, async (auth, repo) => {
      const id = userId(repo, email);
      const password = opts.passwordStdin ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : await askNewPassword();
      const parsed = newAccount.shape.password.safeParse(password);
      if (!parsed.success) throw new CliError(`password: ${parsed.error.issues[0]!.message}`);
      const ended = await auth.setPassword(id, parsed.data);
      process.stdout.write(`password of ${repo.findUserById(id)!.email} changed; ${ended} session(s) ended\n`);
    });
  });
}

/** `healthcheck`: exit 0 when the local server answers GET /api/health with 200. */
function healthcheckCommand(program: Command, env: NodeJS.ProcessEnv): void {
  const PORT_VARIABLES = SERVE_VARIABLES.filter(([v]) => v === 'PORT');
  addVariableOptions(
    program
      .command('healthcheck')
      .description(
        'exit 0 when the server on this machine answers GET /api/health with 200 (for container health checks)',
      ),
    PORT_VARIABLES,
  ).action(async (_opts, cmd: Command) => {
    // only PORT matters here: DATA_DIR is not touched
    const opts = cmd.opts<{ port?: string }>();
    const port = loadPort(opts.port !== undefined ? { PORT: opts.port } : env);
    if (port === 0) throw new CliError('--port: give the port the server listens on (PORT=0 picks one at random)');
    let status: number;
    try {
      status = (await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(4000) })).status;
    } catch (err) {
      throw new CliError(`health check of port ${port} failed: ${firstLine(err)}`);
    }
    if (status !== 200) throw new CliError(`health check of port ${port}: status ${status}`);
    process.stdout.write('ok\n');
  });
}

/** `version`: the version and the runtime. */
function versionCommand(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(
        `chat-agent ${appVersion()} (node ${process.version}, ${process.platform}-${process.arch}, ${runMode()})\n`,
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

async function withAuth(config: Config, fn: (auth: AuthService, repo: AuthRepo) => Promise<void>): Promise<void> {
  requireDatabase(config);
  const database = openDatabase(config.databaseFile);
  try {
    const repo = new AuthRepo(database.db);
    // the operator at the console may create accounts whatever REGISTRATION says
    await fn(new AuthService({ repo, config: { ...config, registration: 'open' }, clock: systemClock }), repo);
  } finally {
    database.close();
  }
}

function userId(repo: AuthRepo, email: string): string {
  const user = repo.findUserByEmail(email.trim().toLowerCase());
  if (!user) throw new CliError(`no account with e-mail ${email}`);
  return user.id;
}

/** Asks for a new password twice on the terminal, without echoing it; refuses when there is no terminal. */
async function askNewPassword(): Promise<string> {
  if (!process.stdin.isTTY)
    throw new CliError('no terminal to ask for the password on: pipe it in with --password-stdin');
  const first = await askHidden('New password: ');
  const second = await askHidden('Repeat it: ');
  if (first !== second) throw new CliError('the two passwords differ');
  return first;
}

/** One line read from the terminal with echo off (the prompt goes to stderr, stdout stays for results). */
async function askHidden(prompt: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const { Writable } = await import('node:stream');
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.once('close', () => reject(new CliError('no password given')));
      rl.question(prompt, (answer) => resolve(answer));
      muted = true;
    });
  } finally {
    process.stderr.write('\n');
    rl.close();
  }
}

function printUser(u: {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  plan_id: string;
  plan_expires_at: string | null;
}): void {
  const { id, email, name, role, status, plan_id, plan_expires_at } = u;
  process.stdout.write(`${JSON.stringify({ id, email, name, role, status, plan_id, plan_expires_at })}\n`);
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

function firstLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return String(e?.message ?? err).split('\n')[0]!;
}
