import { get } from '../../api.js';
import { href } from '../../router.js';
import type { ChannelActivity, ChannelView, ConversationChannel } from '../../types.js';
import { Notice, useAsync } from '../../ui.js';
import { CHANNEL_LABELS } from './badge.js';

/**
 * The window's conversations and messages per channel (website, Telegram, WhatsApp, e-mail), shown once the agent
 * is on a channel beyond its website: one is connected, or had conversations in the window.
 */
export function ChannelStats({ agentId, days }: { agentId: string; days: number }) {
  const chatbot = encodeURIComponent(agentId);
  const activity = useAsync(
    () => get<ChannelActivity>(`/api/analytics/chatbot/${chatbot}/channels?days=${days}`),
    [agentId, days],
  );
  const channels = useAsync(() => get<ChannelView[]>(`/api/chatbots/${chatbot}/channels`), [agentId]);
  const counted = activity.data?.channels ?? [];
  const configured = (channels.data ?? []).filter((c) => c.state !== 'not_connected').map((c) => c.channel);
  const used = counted.filter((r) => r.channel !== 'web' && r.conversations > 0).map((r) => r.channel);
  if (activity.error) return <Notice kind="error">Channels: {activity.error}</Notice>;
  if (configured.length + used.length === 0) return null;
  // the website first, then every channel connected or used, each once
  const names = [...new Set<ConversationChannel>(['web', ...configured, ...used])];
  const rows = names.map(
    (channel) => counted.find((r) => r.channel === channel) ?? { channel, conversations: 0, messages: 0 },
  );
  return (
    <section class="card stack" aria-labelledby="channel-stats-title">
      <div class="section-head-row">
        <h2 id="channel-stats-title">Channels, last {days} days</h2>
        <a href={href('agents', agentId, 'channels')}>Set up channels</a>
      </div>
      <div class="table-wrap">
        <table class="table" aria-label="Conversations per channel">
          <thead>
            <tr>
              <th>Channel</th>
              <th>Conversations</th>
              <th>Messages</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.channel}>
                <td>{CHANNEL_LABELS[r.channel]}</td>
                <td>{r.conversations}</td>
                <td>{r.messages}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
