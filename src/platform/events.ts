/**
 * What happened in the app that other modules (webhooks) react to. Emitted by the module that owns
 * the change, inside the transaction that stores it; listeners only write rows of their own (a
 * delivery to send later), synchronously, so the event and its consequences are stored together
 * or not at all. A listener that throws rolls the caller's transaction back: keep them to inserts.
 */
export interface AppEventMap {
  'lead.created': {
    account_id: string;
    chatbot_id: string;
    lead: { id: string; name: string; phone: string; session_id: string | null; created_at: string };
  };
  'conversation.escalated': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    session_id: string;
    at: string;
    reason: 'visitor' | 'rule';
  };
  'conversation.resolved': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    session_id: string;
    at: string;
    by: 'owner' | 'idle';
  };
  'message.created': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    message: { id: string; role: 'user' | 'assistant'; content: string; timestamp: string };
  };
  /**
   * A visitor's conversation was erased (GDPR art. 17): every module deletes what it holds about
   * it (leads of the session unless `keep_leads`, webhook deliveries that carried it)
   */
  'conversation.erased': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    session_id: string;
    keep_leads: boolean;
  };
  /**
   * An agent's answer to a visitor was stored (not when cut off): the question, the answer and how
   * many passages it drew on (knowledge-only answers: the passages it quoted). Answer gaps.
   */
  'answer.stored': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    message_id: string;
    question: string;
    answer: string;
    passages: number;
    visitor: boolean;
  };
  /** the visitor's thumbs on an answer: 1 up, -1 down, 0 cleared */
  'message.rated': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    message_id: string;
    value: -1 | 0 | 1;
  };
  /** an action's run ended (docs/ACTIONS.md): looked up, done, failed, or the visitor cancelled */
  'action.run': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    run: {
      id: string;
      action_id: string | null;
      action_name: string;
      type: 'lookup' | 'do' | 'booking';
      status: 'succeeded' | 'failed' | 'cancelled';
      inputs: Record<string, string>;
      outcome: string | null;
      at: string;
    };
  };
  /** a visitor booked a slot through a booking action (the lead is lead.created) */
  'booking.created': {
    account_id: string;
    chatbot_id: string;
    conversation_id: string;
    booking: {
      run_id: string;
      action_name: string;
      start: string;
      end: string;
      lead_id: string;
      email: string;
      name: string;
    };
  };
  /** a widget lead was erased: what was derived from it (alert e-mails, webhook deliveries) goes too */
  'lead.erased': { account_id: string; chatbot_id: string; lead_id: string };
  /**
   * An agent's knowledge changed: a source added (a text or Q&A at once, a file or website once it
   * is read), edited, crawled again or deleted. The agent's tests run again after it (agent-tests).
   */
  'knowledge.changed': {
    account_id: string;
    chatbot_id: string;
    source_id: string;
    change: 'added' | 'updated' | 'deleted';
  };
  /** a run of an agent's test questions found tests that passed in the run before and fail now */
  'tests.regressed': {
    account_id: string;
    chatbot_id: string;
    run: {
      id: string;
      trigger: 'manual' | 'auto';
      passed: number;
      failed: number;
      started_at: string;
      regressions: Array<{ test_id: string; question: string; reason: string }>;
    };
  };
}

export type AppEventName = keyof AppEventMap;

export class AppEvents {
  private readonly listeners = new Map<AppEventName, Array<(data: never) => void>>();

  on<E extends AppEventName>(event: E, listener: (data: AppEventMap[E]) => void): void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as (data: never) => void);
    this.listeners.set(event, list);
  }

  /** Calls the listeners now, in the caller's transaction. */
  emit<E extends AppEventName>(event: E, data: AppEventMap[E]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (d: AppEventMap[E]) => void)(data);
  }
}
