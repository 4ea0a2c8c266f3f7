import type { LiveMessage } from './handoff-state.js';

/** What the live streams carry (docs/API-NOTES.md "Live handoff"). */
export type LiveEvent =
  | { type: 'message'; conversation_id: string; message: LiveMessage }
  | { type: 'status'; conversation_id: string; status: 'escalated' | 'taken' | 'handed_back'; at: string };

type Listener = (event: LiveEvent) => void;

/** In-process pub/sub: one process serves every stream (the app runs as one process). */
export class LiveHub {
  private readonly byConversation = new Map<string, Set<Listener>>();
  private readonly byAgent = new Map<string, Set<Listener>>();

  subscribeConversation(conversationId: string, listener: Listener): () => void {
    return subscribe(this.byConversation, conversationId, listener);
  }

  subscribeAgent(chatbotId: string, listener: Listener): () => void {
    return subscribe(this.byAgent, chatbotId, listener);
  }

  /** whether a stream follows the conversation or its agent (else a publish would reach no one) */
  listening(chatbotId: string, conversationId: string): boolean {
    return this.byConversation.has(conversationId) || this.byAgent.has(chatbotId);
  }

  publish(chatbotId: string, event: LiveEvent): void {
    for (const l of [...(this.byConversation.get(event.conversation_id) ?? [])]) l(event);
    for (const l of [...(this.byAgent.get(chatbotId) ?? [])]) l(event);
  }
}

function subscribe(map: Map<string, Set<Listener>>, key: string, listener: Listener): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && map.get(key) === set) map.delete(key);
  };
}
