import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { Agent, ChannelView } from '../../types.js';
import { ConfirmDialog, toast } from '../../ui.js';

/** How a channel's state reads on its card. */
export const STATES: Record<ChannelView['state'], { kind: string; text: string }> = {
  not_connected: { kind: 'off', text: 'Not connected' },
  connected: { kind: 'ok', text: 'Connected' },
  error: { kind: 'bad', text: 'Stopped' },
};

/** What the Channels tab gives each channel's card. */
export interface ChannelCardProps {
  agent: Agent;
  view: ChannelView;
  onChange: (view: ChannelView) => void;
  onRefresh: () => Promise<void>;
  refreshing: boolean;
}

/**
 * A channel card's connect and disconnect (the same for every network): `connected` takes the
 * server's answer to the PUT, `disconnect` sends the DELETE and shows the channel not connected.
 */
export function useChannelCard(
  { agent, view, onChange }: ChannelCardProps,
  channel: ChannelView['channel'],
  label: string,
) {
  const [disconnecting, setDisconnecting] = useState(false);
  const connected = (next: ChannelView) => {
    onChange(next);
    toast(`Connected to ${next.account_name ?? label}`);
  };
  const disconnect = async () => {
    await api('DELETE', `/api/chatbots/${encodeURIComponent(agent.id)}/channels/${channel}`);
    setDisconnecting(false);
    onChange({
      ...view,
      state: 'not_connected',
      account_name: null,
      display_name: null,
      mode: null,
      error: null,
      last_message_at: null,
      connected_at: null,
    });
    toast(`${label} disconnected`);
  };
  const disconnectButton = (
    <button type="button" class="btn btn-danger-text" onClick={() => setDisconnecting(true)}>
      Disconnect
    </button>
  );
  // what the owner confirms: the agent stops answering there, what it kept is forgotten, the conversations stay
  const disconnectDialog = disconnecting && (
    <ConfirmDialog
      title={`Disconnect ${view.account_name ?? label}?`}
      confirmLabel="Disconnect"
      onConfirm={disconnect}
      onCancel={() => setDisconnecting(false)}
    >
      <p>
        The agent stops answering on {label} and what was pasted to connect it is forgotten. Its {label} conversations
        stay in Conversations.
      </p>
    </ConfirmDialog>
  );
  return { state: STATES[view.state], connected, disconnectButton, disconnectDialog };
}
