import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { PROVIDERS, type ProviderInfo } from '../providers.js';
import { useSession } from '../session.js';
import type { Provider, ServerSettingsView, SettingView } from '../types.js';
import { Badge, Field, Loading, Notice, errorText, formatDate, toast, useAsync, inputValue } from '../ui.js';

/** The state of one setting as a badge. */
function StateBadge({ view }: { view: SettingView }) {
  if (view.source === 'environment') return <Badge kind="info">From the environment</Badge>;
  if (view.stored === 'unreadable') return <Badge kind="bad">Stored, but unreadable</Badge>;
  if (view.source === 'database') return <Badge kind="ok">Saved here</Badge>;
  return <Badge kind="off">Not set</Badge>;
}

/** The state of one setting in words: where it comes from, and what to do. */
function StateText({ view, what }: { view: SettingView; what: string }) {
  if (view.source === 'environment') {
    return (
      <p class="small" data-state="environment">
        Set by <code>{view.env_variable}</code> on the server; change it there. The environment wins over anything saved
        here.
        {view.stored !== 'none' && ' A value saved here is kept, unused.'}
      </p>
    );
  }
  if (view.stored === 'unreadable') {
    return (
      <Notice kind="warning">
        Stored, but unreadable: the server cannot decrypt the saved {what} (its settings-key file was lost or replaced).
        Enter it again.
      </Notice>
    );
  }
  if (view.source === 'database') {
    return (
      <p class="small muted" data-state="database">
        Saved here, stored encrypted on the server{view.updated_at ? ` (${formatDate(view.updated_at)})` : ''}.
      </p>
    );
  }
  return (
    <p class="small muted" data-state="none">
      Not set: save one here, or set <code>{view.env_variable}</code> on the server.
    </p>
  );
}

/** The answer of a test call, shown under the card's buttons. */
type Outcome = { kind: 'success' | 'error'; text: string } | null;

function useAction(onDone: () => Promise<void>) {
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  /** a change (save, remove) is told by a toast and reloads the settings; a test's answer stays on the card */
  const run = async (label: string, fn: () => Promise<string>, change = false) => {
    setBusy(label);
    setOutcome(null);
    try {
      const text = await fn();
      if (change) {
        toast(text);
        await onDone();
      } else setOutcome({ kind: 'success', text });
    } catch (err) {
      setOutcome({ kind: 'error', text: errorText(err) });
    } finally {
      setBusy(null);
    }
  };
  return { busy, outcome, run };
}

