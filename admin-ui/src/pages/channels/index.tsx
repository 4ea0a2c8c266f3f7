import { get } from '../../api.js';
import type { Agent, ChannelView } from '../../types.js';
import { Badge, Loading, Notice, RefreshButton, formatDate, useAsync } from '../../ui.js';
import { TelegramTokenForm } from './token-form.js';
import { type ChannelCardProps, useChannelCard } from './card.js';
import { EmailCard } from './email.js';
import { WhatsAppCard } from './whatsapp.js';

const MODES: Record<NonNullable<ChannelView['mode']>, string> = {
  polling: 'Long polling: this server asks Telegram for new messages',
  webhook: 'Webhook: Telegram sends each message to this server',
};

/**
 * The agent's messaging channels (docs/CHANNELS.md): the same agent answering on Telegram,
 * WhatsApp and e-mail. The owner pastes the bot's token from BotFather (or the WhatsApp number's four
 * fields, whatsapp.tsx, or the mailbox's URLs, email.tsx); the server checks them with the network or
 * the mail servers and keeps them encrypted, and the page only ever shows the bot's handle, the
 * number or the mailbox's address.
 */
export function ChannelsTab({ agent }: { agent: Agent }) {
  const channels = useAsync(
    () => get<ChannelView[]>(`/api/chatbots/${encodeURIComponent(agent.id)}/channels`),
    [agent.id],
  );
  const replace = (view: ChannelView) =>
    channels.setData((channels.data ?? []).map((c) => (c.channel === view.channel ? view : c)));
  const telegram = channels.data?.find((c) => c.channel === 'telegram');
  const whatsapp = channels.data?.find((c) => c.channel === 'whatsapp');
  const email = channels.data?.find((c) => c.channel === 'email');
  return (
    <div class="stack-lg">
      <Notice>
        The agent answers on messaging apps and by e-mail as it does on your website: the same knowledge, limits and
        live handoff. Those conversations appear in Conversations and the Inbox with the channel’s name.
      </Notice>
      {agent.status === 'inactive' && (
        <Notice kind="warning">This agent is inactive: it answers on no channel until you activate it.</Notice>
      )}
      {channels.error && <Notice kind="error">{channels.error}</Notice>}
      {!channels.data && channels.loading && <Loading />}
      {telegram && (
        <TelegramCard
          agent={agent}
          view={telegram}
          onChange={replace}
          onRefresh={channels.reload}
          refreshing={channels.loading}
        />
      )}
      {whatsapp && (
        <WhatsAppCard
          agent={agent}
          view={whatsapp}
          onChange={replace}
          onRefresh={channels.reload}
          refreshing={channels.loading}
        />
      )}
      {email && (
        <EmailCard
          agent={agent}
          view={email}
          onChange={replace}
          onRefresh={channels.reload}
          refreshing={channels.loading}
        />
      )}
    </div>
  );
}

function TelegramCard(props: ChannelCardProps) {
  const { agent, view, onRefresh, refreshing } = props;
  const { state, connected, disconnectButton, disconnectDialog } = useChannelCard(props, 'telegram', 'Telegram');
  return (
    <section class="card stack" aria-labelledby="telegram-title">
      <div class="section-head-row">
        <h2 id="telegram-title">Telegram</h2>
        <span class="head-actions">
          <Badge kind={state.kind}>{state.text}</Badge>
          {view.state !== 'not_connected' && <RefreshButton onRefresh={onRefresh} busy={refreshing} />}
        </span>
      </div>
      {view.state === 'not_connected' ? (
        <>
          <ol class="channel-steps">
            <li>
              In Telegram, talk to{' '}
              <a href="https://t.me/BotFather" target="_blank" rel="noopener noreferrer">
                @BotFather
              </a>{' '}
              and send <code>/newbot</code>.
            </li>
            <li>Pick the bot’s name and its handle (ending in “bot”).</li>
            <li>BotFather answers with a token: paste it here and press Connect.</li>
          </ol>
          <TelegramTokenForm agentId={agent.id} label="Bot token" onConnected={connected} />
        </>
      ) : (
        <>
          {view.state === 'error' && (
            <Notice kind="error">
              The bot stopped working: {view.error ?? 'Telegram refused its token'}. Messages sent to it wait until you
              connect it again: paste a new token from BotFather (<code>/token</code>) below.
            </Notice>
          )}
          <ConnectionFacts view={view} />
          {view.state === 'error' ? (
            <TelegramTokenForm agentId={agent.id} label="New bot token" onConnected={connected}>
              {disconnectButton}
            </TelegramTokenForm>
          ) : (
            <div class="actions">{disconnectButton}</div>
          )}
        </>
      )}
      {disconnectDialog}
    </section>
  );
}

/** The connected bot: its handle (a link to the chat with it), how messages arrive, the last one. */
function ConnectionFacts({ view }: { view: ChannelView }) {
  const handle = view.account_name?.replace(/^@/, '');
  return (
    <dl class="facts">
      <div>
        <dt>Bot</dt>
        <dd>
          {handle ? (
            <a href={`https://t.me/${encodeURIComponent(handle)}`} target="_blank" rel="noopener noreferrer">
              @{handle}
            </a>
          ) : (
            '—'
          )}
          {view.display_name && <span class="muted small"> ({view.display_name})</span>}
        </dd>
      </div>
      <div>
        <dt>Receives messages by</dt>
        <dd>{view.mode ? MODES[view.mode] : '—'}</dd>
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
  );
}
