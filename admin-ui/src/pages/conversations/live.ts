import { useEffect, useRef, useState } from 'preact/hooks';
import { followEventStream } from '../../api.js';
import type { Agent } from '../../types.js';
import { toast } from '../../ui.js';

/**
 * The agent's live stream while its conversations are open: a new message or a change of state
 * reloads the list (and so the open transcript, keyed on `updated_at`); a visitor asking for a
 * person also says so in a toast. True while connected. After a reconnect the list is reloaded
 * once, for whatever happened while the stream was down.
 */
export function useLiveConversations(agent: Agent, reload: () => Promise<void>): boolean {
  const [connected, setConnected] = useState(false);
  const latestReload = useRef(reload);
  latestReload.current = reload;
  useEffect(() => {
    const controller = new AbortController();
    let connections = 0;
    followEventStream(
      `/api/chat/conversations/${encodeURIComponent(agent.id)}/events`,
      {
        onConnected: () => {
          setConnected(true);
          if (connections++ > 0) void latestReload.current();
        },
        onDisconnected: () => setConnected(false),
        onEvent: (event, payload) => {
          if (event !== 'message' && event !== 'status') return;
          if (event === 'status' && payload.status === 'escalated')
            toast(`A visitor asked for a person on ${agent.name}`);
          void latestReload.current();
        },
      },
      controller.signal,
    );
    return () => controller.abort();
  }, [agent.id]);
  return connected;
}
