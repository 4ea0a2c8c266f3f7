import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import type { ServerSettingsView } from '../../types.js';
import { Field, Notice, inputValue } from '../../ui.js';
import { RemoveButton, removeStored, StateBadge, StateText, useAction } from './card-parts.js';
import { FIELD_MAX } from '../../field-limits.js';

export function MailCard({ view, reload }: { view: ServerSettingsView['smtp']; reload: () => Promise<void> }) {
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
              maxLength={FIELD_MAX.settings.smtp_url}
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
              maxLength={FIELD_MAX.settings.smtp_from}
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
