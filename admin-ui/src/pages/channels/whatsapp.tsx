import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { type ChannelCardProps, useChannelCard } from './card.js';
import type { ChannelView } from '../../types.js';
import {
  Badge,
  CopyButton,
  Field,
  Notice,
  RefreshButton,
  SubmitButton,
  formatDate,
  inputValue,
  useSubmit,
} from '../../ui.js';

/** the four fields the server takes (src/modules/channels/routes.ts), with what the owner is told */
const FIELDS = [
  {
    name: 'phone_number_id',
    label: 'Phone number ID',
    hint: 'Digits, under the number in WhatsApp > API Setup (not the phone number itself).',
    secret: false,
    max: 200,
  },
  {
    name: 'access_token',
    label: 'Access token',
    hint: 'A system user’s permanent token (the temporary one works for a day). Kept encrypted.',
    secret: true,
    max: 1000,
  },
  {
    name: 'app_secret',
    label: 'App secret',
    hint: 'Settings > Basic > App secret: 32 characters. Checks that messages come from Meta.',
    secret: true,
    max: 200,
  },
  {
    name: 'verify_token',
    label: 'Verify token',
    hint: 'Any 8 to 200 characters without spaces, of your choice: paste the same in Meta’s webhook settings.',
    secret: true,
    max: 200,
  },
] as const;
type Values = Record<(typeof FIELDS)[number]['name'], string>;
const EMPTY: Values = { phone_number_id: '', access_token: '', app_secret: '', verify_token: '' };

/**
 * The agent's WhatsApp number (Meta's Cloud API, docs/CHANNELS.md): the owner pastes four fields,
 * the server checks the number with Meta and keeps them encrypted; the card shows the number and
 * the webhook URL to paste in Meta.
 */
export function WhatsAppCard(props: ChannelCardProps) {
  const { agent, view, onRefresh, refreshing } = props;
  const { status } = useSession();
  const { state, connected, disconnectButton, disconnectDialog } = useChannelCard(props, 'whatsapp', 'WhatsApp');
  const hook = `${status?.public_url ?? location.origin}/api/channels/whatsapp/${encodeURIComponent(agent.id)}`;
  const webhookSteps = (
    <>
      <p class="muted small">
        In Meta’s WhatsApp &gt; Configuration, set the callback URL below with your verify token, then subscribe to the{' '}
        <code>messages</code> webhook field. Meta needs this server on a public https address.
      </p>
      <div class="copy-row">
        <input readOnly value={hook} aria-label="Webhook callback URL" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={hook} label="Copy URL" />
      </div>
    </>
  );
  return (
    <section class="card stack" aria-labelledby="whatsapp-title">
      <div class="section-head-row">
        <h2 id="whatsapp-title">WhatsApp</h2>
        <span class="head-actions">
          <Badge kind={state.kind}>{state.text}</Badge>
          {view.state !== 'not_connected' && <RefreshButton onRefresh={onRefresh} busy={refreshing} />}
        </span>
      </div>
      {view.state === 'not_connected' ? (
        <>
          <ol class="channel-steps">
            <li>
              In{' '}
              <a href="https://developers.facebook.com/apps" target="_blank" rel="noopener noreferrer">
                Meta for Developers
              </a>
              , add WhatsApp to your app and a business phone number to it.
            </li>
            <li>Copy the four values below from the app and press Connect.</li>
            <li>Point Meta’s webhook at this server (the URL below) and subscribe to messages.</li>
          </ol>
          {webhookSteps}
          <WhatsAppForm agentId={agent.id} onConnected={connected} />
        </>
      ) : (
        <>
          {view.state === 'error' && (
            <Notice kind="error">
              The number stopped working: {view.error ?? 'Meta refused its access token'}. Replies wait until you
              connect it again with a new access token below.
            </Notice>
          )}
          <dl class="facts">
            <div>
              <dt>Number</dt>
              <dd>
                {view.account_name ?? '—'}
                {view.display_name && <span class="muted small"> ({view.display_name})</span>}
              </dd>
            </div>
            <div>
              <dt>Last message</dt>
              <dd>{view.last_message_at ? formatDate(view.last_message_at) : 'None yet'}</dd>
            </div>
            <div>
              <dt>Connected on</dt>
              <dd>{formatDate(view.connected_at)}</dd>
            </div>
          </dl>
          {webhookSteps}
          <p class="muted small">
            WhatsApp allows replies only within 24 hours of the person’s last message: later replies are not sent.
          </p>
          {view.state === 'error' ? (
            <WhatsAppForm agentId={agent.id} onConnected={connected}>
              {disconnectButton}
            </WhatsAppForm>
          ) : (
            <div class="actions">{disconnectButton}</div>
          )}
        </>
      )}
      {disconnectDialog}
    </section>
  );
}

/** The four fields and Connect; the server's refusal (`detail`, naming the field) shows above them. */
function WhatsAppForm({
  agentId,
  onConnected,
  children,
}: {
  agentId: string;
  onConnected: (view: ChannelView) => void;
  children?: ComponentChildren;
}) {
  const [values, setValues] = useState<Values>(EMPTY);
  const { busy, error, submit } = useSubmit(async () => {
    const body = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()]));
    const view = await api<ChannelView>(
      'PUT',
      `/api/chatbots/${encodeURIComponent(agentId)}/channels/whatsapp`,
      body as Values,
    );
    setValues(EMPTY);
    onConnected(view);
  });
  return (
    <form class="stack" onSubmit={submit} aria-label="Connect a WhatsApp number">
      {error && <Notice kind="error">{error}</Notice>}
      {FIELDS.map((f) => (
        <Field key={f.name} label={f.label} hint={f.hint}>
          <input
            type={f.secret ? 'password' : 'text'}
            name={`whatsapp-${f.name}`}
            autocomplete="off"
            spellcheck={false}
            required
            maxLength={f.max}
            value={values[f.name]}
            onInput={(e) => setValues({ ...values, [f.name]: inputValue(e) })}
          />
        </Field>
      ))}
      <div class="actions">
        {children}
        <SubmitButton busy={busy} label="Connect" busyLabel="Connecting…" />
      </div>
    </form>
  );
}
