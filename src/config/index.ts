import ipaddr from 'ipaddr.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { EMBEDDINGS_CHOICES, type EmbeddingsName } from '../providers/embeddings/catalog.js';
import { LLM_PROVIDERS, type ProviderName } from '../providers/llm/catalog.js';
import { DEFAULT_INGEST_MEMORY_MB } from '../platform/workers/types.js';

export {
  BUILT_IN_PLANS,
  DEFAULT_MAX_MEMBERS,
  DEFAULT_MAX_STORAGE_MB,
  DEFAULT_WEBHOOK_DELIVERIES_PER_HOUR,
  type Plan,
  type Plans,
  planSchema,
  plansSchema,
  UNLIMITED,
} from './plans.js';
import { BUILT_IN_PLANS, type Plans, plansSchema } from './plans.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/**
 * Which proxies are believed about the client's address (X-Forwarded-For): `false` none; `true`
 * the one proxy in front (1 hop); a number of hops; or the proxies' addresses and CIDR ranges,
 * comma-separated. Never "every address in the header": a client can put any address there, and
 * a proxy that appends (nginx's $proxy_add_x_forwarded_for) keeps it (Fastify's trustProxy).
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): false | number | string[] => {
    const lower = v.toLowerCase();
    if (['false', '0', 'no'].includes(lower)) return false;
    if (['true', 'yes'].includes(lower)) return 1;
    const entries = v
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    // a bare number is hops (ipaddr would read "99" as the address 0.0.0.99)
    if (/^\d+$/.test(v) && Number(v) <= 32) return Number(v);
    const bad = entries.find((e) => /^\d+$/.test(e) || !isAddressOrRange(e));
    if (entries.length === 0 || bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must be true, false, a number of proxy hops (1-32), or proxy addresses/CIDR ranges separated by commas${bad ? ` ("${bad}" is none of these)` : ''}`,
      });
      return z.NEVER;
    }
    return entries;
  });

function isAddressOrRange(entry: string): boolean {
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

const positiveSeconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 86400);
const httpUrl = z.url({ protocol: /^https?$/ });

/** The environment variables (docs/CONFIGURATION.md); empty strings count as unset. */
const settingsBefore = {
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_URL: httpUrl.optional(),
  JWT_SECRET: z
    .string()
    .refine((s) => Buffer.byteLength(s) >= 32, 'must be at least 32 bytes')
    .optional(),
  SESSION_IDLE_TIMEOUT_S: positiveSeconds.default(86400),
  SESSION_MAX_AGE_S: positiveSeconds.default(2592000),
  REGISTRATION: z.enum(['open', 'closed', 'first-only']).default('first-only'),
  PLANS_FILE: z.string().min(1).optional(),
  DEFAULT_PLAN: z.string().min(1).default('free'),
  FIRST_ACCOUNT_PLAN: z.string().min(1).optional(),
};
const settingsAfter = {
  EMBEDDINGS: z.enum(EMBEDDINGS_CHOICES).optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  SMTP_FROM: z.string().min(3).optional(),
  ALLOW_PRIVATE_URLS: bool.default(false),
  TRUST_PROXY: trustProxy.default(false),
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  INGEST_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(300),
  INGEST_MEMORY_MB: z.coerce.number().int().min(64).max(65536).default(DEFAULT_INGEST_MEMORY_MB),
  LLM_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(60),
  ACTION_TIMEOUT_S: z.coerce.number().min(0.1).max(120).default(10),
  TELEGRAM_API_ROOT: httpUrl.optional(),
  WHATSAPP_API_ROOT: httpUrl.optional(),
  // 0 = no scheduled backups; fractions allowed (0.5 = every 30 min); setTimeout caps one wait at ~596 h
  BACKUP_INTERVAL_H: z.coerce.number().min(0).max(500).default(0),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(10_000).default(7),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};
/** A provider's key (and base URL) variables, or its host variable, typed loosely (read through `providersFrom`). */
function providerVariables(): Record<string, z.ZodOptional<z.ZodString | typeof httpUrl>> {
  const shape: Record<string, z.ZodOptional<z.ZodString | typeof httpUrl>> = {};
  for (const { connection: c } of LLM_PROVIDERS) {
    if (c.kind === 'key') {
      shape[c.keyVariable] = z.string().optional();
      shape[c.baseUrlVariable] = httpUrl.optional();
    } else {
      shape[c.hostVariable] = httpUrl.optional();
    }
  }
  return shape;
}
// each provider's variables (providers/llm/catalog.ts) sit between the plan and EMBEDDINGS variables, in the catalog's order
const envSchema = z.object({ ...settingsBefore, ...providerVariables(), ...settingsAfter }) as unknown as z.ZodObject<
  typeof settingsBefore & typeof settingsAfter
>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseFile: string;
  /** PUBLIC_URL without its trailing slash, or http://localhost:$PORT when it is not set */
  publicUrl: string;
  /** whether PUBLIC_URL was set (the admin UI warns when it was not and is opened elsewhere) */
  publicUrlConfigured: boolean;
  jwtSecret: Uint8Array;
  sessionIdleTimeoutS: number;
  sessionMaxAgeS: number;
  registration: 'open' | 'closed' | 'first-only';
  plans: Plans;
  defaultPlan: string;
  /** the plan of the first account ever made (the server's owner): FIRST_ACCOUNT_PLAN; else DEFAULT_PLAN when set; else `owner` when the table has it */
  firstAccountPlan: string;
  /** per provider: its key and base URL, or its host (Ollama), as the environment sets them */
  providers: Record<ProviderName, { apiKey?: string; baseURL?: string; host?: string }>;
  embeddings: EmbeddingsName | 'none';
  /** ingestion jobs (and parser threads) at once; 1 leaves the second core of a 2-core box to the API */
  ingestConcurrency: number;
  /** longest parse of one file before it fails */
  ingestTimeoutMs: number;
  /** what one document being read may hold in memory, heap and buffers (INGEST_MEMORY_MB) */
  ingestMemoryMb: number;
  /** time a provider may take to start answering (and between streamed parts) */
  llmTimeoutMs: number;
  /** the Telegram Bot API's address (TELEGRAM_API_ROOT, without a trailing slash): tests and air-gapped installs; unset, grammY's default */
  telegramApiRoot: string | undefined;
  /** the Graph API's address for WhatsApp (WHATSAPP_API_ROOT, without a trailing slash): tests; unset, https://graph.facebook.com */
  whatsappApiRoot: string | undefined;
  /** an action's call to the owner's endpoint or calendar feed, connect to last byte (ACTION_TIMEOUT_S) */
  actionTimeoutMs: number;
  smtp: { url?: string; from?: string };
  /** scheduled backups to DATA_DIR/backups; intervalMs 0 = off */
  backup: { intervalMs: number; keep: number; dir: string };
  allowPrivateUrls: boolean;
  /** false, a number of hops, or the proxies' addresses (see `trustProxy` above) */
  trustProxy: false | number | string[];
  logLevel: string;
}

/** A bad configuration value; the message is one line naming the variable. */
export class ConfigError extends Error {
  constructor(
    message: string,
    /** the environment variable at fault, when there is one (the CLI names its flag instead) */
    readonly variable?: string,
  ) {
    super(message);
  }
}

const JWT_SECRET_FILE = 'jwt-secret';

/** PORT alone (the health check reads nothing else and must not create DATA_DIR). */
export function loadPort(env: Record<string, string | undefined>): number {
  const parsed = envSchema.shape.PORT.safeParse(env.PORT === '' ? undefined : env.PORT);
  if (!parsed.success)
    throw new ConfigError(
      `Invalid configuration: PORT: ${parsed.error.issues[0]!.message} (got ${JSON.stringify(env.PORT)})`,
      'PORT',
    );
  return parsed.data;
}

/**
 * Parses and validates the environment once. Creates DATA_DIR and, when JWT_SECRET is not given,
 * generates a random secret kept in DATA_DIR (mode 0600) so tokens survive a restart.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(
      `Invalid configuration: ${name}: ${issue.message} (got ${JSON.stringify(cleaned[name] ?? '')})`,
      name,
    );
  }
  const e = parsed.data;

  const plans = e.PLANS_FILE ? readPlansFile(e.PLANS_FILE) : BUILT_IN_PLANS;
  for (const [variable, plan] of [
    ['DEFAULT_PLAN', e.DEFAULT_PLAN],
    ['FIRST_ACCOUNT_PLAN', e.FIRST_ACCOUNT_PLAN],
  ] as const) {
    if (plan !== undefined && !Object.hasOwn(plans, plan)) {
      throw new ConfigError(
        `Invalid configuration: ${variable}: no plan named ${JSON.stringify(plan)} (plans: ${Object.keys(plans).join(', ')})`,
        variable,
      );
    }
  }

  const providers = providersFrom(e as unknown as Record<string, string | undefined>);
  // embeddings through a keyed provider need its key from the environment (they are environment-only)
  const embedding = LLM_PROVIDERS.find((p) => p.name === e.EMBEDDINGS);
  if (embedding?.connection.kind === 'key' && !providers[embedding.name].apiKey) {
    throw new ConfigError(
      `Invalid configuration: EMBEDDINGS: ${embedding.name} needs ${embedding.connection.keyVariable}`,
      'EMBEDDINGS',
    );
  }

  const dataDir = path.resolve(e.DATA_DIR);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // the database, uploads, backups and keys are the owner's alone (an existing folder too)
    chmodSync(dataDir, 0o700);
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration: DATA_DIR: cannot create ${dataDir}: ${(err as Error).message}`,
      'DATA_DIR',
    );
  }

  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseFile: path.join(dataDir, 'chat-agent.db'),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    publicUrlConfigured: e.PUBLIC_URL !== undefined,
    jwtSecret: e.JWT_SECRET ? new TextEncoder().encode(e.JWT_SECRET) : loadOrCreateSecret(dataDir),
    sessionIdleTimeoutS: e.SESSION_IDLE_TIMEOUT_S,
    sessionMaxAgeS: e.SESSION_MAX_AGE_S,
    registration: e.REGISTRATION,
    plans,
    defaultPlan: e.DEFAULT_PLAN,
    // an operator who names DEFAULT_PLAN (or a plan table without `owner`) decides for the first account too
    firstAccountPlan:
      e.FIRST_ACCOUNT_PLAN ??
      (cleaned.DEFAULT_PLAN === undefined && Object.hasOwn(plans, 'owner') ? 'owner' : e.DEFAULT_PLAN),
    providers,
    embeddings: e.EMBEDDINGS ?? (providers.openai.apiKey ? 'openai' : 'none'),
    llmTimeoutMs: e.LLM_TIMEOUT_S * 1000,
    actionTimeoutMs: Math.round(e.ACTION_TIMEOUT_S * 1000),
    telegramApiRoot: e.TELEGRAM_API_ROOT?.replace(/\/+$/, ''),
    whatsappApiRoot: e.WHATSAPP_API_ROOT?.replace(/\/+$/, ''),
    ingestConcurrency: e.INGEST_CONCURRENCY,
    ingestTimeoutMs: e.INGEST_TIMEOUT_S * 1000,
    ingestMemoryMb: e.INGEST_MEMORY_MB,
    smtp: { url: e.SMTP_URL, from: e.SMTP_FROM },
    backup: {
      intervalMs: Math.round(e.BACKUP_INTERVAL_H * 3600 * 1000),
      keep: e.BACKUP_KEEP,
      dir: path.join(dataDir, 'backups'),
    },
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
  };
}

