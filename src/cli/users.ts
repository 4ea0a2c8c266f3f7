import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { z } from 'zod';
import type { Config } from '../config/index.js';
import { AuthRepo, AuthService, emailField } from '../modules/auth/index.js';
import { systemClock } from '../platform/clock.js';
import { openDatabase } from '../platform/db/index.js';
import {
  addVariableOptions,
  CliError,
  configFrom,
  DATA_VARIABLES,
  PLAN_VARIABLES,
  requireDatabase,
} from './options.js';

/** The limits of POST /api/auth/register (docs/API.md "Fields and formats"). */
const newAccount = z.object({
  name: z.string().trim().min(1).max(100),
  email: emailField,
  password: z.string().min(8).max(128),
});

/** `users create|promote|set-plan|set-status|reset-password`: accounts from the console. */
export function usersCommands(program: Command, env: NodeJS.ProcessEnv): void {
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
