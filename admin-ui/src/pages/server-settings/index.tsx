import { get } from '../../api.js';
import { PROVIDERS } from '../../providers.js';
import { useSession } from '../../session.js';
import type { ServerSettingsView } from '../../types.js';
import { Loading, Notice, useAsync } from '../../ui.js';
import { MailCard } from './mail-card.js';
import { ProviderCard } from './provider-card.js';

/**
 * Admin > Server settings: provider keys and the mail server, saved on the server (encrypted) and
 * applied at once. A value set in the server's environment wins and cannot be changed here. Keys
 * never come back from the server: each card shows where its value comes from and a hint.
 */
export function ServerSettingsSection() {
  const settings = useAsync(() => get<ServerSettingsView>('/api/admin/settings'), []);
  const { refreshStatus } = useSession();
  // a saved or removed key changes the "No AI provider" banner (and mail the mail banner): read it again
  const reload = async () => {
    await settings.reload();
    refreshStatus();
  };
  return (
    <section class="stack-lg server-settings" aria-labelledby="server-settings">
      <div class="section-head">
        <h2 id="server-settings">Server settings</h2>
        <p class="muted">
          AI provider keys and the mail server. What you save is stored encrypted on the server and applies at once,
          without a restart. A value set in the server’s environment wins over what is saved here.
        </p>
      </div>
      {settings.error && <Notice kind="error">{settings.error}</Notice>}
      {!settings.data && settings.loading && <Loading />}
      {settings.data && (
        <>
          {PROVIDERS.map((p) => (
            <ProviderCard
              key={`${p.id}-${settings.settled}`}
              provider={p}
              view={settings.data!.providers[p.id]}
              reload={reload}
            />
          ))}
          <MailCard key={`smtp-${settings.settled}`} view={settings.data.smtp} reload={reload} />
          <p class="small muted" data-embeddings>
            Embeddings (<code>EMBEDDINGS</code>, now <code>{settings.data.embeddings}</code>) are set in the server’s
            environment only: the stored vectors depend on them.
          </p>
        </>
      )}
    </section>
  );
}
