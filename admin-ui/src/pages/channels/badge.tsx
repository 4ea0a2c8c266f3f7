import type { ConversationChannel } from '../../types.js';
import { Badge } from '../../ui.js';

/** How each channel is named on screen. */
export const CHANNEL_LABELS: Record<ConversationChannel, string> = {
  web: 'Website',
  telegram: 'Telegram',
  whatsapp: 'WhatsApp',
  email: 'E-mail',
};

/**
 * The channel a conversation came in on, as a small badge beside its status: nothing for `web`
 * (the widget and the share page, where most conversations are), the network's name otherwise.
 */
export function ChannelBadge({ channel }: { channel?: ConversationChannel }) {
  if (!channel || channel === 'web') return null;
  return (
    <span title={`This conversation is on ${CHANNEL_LABELS[channel]}`}>
      <Badge kind="channel">{CHANNEL_LABELS[channel]}</Badge>
    </span>
  );
}
