import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import type { ChannelView } from '../../types.js';
import {
  Badge,
  Field,
  type InputEvent,
  Notice,
  RefreshButton,
  SubmitButton,
  formatDate,
  inputValue,
  useSubmit,
} from '../../ui.js';
import { type ChannelCardProps, useChannelCard } from './card.js';

/** what the server accepts (src/modules/channels/routes.ts) */
const URL_MAX = 1000;
const ADDRESS_MAX = 200;

interface Values {
  imap_url: string;
  address: string;
  smtp_url: string;
}
const EMPTY: Values = { imap_url: '', address: '', smtp_url: '' };

/**
 * The agent's mailbox (docs/CHANNELS.md): the owner pastes the mailbox's IMAP URL (its user name
 * and password inside), the address people write to and optionally an SMTP URL for the replies; the
 * server checks both servers and keeps the URLs encrypted, and the card only shows the address and
 * the folder read.
 */
export function EmailCard(props: ChannelCardProps) {
  const { agent, view, onRefresh, refreshing } = props;
  const { state, connected, disconnectButton, disconnectDialog } = useChannelCard(props, 'email', 'E-mail');
  return (
    <section class="card stack" aria-labelledby="email-title">
      <div class="section-head-row">
        <h2 id="email-title">E-mail</h2>
        <span class="head-actions">
          <Badge kind={state.kind}>{state.text}</Badge>
          {view.state !== 'not_connected' && <RefreshButton onRefresh={onRefresh} busy={refreshing} />}
        </span>
      </div>
      {view.state === 'not_connected' ? (
        <>
          <ol class="channel-steps">
            <li>
              Pick a mailbox for the agent (a shared address such as support@ is best): it answers new mail arriving
              there.
            </li>
            <li>
              Find its IMAP server in your provider’s help. With two-factor sign-in (Gmail, Outlook and the like), make
              an app password for it and use that.
            </li>
            <li>Write the mailbox as a URL below, with the address people write to, and press Connect.</li>
          </ol>
          <EmailForm agentId={agent.id} onConnected={connected} />
          <HowItAnswers />
        </>
      ) : (
        <>
          {view.state === 'error' && (
            <Notice kind="error">
              The mailbox stopped working: {view.error ?? 'the IMAP server refused its password'}. Mail arriving
              meanwhile stays in the folder and is answered once you connect it again below (with the new password in
              the URL).
            </Notice>
          )}
          <dl class="facts">
            <div>
              <dt>Address</dt>
              <dd>{view.account_name ?? '—'}</dd>
            </div>
            <div>
              <dt>Folder</dt>
              <dd>{view.display_name ?? '—'}</dd>
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
          <HowItAnswers />
          {view.state === 'error' ? (
            <EmailForm agentId={agent.id} onConnected={connected} again>
              {disconnectButton}
            </EmailForm>
          ) : (
            <div class="actions">{disconnectButton}</div>
          )}
        </>
      )}
      {disconnectDialog}
    </section>
  );
}

/** What the agent answers and what it leaves alone (src/providers/channels/email.ts). */
function HowItAnswers() {
  return (
    <ul class="muted small">
      <li>
        The agent answers mail arriving after you connect; mail already in the folder is left alone. Its answers are
        replies in the same thread (“Re: …”), sent from the mailbox’s address.
      </li>
      <li>
        It never answers automatic replies, bounces, mailing lists or its own address, and one sender gets at most 10
        answers a day.
      </li>
      <li>A teammate’s reply in the Inbox goes out as an e-mail too.</li>
    </ul>
  );
}

/** The mailbox's three fields and Connect; the server's refusal (`detail`, naming the field) shows above them. */
function EmailForm({
  agentId,
  onConnected,
  again = false,
  children,
}: {
  agentId: string;
  onConnected: (view: ChannelView) => void;
  /** a stopped mailbox: connect it again (its URLs are not shown back, so all are typed anew) */
  again?: boolean;
  /** more buttons beside Connect (a stopped mailbox's Disconnect) */
  children?: ComponentChildren;
}) {
  const { status } = useSession();
  const [values, setValues] = useState<Values>(EMPTY);
  const set = (name: keyof Values) => (e: InputEvent) => setValues({ ...values, [name]: inputValue(e) });
  const { busy, error, submit } = useSubmit(async () => {
    const smtp = values.smtp_url.trim();
    const view = await api<ChannelView>('PUT', `/api/chatbots/${encodeURIComponent(agentId)}/channels/email`, {
      imap_url: values.imap_url.trim(),
      address: values.address.trim(),
      ...(smtp ? { smtp_url: smtp } : {}),
    });
    setValues(EMPTY);
    onConnected(view);
  });
  // the URLs hold a password, but a long URL typed blind cannot be checked: plain text, never
  // remembered by the browser, emptied once connected
  const urlInput = { type: 'text', autocomplete: 'off', spellcheck: false, maxLength: URL_MAX } as const;
  return (
    <form class="stack" onSubmit={submit} aria-label={again ? 'Connect the mailbox again' : 'Connect a mailbox'}>
      {error && <Notice kind="error">{error}</Notice>}
      <Field
        label="IMAP URL"
        hint={
          <>
            <code>imaps://user:password@imap.example.com</code> (write @ in the user name as <code>%40</code>;{' '}
            <code>imap://</code> for STARTTLS; add <code>/Folder</code> to read a folder other than INBOX). The password
            is kept encrypted on this server and never shown again.
          </>
        }
      >
        <input {...urlInput} name="email-imap-url" required value={values.imap_url} onInput={set('imap_url')} />
      </Field>
      <Field label="Address" hint="The address people write to; the agent’s replies come from it.">
        <input
          type="email"
          name="email-address"
          autocomplete="off"
          required
          maxLength={ADDRESS_MAX}
          value={values.address}
          onInput={set('address')}
        />
      </Field>
      <Field
        label="SMTP URL (optional)"
        hint={
          <>
            To send the replies through the mailbox’s own server: <code>smtps://user:password@smtp.example.com</code> or{' '}
            <code>smtp://…:587</code>. Empty: this server’s mail settings send them from the address above, so that
            server must be allowed to send for it (SPF, DKIM) or replies land in spam
            {status && !status.mail.configured
              ? '; this server has no mail settings yet, so the mailbox’s own SMTP server is needed (or an admin sets them in Admin → Server settings first).'
              : '.'}
          </>
        }
      >
        <input {...urlInput} name="email-smtp-url" value={values.smtp_url} onInput={set('smtp_url')} />
      </Field>
      <div class="actions">
        {children}
        <SubmitButton busy={busy} label="Connect" busyLabel="Connecting…" />
      </div>
    </form>
  );
}
