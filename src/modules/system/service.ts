import type { Config } from '../../config/index.js';
import type { DatabaseConditionReport } from '../../platform/db/condition.js';
import type { AuthUser } from '../auth/index.js';
import type { BackupScheduleStatus } from '../backup/index.js';

import { PROVIDER_NAMES as PROVIDERS, type ProviderName } from '../../providers/llm/catalog.js';

export type { ProviderName };
/** where a provider's key or the mail server comes from: the environment (which wins), the admin's stored settings, or nowhere */
export type SettingSource = 'environment' | 'database' | 'none';

export interface RegistrationState {
  registration: Config['registration'];
  /** whether POST /api/auth/register would accept a new account right now */
  open: boolean;
  /** whether any account exists; until one does, the admin UI's first screen creates the owner's */
  has_accounts: boolean;
}

export interface SystemStatus {
  /** true for each LLM provider that has a key (or a host, for Ollama), from the environment or stored by an admin */
  providers: Record<ProviderName, boolean>;
  /** no provider at all: every agent answers from its knowledge base only */
  knowledge_only: boolean;
  embeddings: Config['embeddings'];
  mail: { configured: boolean; pending: number };
  /** for each provider and for mail: set by the environment, stored by an admin (Admin > Server settings), or not at all */
  configured_by: Record<ProviderName | 'mail', SettingSource>;
  /** plan ids of the plan table (the admin page offers them) */
  plans: string[];
  /** the base URL of embed snippets, share links and e-mail links: PUBLIC_URL, or http://localhost:$PORT without it */
  public_url: string;
  /** whether PUBLIC_URL is set; when it is not, public_url is only right for a browser on the server itself */
  public_url_configured: boolean;
  /** full disk or damage, with what to do (the admin UI shows it as a banner) */
  database: DatabaseConditionReport;
  /** scheduled backups: `scheduled: false` when BACKUP_INTERVAL_H is 0 */
  backups: BackupScheduleStatus | { scheduled: false };
  /** test questions of the account's agents that regressed in their agent's latest run (the admin UI's banner) */
  tests: { regressions: number };
}

export interface SystemDeps {
  config: Pick<Config, 'registration' | 'embeddings' | 'plans' | 'publicUrl' | 'publicUrlConfigured'>;
  /** where each provider's configuration comes from now (stored settings apply without a restart) */
  providerSource: (name: ProviderName) => SettingSource;
  /** whether sign-up would accept a new account now (the auth module's rule) */
  registrationOpen: () => boolean;
  /** whether the server has any account yet */
  hasAccounts: () => boolean;
  /** pending: the asking account's alerts waiting to go out */
  mail: { configured: () => boolean; source: () => SettingSource; pending: (user: AuthUser) => number };
  database: () => DatabaseConditionReport;
  /** null when no backups are scheduled */
  backups: () => BackupScheduleStatus | null;
  /** the asking account's test questions that regressed in their agent's latest run */
  testRegressions: (user: AuthUser) => number;
}

/**
 * What the admin UI needs to know about the server's own set-up: whether registration is open
 * (the login page), which providers have keys and whether mail can go out (the banners). It only
 * reads configuration and counts; it decides nothing.
 */
export class SystemService {
  constructor(private readonly deps: SystemDeps) {}

  registration(): RegistrationState {
    return {
      registration: this.deps.config.registration,
      open: this.deps.registrationOpen(),
      has_accounts: this.deps.hasAccounts(),
    };
  }

  status(user: AuthUser): SystemStatus {
    const sources = Object.fromEntries(PROVIDERS.map((n) => [n, this.deps.providerSource(n)])) as Record<
      ProviderName,
      SettingSource
    >;
    const providers = Object.fromEntries(PROVIDERS.map((n) => [n, sources[n] !== 'none'])) as Record<
      ProviderName,
      boolean
    >;
    return {
      providers,
      knowledge_only: !PROVIDERS.some((n) => providers[n]),
      embeddings: this.deps.config.embeddings,
      mail: { configured: this.deps.mail.configured(), pending: this.deps.mail.pending(user) },
      configured_by: { ...sources, mail: this.deps.mail.source() },
      plans: Object.keys(this.deps.config.plans),
      public_url: this.deps.config.publicUrl,
      public_url_configured: this.deps.config.publicUrlConfigured,
      database: this.deps.database(),
      backups: this.backups(user),
      tests: { regressions: this.deps.testRegressions(user) },
    };
  }

  /** A failed backup's message names folders of the server: an admin sees it, an account only that backups fail. */
  private backups(user: AuthUser): SystemStatus['backups'] {
    const status = this.deps.backups();
    if (!status) return { scheduled: false };
    return user.role === 'admin'
      ? status
      : { ...status, last_error: status.failing ? 'The last scheduled backup failed (the server log says why)' : null };
  }
}
