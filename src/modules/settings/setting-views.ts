import type { Config } from '../../config/index.js';
import type { ProviderName } from '../../providers/llm/types.js';

/** What the admin UI is shown of the server settings: where each comes from and a hint, never a secret. */

export type SettingSource = 'environment' | 'database' | 'none';

/** One setting as the admin UI shows it: where it comes from and a hint, never the secret. */
export interface SettingView {
  source: SettingSource;
  /** whether it is in use now (from the environment or the database) */
  configured: boolean;
  /** the environment variable that wins when set */
  env_variable: string;
  /** the last 4 characters of a key, or a host/URL with its password and query removed */
  hint: string | null;
  /** what the database holds, whether or not it is used: nothing, a value, or one that cannot be decrypted */
  stored: 'none' | 'readable' | 'unreadable';
  updated_at: string | null;
}
export interface ProviderView extends SettingView {
  /** the base URL in use (without credentials or query); null for the provider's default */
  base_url: string | null;
}
export interface SmtpView extends SettingView {
  /** the sender in use; null for the default */
  from: string | null;
}
export interface SettingsView {
  providers: Record<ProviderName, ProviderView>;
  smtp: SmtpView;
  /** environment-only (EMBEDDINGS): shown so the admin knows it is not set here */
  embeddings: Config['embeddings'];
}

/** A key is shown by its last 4 characters, and only when it is long enough for that to say little. */
export function keyHint(key: string): string | null {
  return key.length >= 12 ? `…${key.slice(-4)}` : null;
}

/** A URL without password, query or fragment (the query of an SMTP URL may carry options with secrets). */
export function safeUrl(value: string): string | null {
  try {
    const url = new URL(value);
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}
