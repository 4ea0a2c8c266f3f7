import { isoNow } from '../../platform/clock.js';
import { notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { ActionRunner, BookingChoice, FinishOutcome, RunContext, VerifiedVisitor } from '../actions/index.js';
import type { PlanService } from '../limits/index.js';
import { ChatConversations, type ConversationDeps } from './conversations.js';
import type { ProviderLookup } from './turn-request.js';

/** What the visitor's Confirm or Cancel ends with: the agent's message about it, and the run's state. */
export interface ActionSettled {
  message: string;
  /** the stored message; null when the conversation was erased meanwhile */
  message_id: string | null;
  run: { id: string; status: string; outcome: string | null };
}

export interface ActionTurnsDeps extends ConversationDeps {
  plans: PlanService;
  runner: ActionRunner;
  providers: ProviderLookup;
}

/** An action as the widget shows it (its button and form). */
export interface PublicAction {
  id: string;
  type: 'lookup' | 'do' | 'booking';
  name: string;
  description: string;
  parameters: { name: string; description: string; required: boolean }[];
  requires_verified: boolean;
}

/**
 * The visitor's answer to an action's card (docs/ACTIONS.md): Confirm runs it, Cancel ends it,
 * each only for a run of the visitor's own conversation (its session) and only once. What
 * happened is stored as the agent's message, so the transcript and the model's history say it.
 */
export class ActionTurns extends ChatConversations {
  private readonly plans: PlanService;
  private readonly runner: ActionRunner;
  private readonly providers: ProviderLookup;

  constructor(deps: ActionTurnsDeps) {
    super(deps);
    this.plans = deps.plans;
    this.runner = deps.runner;
    this.providers = deps.providers;
  }

  /**
   * The agent's enabled actions for the widget, and whether it shows them as buttons: it does
   * when there is no key for the agent's provider (no model to call them), so look-ups and
   * bookings still work.
   */
  publicActions(chatbotId: string): { buttons: boolean; actions: PublicAction[] } {
    const agent = this.agents.reachable(chatbotId);
    const actions = this.runner.enabled(agent).map((a) => ({
      id: a.id,
      type: a.type,
      name: a.name,
      description: a.description,
      parameters: a.parameters.map((p) => ({
        name: p.name,
        description: p.description,
        required: p.required !== false,
      })),
      requires_verified: a.requires_verified,
    }));
    return { buttons: this.providers(agent.provider) === null, actions };
  }

  confirm(
    chatbotId: string,
    input: { session_id: string; runId: string; choice: BookingChoice },
  ): Promise<ActionSettled> {
    return this.settle(chatbotId, input, (ctx) => this.runner.confirm(ctx, input.runId, input.choice));
  }

  cancel(chatbotId: string, input: { session_id: string; runId: string }): Promise<ActionSettled> {
    return this.settle(chatbotId, input, async (ctx) => this.runner.cancel(ctx, input.runId));
  }

  private async settle(
    chatbotId: string,
    input: { session_id: string },
    act: (ctx: RunContext) => Promise<FinishOutcome | null>,
  ): Promise<ActionSettled> {
    const agent = this.agents.reachable(chatbotId);
    this.plans.assertNotExpired(this.agents.ownerOf(agent));
    // another session's run answers exactly like a missing one
    const conversation = this.repo.findConversationBySession(agent.id, input.session_id);
    if (!conversation) throw notFound('Action run');
    // the session is the visitor's bearer: a conversation the site vouched for keeps its visitor
    // for the confirmation ({{user.id}} in the action's URL), without the hash sent again
    const visitor: VerifiedVisitor | undefined =
      conversation.verified && conversation.visitor_user_id
        ? {
            id: conversation.visitor_user_id,
            name: conversation.user_name ?? undefined,
            email: conversation.user_email ?? undefined,
          }
        : undefined;
    const done = await act({ agent, conversationId: conversation.id, sessionId: conversation.session_id, visitor });
    if (!done) throw notFound('Action run');
    const messageId = this.repo.transaction(() => {
      if (!this.repo.findConversation(conversation.id)) return null; // erased while the call ran
      const message = this.repo.insertMessage({
        id: newId(),
        conversation_id: conversation.id,
        chatbot_id: agent.id,
        role: 'assistant',
        content: done.message,
        timestamp: isoNow(this.clock),
        response_time_ms: null,
        sources_json: null,
        interrupted: false,
        feedback: null,
        from_person: false,
      });
      this.agents.recordActivity(agent.id, 1, 0);
      this.emitMessage(agent, message);
      return message.id;
    });
    return {
      message: done.message,
      message_id: messageId,
      run: { id: done.run.id, status: done.run.status, outcome: done.run.outcome },
    };
  }
}
