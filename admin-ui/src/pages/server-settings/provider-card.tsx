import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { ProviderInfo } from '../../providers.js';
import type { Provider, ServerSettingsView } from '../../types.js';
import { Field, Notice, inputValue } from '../../ui.js';
import { RemoveButton, removeStored, StateBadge, StateText, useAction } from './card-parts.js';
import { FIELD_MAX } from '../../field-limits.js';

export function ProviderCard({
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
  const path = `/api/admin/settings/providers/${provider.id}` as const;
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
                maxLength={FIELD_MAX.settings.api_key}
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
                maxLength={FIELD_MAX.settings.base_url}
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
              maxLength={FIELD_MAX.settings.base_url}
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