function providersFrom(e: Record<string, string | undefined>): Config['providers'] {
  return Object.fromEntries(
    LLM_PROVIDERS.map(({ name, connection: c }) => [
      name,
      c.kind === 'key' ? { apiKey: e[c.keyVariable], baseURL: e[c.baseUrlVariable] } : { host: e[c.hostVariable] },
    ]),
  ) as Config['providers'];
}

function readPlansFile(file: string): Plans {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration: PLANS_FILE: cannot read ${file} as JSON: ${(err as Error).message.split('\n')[0]}`,
      'PLANS_FILE',
    );
  }
  const parsed = plansSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `Invalid configuration: PLANS_FILE: ${issue.path.join('.') || 'root'}: ${issue.message}`,
      'PLANS_FILE',
    );
  }
  return parsed.data;
}

function loadOrCreateSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, JWT_SECRET_FILE);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(existing) < 32)
      throw new ConfigError(`Invalid configuration: JWT_SECRET: ${file} holds fewer than 32 bytes`, 'JWT_SECRET');
    return new TextEncoder().encode(existing);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(48).toString('base64url');
  try {
    // 'wx' fails if another process created it first; then that one's secret wins.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecret(dataDir);
    throw new ConfigError(
      `Invalid configuration: DATA_DIR: cannot write ${file}: ${(err as Error).message}`,
      'DATA_DIR',
    );
  }
  return new TextEncoder().encode(secret);
}
