import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { ChannelView } from '../../types.js';
import { Field, Notice, SubmitButton, inputValue, useSubmit } from '../../ui.js';

/** what the server accepts (src/modules/channels/routes.ts) */
const TOKEN_MAX = 200;

/**
 * The bot token's field and Connect: the server checks the token with Telegram and answers with
 * the bot's handle; its refusal (`detail`) shows above the field. The field is a password input,
 * emptied once connected: the token is never shown back.
 */
export function TelegramTokenForm({
  agentId,
  label,
  onConnected,
  children,
}: {
  agentId: string;
  label: string;
  onConnected: (view: ChannelView) => void;
  /** more buttons beside Connect (a stopped bot's Disconnect) */
  children?: ComponentChildren;
}) {
  const [token, setToken] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const view = await api<ChannelView>('PUT', `/api/chatbots/${encodeURIComponent(agentId)}/channels/telegram`, {
      bot_token: token.trim(),
    });
    setToken('');
    onConnected(view);
  });
  return (
    <form class="stack" onSubmit={submit} aria-label="Connect a Telegram bot">
      {error && <Notice kind="error">{error}</Notice>}
      <Field label={label} hint="It looks like 123456789:AAE… and is kept encrypted on this server.">
        <input
          type="password"
          name="telegram-bot-token"
          autocomplete="off"
          spellcheck={false}
          required
          maxLength={TOKEN_MAX}
          value={token}
          onInput={(e) => setToken(inputValue(e))}
        />
      </Field>
      <div class="actions">
        {children}
        <SubmitButton busy={busy} label="Connect" busyLabel="Connecting…" />
      </div>
    </form>
  );
}
