import { useState } from 'preact/hooks';
import { SecretOnce } from '../secret-once.js';
import { api, get } from '../api.js';
import type { Webhook, WebhookDelivery, WebhookWithSecret } from '../types.js';
import {
  Badge,
  ConfirmDialog,
  EmptyState,
  Field,
  Loading,
  Notice,
  RefreshButton,
  errorText,
  formatDate,
  toast,
  useAsync,
  inputValue,
  useSubmit,
  useBusy,
} from '../ui.js';
import { FIELD_MAX } from '../field-limits.js';

const EVENTS: Array<[string, string]> = [
  ['lead.created', 'A visitor leaves a lead'],
  ['conversation.escalated', 'A conversation asks for a person'],
  ['conversation.resolved', 'A conversation is resolved'],
  ['message.created', 'Every chat message (busy)'],
  ['action.run', 'An action ran, failed or was cancelled'],
  ['booking.created', 'A visitor booked a time'],
  ['tests.regressed', 'A test question that passed fails now'],
];

/**
 * The account's webhooks (docs/API-NOTES.md "Webhooks"): signed POSTs of events to the owner's own URLs,
 * with a delivery log per webhook. A section of the Account page, so the nav stays short.
 */
export function WebhooksSection() {
  const hooks = useAsync(() => get<Webhook[]>('/api/webhooks'), []);
  const [secret, setSecret] = useState<{ id: string; url: string; secret: string } | null>(null);
  const [adding, setAdding] = useState(false);
  return (
    <section class="card section stack" aria-labelledby="webhooks-title">
      <div class="section-head">
        <h2 id="webhooks-title">Webhooks</h2>
        <p class="muted">
          Events are POSTed as JSON to your URL, signed with the webhook's secret (header{' '}
          <code>Chat-Agent-Signature</code>). Failed deliveries are retried for about a day.
        </p>
      </div>
      {secret && (
        <SecretOnce secret={secret.secret} onDone={() => setSecret(null)}>
          The signing secret of {secret.url}. It is shown only now: copy it into your receiver.
        </SecretOnce>
      )}
      {hooks.error && <Notice kind="error">{hooks.error}</Notice>}
      {hooks.loading && !hooks.data && <Loading />}
      {hooks.data && hooks.data.length === 0 && !adding && <EmptyState>No webhooks yet.</EmptyState>}
      {hooks.data?.map((hook) => (
        <WebhookCard
          key={hook.id}
          hook={hook}
          onChanged={hooks.reload}
          onSecret={(s) => setSecret({ id: hook.id, url: hook.url, secret: s })}
        />
      ))}
      {adding ? (
        <AddWebhook
          onCancel={() => setAdding(false)}
          onAdded={async (created) => {
            setAdding(false);
            setSecret({ id: created.id, url: created.url, secret: created.secret });
            await hooks.reload();
          }}
        />
      ) : (
        <div class="actions">
          <button type="button" class="btn btn-primary" onClick={() => setAdding(true)}>
            Add webhook
          </button>
        </div>
      )}
    </section>
  );
}

