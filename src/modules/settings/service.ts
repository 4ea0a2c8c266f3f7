import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import { badRequest, conflict } from '../../platform/http/errors.js';
import type { Mailer, SmtpSettings } from '../../platform/mail/index.js';
import { PROVIDER_NAMES, settingVariable, usesHost } from '../../providers/llm/catalog.js';
import { createLlmProvider } from '../../providers/llm/index.js';
import { environmentProvider, type ProviderConnection } from '../../providers/llm/registry.js';
import type { LlmProvider, ProviderName } from '../../providers/llm/types.js';
import { DamagedKeyError, SettingsKey, SETTINGS_KEY_FILE, decryptValue, encryptValue } from './crypto.js';
import { testProvider, testSmtp } from './connection-tests.js';
import { SettingsRepo } from './repo.js';
import {
  keyHint,
  type ProviderView,
  type SettingSource,
  type SettingsView,
  type SettingView,
  safeUrl,
  type SmtpView,
} from './setting-views.js';

/**
 * Server settings an admin sets in the admin UI instead of the environment: provider keys and the
 * mail server (docs/CONFIGURATION.md "Server settings").
 *
 * - Stored in `app_settings`, one row per setting, the value a JSON document encrypted with the
 *   key in DATA_DIR/settings-key (crypto.ts). Decrypted once at start (and at every write) into
 *   memory; chat turns and mail read the memory copy.
 * - The environment wins: a provider whose key (OLLAMA_HOST for Ollama) or mail whose SMTP_URL is
 *   set in the environment uses the environment's values, and saving a value for it is refused
 *   (409) until the variable is removed. A stored value stays stored (and unused) meanwhile.
 * - A stored provider without a base URL of its own uses the environment's *_BASE_URL, and stored
 *   SMTP without a sender SMTP_FROM (a base URL or a sender alone does not count as "set").
 * - A value that cannot be decrypted (settings-key lost or replaced) is left out, with one warning
 *   in the log, and shown to the admin as stored but unreadable, to be entered again.
 * - Embeddings (EMBEDDINGS) stay environment-only: the vectors stored depend on them.
 */

export type SettingName = `provider.${ProviderName}` | 'smtp';
export {
  keyHint,
  type ProviderView,
  safeUrl,
  type SettingSource,
  type SettingsView,
  type SettingView,
  type SmtpView,
} from './setting-views.js';

interface KeyValue {
  api_key: string;
  base_url?: string;
}
interface OllamaValue {
  host: string;
}
interface SmtpValue {
  url: string;
  from?: string;
}

type StoredRow =
  | { state: 'readable'; value: Record<string, unknown>; updated_at: string }
  | { state: 'unreadable'; updated_at: string };

/** The variable that wins over each stored setting (a provider's key, or Ollama's host). */
const ENV_VARIABLE = {
  ...Object.fromEntries(PROVIDER_NAMES.map((name) => [`provider.${name}`, settingVariable(name)])),
  smtp: 'SMTP_URL',
} as Record<SettingName, string>;

const providerSetting = (name: ProviderName): SettingName => `provider.${name}`;

export interface ServerSettingsDeps {
  db: Db;
  config: Pick<Config, 'dataDir' | 'providers' | 'smtp' | 'embeddings' | 'llmTimeoutMs'>;
  clock: Clock;
  log: FastifyBaseLogger;
}

