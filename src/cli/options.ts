import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { EMBEDDING_PROVIDERS } from '../providers/embeddings/index.js';
import { LLM_PROVIDERS } from '../providers/llm/catalog.js';

/**
 * What every command shares: a flag for each environment variable it reads (--data-dir is
 * DATA_DIR, the flag wins), the configuration they make, and the one-line error of the caller.
 */

/** A mistake of the caller: printed as one line, exit code 1. */
export class CliError extends Error {}

/** Variables `serve` takes as flags; the flag is the name in lower kebab case. */
export const SERVE_VARIABLES: Array<[variable: string, valueName: string, description: string]> = [
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
export const DATA_VARIABLES = SERVE_VARIABLES.filter(([v]) => v === 'DATA_DIR');
export const PLAN_VARIABLES = SERVE_VARIABLES.filter(([v]) =>
  ['DATA_DIR', 'PLANS_FILE', 'DEFAULT_PLAN', 'FIRST_ACCOUNT_PLAN'].includes(v),
);

const flagOf = (variable: string) => `--${variable.toLowerCase().replace(/_/g, '-')}`;
const attributeOf = (variable: string) =>
  variable.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export function addVariableOptions(cmd: Command, variables: typeof SERVE_VARIABLES): Command {
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
export function configFrom(cmd: Command, variables: typeof SERVE_VARIABLES, env: NodeJS.ProcessEnv): Config {
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

export function requireDatabase(config: Config): void {
  if (!existsSync(config.databaseFile))
    throw new CliError(`no database at ${config.databaseFile} (check --data-dir / DATA_DIR)`);
}

export function firstLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return String(e?.message ?? err).split('\n')[0]!;
}