function EventChoices({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  return (
    <fieldset class="stack">
      <legend class="field-label">Events</legend>
      {EVENTS.map(([name, label]) => (
        <label class="toggle" key={name}>
          <input
            type="checkbox"
            checked={value.includes(name)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, name] : value.filter((v) => v !== name))}
          />
          <span>
            <code>{name}</code> <span class="muted">{label}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function AddWebhook({ onAdded, onCancel }: { onAdded: (w: WebhookWithSecret) => Promise<void>; onCancel: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['lead.created']);
  const { busy, error, submit } = useSubmit(async () => {
    await onAdded(await api<WebhookWithSecret>('POST', '/api/webhooks', { url: url.trim(), events }));
  });
  return (
    <form class="stack" onSubmit={submit} aria-label="Add webhook">
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="URL" hint="https://, on a public address">
        <input
          type="url"
          name="webhook-url"
          required
          maxLength={FIELD_MAX.webhook_url}
          placeholder="https://example.com/hooks/chat-agent"
          value={url}
          onInput={(e) => setUrl(inputValue(e))}
        />
      </Field>
      <EventChoices value={events} onChange={setEvents} />
      <div class="actions">
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" class="btn btn-primary" disabled={busy || events.length === 0}>
          {busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  );
}

function WebhookCard({
  hook,
  onChanged,
  onSecret,
}: {
  hook: Webhook;
  onChanged: () => Promise<void>;
  onSecret: (secret: string) => void;
}) {
  const [showLog, setShowLog] = useState(false);
  const [logKey, setLogKey] = useState(0);
  const [confirm, setConfirm] = useState<'delete' | 'rotate' | null>(null);
  const { busy, run } = useBusy((text) => toast(text, 'error'));
  const act = (fn: () => Promise<unknown>, done: string) =>
    run(async () => {
      await fn();
      toast(done);
    });
  return (
    <article class="card stack" aria-label={`Webhook ${hook.url}`}>
      <div class="section-head-row">
        <strong class="grow" style={{ overflowWrap: 'anywhere' }}>
          {hook.url}
        </strong>
        {hook.active ? <Badge kind="ok">Enabled</Badge> : <Badge kind="off">Disabled</Badge>}
      </div>
      <p class="muted small">{hook.events.join(', ')}</p>
      <div class="actions">
        <button
          type="button"
          class="btn btn-small"
          disabled={busy}
          onClick={() =>
            act(async () => {
              await api('POST', `/api/webhooks/${encodeURIComponent(hook.id)}/test`);
              setShowLog(true);
              setLogKey((k) => k + 1);
            }, 'Test event queued')
          }
        >
          Send test event
        </button>
        <button type="button" class="btn btn-small" onClick={() => setShowLog(!showLog)} aria-expanded={showLog}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <button
          type="button"
          class="btn btn-small"
          disabled={busy}
          onClick={() =>
            act(
              async () => {
                await api('PATCH', `/api/webhooks/${encodeURIComponent(hook.id)}`, { active: !hook.active });
                await onChanged();
              },
              hook.active ? 'Webhook disabled' : 'Webhook enabled',
            )
          }
        >
          {hook.active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="btn btn-small" disabled={busy} onClick={() => setConfirm('rotate')}>
          Rotate secret
        </button>
        <button type="button" class="btn btn-small btn-danger" disabled={busy} onClick={() => setConfirm('delete')}>
          Delete
        </button>
      </div>
      {showLog && <DeliveryLog key={logKey} hookId={hook.id} />}
      {confirm === 'delete' && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            await api('DELETE', `/api/webhooks/${encodeURIComponent(hook.id)}`);
            setConfirm(null);
            toast('Webhook deleted');
            await onChanged();
          }}
        >
          <p>Events stop going to {hook.url}, deliveries still waiting are dropped, and its delivery log is deleted.</p>
        </ConfirmDialog>
      )}
      {confirm === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            const res = await api<WebhookWithSecret>(
              'POST',
              `/api/webhooks/${encodeURIComponent(hook.id)}/rotate-secret`,
            );
            setConfirm(null);
            onSecret(res.secret);
          }}
        >
          <p>
            The current secret stops working at once: deliveries from now on are signed with the new one. Put it into
            your receiver right away.
          </p>
        </ConfirmDialog>
      )}
    </article>
  );
}

const STATUS_BADGE: Record<WebhookDelivery['status'], string> = { delivered: 'ok', pending: 'busy', failed: 'bad' };

function DeliveryLog({ hookId }: { hookId: string }) {
  const log = useAsync(
    () => get<WebhookDelivery[]>(`/api/webhooks/${encodeURIComponent(hookId)}/deliveries?limit=50`),
    [hookId],
  );
  const retry = async (d: WebhookDelivery) => {
    try {
      await api('POST', `/api/webhooks/${encodeURIComponent(hookId)}/deliveries/${encodeURIComponent(d.id)}/retry`);
      toast('Delivery queued again');
      await log.reload();
    } catch (err) {
      toast(errorText(err), 'error');
    }
  };
  return (
    <div class="stack">
      <div class="section-head-row">
        <h3 class="grow">Deliveries</h3>
        <RefreshButton onRefresh={log.reload} busy={log.loading} />
      </div>
      {log.error && <Notice kind="error">{log.error}</Notice>}
      {log.loading && !log.data && <Loading />}
      {log.data && log.data.length === 0 && <EmptyState>No deliveries yet.</EmptyState>}
      {log.data && log.data.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label="Deliveries">
            <thead>
              <tr style={{ whiteSpace: 'nowrap' }}>
                <th>Event</th>
                <th>Status</th>
                <th>Tries</th>
                <th>Last answer</th>
                <th>When</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <tr key={d.id}>
                  <td style={{ whiteSpace: 'nowrap' }}>
                    <code>{d.event}</code>
                  </td>
                  <td>
                    <Badge kind={STATUS_BADGE[d.status]}>{d.status}</Badge>
                  </td>
                  <td>{d.attempts}</td>
                  <td class="small" style={{ overflowWrap: 'anywhere', minWidth: '8em' }}>
                    {d.last_error ?? (d.last_status !== null ? `HTTP ${d.last_status}` : '—')}
                  </td>
                  <td class="small" style={{ minWidth: '8em' }}>
                    {formatDate(d.delivered_at ?? d.created_at)}
                  </td>
                  <td>
                    {d.status === 'failed' && (
                      <button type="button" class="btn btn-small" onClick={() => retry(d)}>
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