export class ServerSettings {
  private readonly key: SettingsKey;
  private readonly repo: SettingsRepo;
  private readonly rows = new Map<SettingName, StoredRow>();
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly deps: ServerSettingsDeps) {
    this.key = new SettingsKey(deps.config.dataDir);
    this.repo = new SettingsRepo(deps.db);
    this.load();
  }

  /** Called after every change (the lead-alert queue starts once mail is configured). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  // --- what is in use -------------------------------------------------------------------------

  /** The provider's connection now: the environment's, else the stored one, else null. */
  provider(name: ProviderName): ProviderConnection | null {
    const env = environmentProvider(this.deps.config.providers, name);
    if (env) return env;
    const stored = this.readable(providerSetting(name));
    if (!stored) return null;
    if (usesHost(name)) return { host: (stored as unknown as OllamaValue).host };
    const value = stored as unknown as KeyValue;
    return { apiKey: value.api_key, baseURL: value.base_url ?? this.deps.config.providers[name].baseURL };
  }

  providerSource(name: ProviderName): SettingSource {
    if (environmentProvider(this.deps.config.providers, name)) return 'environment';
    return this.readable(providerSetting(name)) ? 'database' : 'none';
  }

  /** The mail server now: SMTP_URL's, else the stored one, else none (`url` undefined). */
  smtp(): SmtpSettings {
    const env = this.deps.config.smtp;
    if (env.url) return env;
    const stored = this.readable('smtp') as unknown as SmtpValue | undefined;
    return stored ? { url: stored.url, from: stored.from ?? env.from } : {};
  }

  smtpSource(): SettingSource {
    if (this.deps.config.smtp.url) return 'environment';
    return this.readable('smtp') ? 'database' : 'none';
  }

  // --- the admin's view -----------------------------------------------------------------------

  view(): SettingsView {
    const providers = Object.fromEntries(PROVIDER_NAMES.map((name) => [name, this.providerView(name)])) as Record<
      ProviderName,
      ProviderView
    >;
    const smtp = this.smtp();
    return {
      providers,
      smtp: {
        ...this.common('smtp', this.smtpSource(), smtp.url ? safeUrl(smtp.url) : null),
        from: smtp.url ? (smtp.from ?? null) : null,
      },
      embeddings: this.deps.config.embeddings,
    };
  }

  providerView(name: ProviderName): ProviderView {
    const connection = this.provider(name);
    const hint = !connection
      ? null
      : usesHost(name)
        ? safeUrl(connection.host ?? '')
        : keyHint(connection.apiKey ?? '');
    const baseUrl = connection?.baseURL ? safeUrl(connection.baseURL) : null;
    return { ...this.common(providerSetting(name), this.providerSource(name), hint), base_url: baseUrl };
  }

  smtpView(): SmtpView {
    return this.view().smtp;
  }

  private common(name: SettingName, source: SettingSource, hint: string | null): SettingView {
    const row = this.rows.get(name);
    return {
      source,
      configured: source !== 'none',
      env_variable: ENV_VARIABLE[name],
      hint,
      stored: row?.state ?? 'none',
      updated_at: row?.updated_at ?? null,
    };
  }

  // --- changes --------------------------------------------------------------------------------

  /** Stores a provider's key (and base URL) or Ollama's host; 409 while the environment sets it. */
  setProvider(
    name: ProviderName,
    input: { api_key?: string; base_url?: string | null; host?: string },
    userId: string,
  ): ProviderView {
    this.refuseWhileEnvironment(providerSetting(name), `the ${name} provider`);
    if (usesHost(name)) {
      if (!input.host) throw badRequest(`host: required for ${name} (e.g. http://127.0.0.1:11434)`);
      this.write(providerSetting(name), { host: input.host } satisfies OllamaValue, userId);
    } else {
      if (!input.api_key) throw badRequest(`api_key: required for ${name}`);
      this.write(
        providerSetting(name),
        { api_key: input.api_key, ...(input.base_url ? { base_url: input.base_url } : {}) } satisfies KeyValue,
        userId,
      );
    }
    return this.providerView(name);
  }

  setSmtp(input: { url: string; from?: string | null }, userId: string): SmtpView {
    this.refuseWhileEnvironment('smtp', 'e-mail');
    this.write('smtp', { url: input.url, ...(input.from ? { from: input.from } : {}) } satisfies SmtpValue, userId);
    return this.smtpView();
  }

  /** Removes the stored value (none stored: nothing to do). The environment's value, if any, stays in use. */
  remove(name: SettingName): void {
    if (!this.rows.has(name)) return;
    this.repo.delete(name);
    this.rows.delete(name);
    this.changed();
  }

  // --- tests the admin runs -------------------------------------------------------------------

  /**
   * A provider made from what the admin typed and has not saved (issue 31: "Test" before "Save"),
   * or null when nothing was typed. Nothing is stored. 409 while the environment sets the provider:
   * the typed value would not be the one in use. A typed key without a base URL uses `*_BASE_URL`,
   * as a saved one does.
   */
  draftProvider(
    name: ProviderName,
    input: { api_key?: string; base_url?: string | null; host?: string },
  ): LlmProvider | null {
    const typed = usesHost(name) ? input.host : input.api_key;
    if (!typed) return null;
    this.refuseWhileEnvironment(providerSetting(name), `the ${name} provider`);
    const connection: ProviderConnection = usesHost(name)
      ? { host: typed }
      : { apiKey: typed, baseURL: input.base_url || this.deps.config.providers[name].baseURL };
    return createLlmProvider(name, { ...connection, timeoutMs: this.deps.config.llmTimeoutMs });
  }

  /**
   * One tiny completion (1 token) with the provider as configured now, or as typed (`draft`); 409
   * unconfigured, 502 with the provider's error (connection-tests.ts).
   */
  async testProvider(
    name: ProviderName,
    provider: LlmProvider | null,
    model: string,
    draft = false,
  ): Promise<{ detail: string; model: string }> {
    return testProvider(name, provider, model, draft);
  }

  /** A test message through the mail server as configured now; 409 unconfigured, 502 with the server's error (no secrets). */
  async testSmtp(mailer: Mailer, to: string): Promise<{ detail: string; to: string }> {
    return testSmtp(mailer, to, this.smtp().url);
  }

  // --- storage --------------------------------------------------------------------------------

  private readable(name: SettingName): Record<string, unknown> | undefined {
    const row = this.rows.get(name);
    return row?.state === 'readable' ? row.value : undefined;
  }

  private refuseWhileEnvironment(name: SettingName, what: string): void {
    const envSet =
      name === 'smtp'
        ? Boolean(this.deps.config.smtp.url)
        : environmentProvider(this.deps.config.providers, name.slice('provider.'.length) as ProviderName) !== null;
    if (envSet) {
      throw conflict(
        `${ENV_VARIABLE[name]} is set in the server's environment, and the environment wins: remove it there (and restart) to set ${what} here.`,
      );
    }
  }

  private write(name: SettingName, value: Record<string, unknown>, userId: string): void {
    let key: Buffer;
    try {
      key = this.key.readOrCreate();
    } catch (err) {
      if (err instanceof DamagedKeyError) {
        throw conflict(
          `${SETTINGS_KEY_FILE} in the server's data directory is damaged: restore it from a backup, or delete it to start over (stored settings must then be entered again).`,
        );
      }
      throw err;
    }
    const updatedAt = isoNow(this.deps.clock);
    const row = {
      key: name,
      value_encrypted: encryptValue(key, name, JSON.stringify(value)),
      updated_at: updatedAt,
      updated_by: userId,
    };
    this.repo.upsert(row);
    this.rows.set(name, { state: 'readable', value, updated_at: updatedAt });
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (err) {
        this.deps.log.error({ err }, 'applying a server settings change failed');
      }
    }
  }

  /** Reads and decrypts every stored setting once; what cannot be read is named in one warning. */
  private load(): void {
    const all = this.repo.all();
    if (all.length === 0) return;
    let key: Buffer | null = null;
    let keyProblem = 'the key file is missing';
    try {
      key = this.key.read();
    } catch (err) {
      keyProblem =
        err instanceof DamagedKeyError
          ? 'the key file is damaged'
          : `the key file cannot be read (${(err as Error).message})`;
    }
    const unreadable: string[] = [];
    for (const row of all) {
      const name = row.key as SettingName;
      if (!(name in ENV_VARIABLE)) continue; // a setting of a later version: left alone
      try {
        if (!key) throw new Error(keyProblem);
        const value = JSON.parse(decryptValue(key, name, row.value_encrypted)) as unknown;
        if (!isStoredValue(name, value)) throw new Error('unexpected value');
        this.rows.set(name, { state: 'readable', value, updated_at: row.updated_at });
      } catch {
        this.rows.set(name, { state: 'unreadable', updated_at: row.updated_at });
        unreadable.push(name);
      }
    }
    if (unreadable.length > 0) {
      this.deps.log.warn(
        { settings: unreadable },
        `stored server settings cannot be read (${key ? `they were written with another ${SETTINGS_KEY_FILE}` : keyProblem}) and are ignored: an admin enters them again under Admin > Server settings`,
      );
    }
  }
}

function isStoredValue(name: SettingName, value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (name === 'smtp') return typeof v.url === 'string';
  if (usesHost(name.slice('provider.'.length) as ProviderName)) return typeof v.host === 'string';
  return typeof v.api_key === 'string';
}