function ProviderCard({
  provider,
  view,
  reload,
}: {
  provider: ProviderInfo;
  view: ServerSettingsView['providers'][Provider];
  reload: () => Promise<void>;
}) {
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(view.source === 'database' ? (view.base_url ?? '') : '');
  const [host, setHost] = useState('');
  const { busy, outcome, run } = useAction(reload);
  const fromEnv = view.source === 'environment';
  // set in the environment: nothing to type here (the server would refuse it)
  const locked = fromEnv || busy !== null;
  const path = `/api/admin/settings/providers/${provider.id}`;
  const headingId = `setting-${provider.id}`;
  const typed = !fromEnv && (provider.keyed ? key.trim() : host.trim()) !== '';
  const testBody = () =>
    !typed ? {} : provider.keyed ? { api_key: key.trim(), base_url: baseUrl.trim() || null } : { host: host.trim() };

  const save = (e: Event) => {
    e.preventDefault();
    void run(
      'save',
      async () => {
        const body = provider.keyed ? { api_key: key.trim(), base_url: baseUrl.trim() || null } : { host: host.trim() };
        await api('PUT', path, body);
        // the key leaves the page once it is saved: only its hint comes back
        setKey('');
        setHost('');
        return `${provider.name}: saved; agents on ${provider.name} use it from now on`;
      },
      true,
    );
  };

  return (
    <section class="card stack" aria-labelledby={headingId} data-setting={provider.id}>
      <div class="section-head-row">
        <h3 id={headingId}>{provider.name}</h3>
        <StateBadge view={view} />
      </div>
      <StateText view={view} what={provider.keyed ? 'key' : 'host'} />
      {view.configured && (
        <dl class="facts">
          <div>
            <dt>{provider.keyed ? 'Key' : 'Host'}</dt>
            <dd data-hint>{view.hint ?? (provider.keyed ? 'set (too short to show its end)' : '—')}</dd>
          </div>
          {provider.keyed && (
            <div>
              <dt>Base URL</dt>
              <dd>{view.base_url ?? 'the provider’s own'}</dd>
            </div>
          )}
        </dl>
      )}
      <form class="stack" onSubmit={save} method="post" aria-label={`${provider.name} settings`}>
        {provider.keyed ? (
          <div class="grid-2">
            <Field
              label="API key"
              hint={
                view.source === 'database'
                  ? 'Enter a new key to replace the saved one'
                  : 'Stored encrypted; never shown again'
              }
            >
              <input
                type="password"
                name={`${provider.id}-api-key`}
                autocomplete="off"
                spellcheck={false}
                required
                disabled={locked}
                maxLength={500}
                placeholder={view.hint ?? ''}
                value={key}
                onInput={(e) => setKey(inputValue(e))}
              />
            </Field>
            <Field label="Base URL" hint={provider.baseHint}>
              <input
                type="url"
                name={`${provider.id}-base-url`}
                disabled={locked}
                autocomplete="off"
                spellcheck={false}
                maxLength={500}
                placeholder="https://…"
                value={baseUrl}
                onInput={(e) => setBaseUrl(inputValue(e))}
              />
            </Field>
          </div>
        ) : (
          <Field label="Host" hint="The Ollama server, e.g. http://127.0.0.1:11434">
            <input
              type="url"
              name="ollama-host"
              disabled={locked}
              autocomplete="off"
              spellcheck={false}
              required
              maxLength={500}
              placeholder={view.hint ?? 'http://127.0.0.1:11434'}
              value={host}
              onInput={(e) => setHost(inputValue(e))}
            />
          </Field>
        )}
        <div class="actions">
          {view.stored !== 'none' && (
            <RemoveButton
              disabled={busy !== null}
              onRemove={() =>
                run(
                  'remove',
                  () =>
                    removeStored(path, `${provider.name}: the saved ${provider.keyed ? 'key' : 'host'} was removed`),
                  true,
                )
              }
            />
          )}
          {/* a key (host) typed and not saved is tested as typed, without saving it; else the one in use */}
          <button
            type="button"
            class="btn"
            disabled={(!view.configured && !typed) || busy !== null}
            onClick={() =>
              void run('test', async () => (await api<{ detail: string }>('POST', `${path}/test`, testBody())).detail)
            }
          >
            {busy === 'test' ? 'Testing…' : 'Test'}
          </button>
          <button type="submit" class="btn btn-primary" disabled={fromEnv || busy !== null}>
            {busy === 'save' ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
      {outcome && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
    </section>
  );
}

function MailCard({ view, reload }: { view: ServerSettingsView['smtp']; reload: () => Promise<void> }) {
  const { user } = useSession();
  const [url, setUrl] = useState('');
  const [showUrl, setShowUrl] = useState(false);
  const [from, setFrom] = useState(view.source === 'database' ? (view.from ?? '') : '');
  const { busy, outcome, run } = useAction(reload);
  const fromEnv = view.source === 'environment';
  // set in the environment: nothing to type here (the server would refuse it)
  const locked = fromEnv || busy !== null;

  const save = (e: Event) => {
    e.preventDefault();
    void run(
      'save',
      async () => {
        await api('PUT', '/api/admin/settings/smtp', { url: url.trim(), from: from.trim() || null });
        setUrl('');
        return 'E-mail: saved; lead alerts and reset links go out through it from now on';
      },
      true,
    );
  };

  return (
    <section class="card stack" aria-labelledby="setting-smtp" data-setting="smtp">
      <div class="section-head-row">
        <h3 id="setting-smtp">E-mail (SMTP)</h3>
        <StateBadge view={view} />
      </div>
      <StateText view={view} what="mail server" />
      <p class="small muted">
        Lead alerts and password reset links. Alerts waiting for mail go out once it is configured.
      </p>
      {view.configured && (
        <dl class="facts">
          <div>
            <dt>Server</dt>
            <dd data-hint>{view.hint ?? '—'}</dd>
          </div>
          <div>
            <dt>Sender</dt>
            <dd>{view.from ?? 'chat-agent@localhost'}</dd>
          </div>
        </dl>
      )}
      <form class="stack" onSubmit={save} method="post" aria-label="E-mail settings">
        <div class="grid-2">
          <Field
            label="SMTP URL"
            hint="smtp://user:password@host:587 or smtps://…:465; the password is stored encrypted and never shown"
          >
            <input
              type={showUrl ? 'text' : 'password'}
              name="smtp-url"
              autocomplete="off"
              spellcheck={false}
              required
              disabled={locked}
              maxLength={1000}
              placeholder={view.hint ?? 'smtp://user:password@mail.example.com:587'}
              value={url}
              onInput={(e) => setUrl(inputValue(e))}
            />
          </Field>
          <Field label="From" hint="Optional sender, e.g. Alerts <alerts@example.com>">
            <input
              type="text"
              name="smtp-from"
              disabled={locked}
              autocomplete="off"
              maxLength={320}
              value={from}
              onInput={(e) => setFrom(inputValue(e))}
            />
          </Field>
        </div>
        <label class="toggle small">
          <input
            type="checkbox"
            disabled={locked}
            checked={showUrl}
            onChange={(e) => setShowUrl(e.currentTarget.checked)}
          />
          Show the URL while typing
        </label>
        <div class="actions">
          {view.stored !== 'none' && (
            <RemoveButton
              disabled={busy !== null}
              onRemove={() =>
                run(
                  'remove',
                  () => removeStored('/api/admin/settings/smtp', 'E-mail: the saved mail server was removed'),
                  true,
                )
              }
            />
          )}
          <button
            type="button"
            class="btn"
            disabled={!view.configured || busy !== null}
            title={`Sends a test message to ${user.email}`}
            onClick={() =>
              void run(
                'test',
                async () => (await api<{ detail: string }>('POST', '/api/admin/settings/smtp/test', {})).detail,
              )
            }
          >
            {busy === 'test' ? 'Sending…' : 'Send a test message'}
          </button>
          <button type="submit" class="btn btn-primary" disabled={fromEnv || busy !== null}>
            {busy === 'save' ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
      {view.configured && <p class="small muted">The test message goes to your own address, {user.email}.</p>}
      {outcome && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
    </section>
  );
}

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

/** Deletes a stored setting and says what went. */
async function removeStored(path: string, done: string): Promise<string> {
  await api('DELETE', path);
  return done;
}

/** Removes what the database holds for a card (the environment's value is never touched). */
function RemoveButton({ disabled, onRemove }: { disabled: boolean; onRemove: () => unknown }) {
  return (
    <button type="button" class="btn btn-danger-text" disabled={disabled} onClick={() => void onRemove()}>
      Remove
    </button>
  );
}
