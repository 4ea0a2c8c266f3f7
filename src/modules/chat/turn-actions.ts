import { type ChatRequest, type LlmProvider, runToolLoop, type ToolSpec } from '../../providers/llm/index.js';
import type { ActionCard, ActionRunner, VerifiedVisitor } from '../actions/index.js';
import type { ChatbotRow } from '../agents/index.js';
import type { ConversationRow } from './tables.js';

/** What of a prepared turn (service.ts) the actions need. */
export interface ActionTurnInput {
  agent: ChatbotRow;
  conversation: ConversationRow;
  request: ChatRequest;
  provider: LlmProvider | null;
  visitorUser?: VerifiedVisitor;
}

/** tool calls one turn may make before the model must answer in words */
export const MAX_TOOL_CALLS_PER_TURN = 4;

/** told to the model when the agent has actions (docs/ACTIONS.md) */
const TOOL_RULES =
  "You can use the tools you are given when the visitor asks for what they do. Never make up a tool's " +
  'parameter values: ask the visitor for any you do not know. A tool that changes something or books a ' +
  'time shows the visitor a card to confirm; it has not happened until they confirm there.';

/** the answer when the model used up its tool calls and still said nothing */
export const CAP_FALLBACK = 'Sorry, I could not finish that. Please ask again, perhaps in other words.';

/** What a turn with tools ends with: the text, and the card waiting for the visitor, if any. */
export interface ActionsAnswer {
  text: string;
  card: ActionCard | null;
}

/**
 * The turn's answer when its agent has enabled actions and a model: the model may call them as
 * tools (at most MAX_TOOL_CALLS_PER_TURN), a look-up's result goes back to it, a `do` or booking
 * stops the turn with a card for the visitor. Null: the agent has no enabled actions.
 */
export async function answerWithActions(
  turn: ActionTurnInput,
  runner: ActionRunner,
  opts: { onDelta?: (text: string) => void; signal?: AbortSignal },
): Promise<ActionsAnswer | null> {
  const provider = turn.provider;
  if (!provider) return null;
  const enabled = runner.enabled(turn.agent);
  if (!enabled.length) return null;
  const tools: ToolSpec[] = enabled.map((a) => ({
    name: a.name,
    description: toolDescription(a.type, a.description),
    parameters: a.parameters.map((p) => ({ name: p.name, description: p.description, required: p.required !== false })),
  }));
  const byName = new Map(enabled.map((a) => [a.name, a]));
  const ctx = {
    agent: turn.agent,
    conversationId: turn.conversation.id,
    sessionId: turn.conversation.session_id,
    visitor: turn.visitorUser,
    signal: opts.signal,
  };
  let card: ActionCard | null = null;
  const result = await runToolLoop({
    provider,
    request: { ...turn.request, system: `${turn.request.system}\n\n${TOOL_RULES}`, tools, signal: opts.signal },
    maxCalls: MAX_TOOL_CALLS_PER_TURN,
    onDelta: opts.onDelta,
    execute: async (call) => {
      const action = byName.get(call.name)!; // the loop calls only the tools it was given
      const outcome = await runner.start(ctx, action, call.arguments);
      if (outcome.kind === 'answer') return { content: outcome.text };
      card = outcome.card;
      return { content: outcome.text, pause: true };
    },
  });
  let text = result.text;
  const waiting = card as ActionCard | null;
  if (waiting && !text.trim()) {
    // the model went straight to the card: the conversation still says what is asked
    text = confirmPrompt(waiting);
    opts.onDelta?.(text);
  } else if (result.ended === 'cap' && !text.trim()) {
    // asked without tools after the cap, a model may still answer only with tool calls: the
    // visitor is told something rather than shown an empty answer
    text = CAP_FALLBACK;
    opts.onDelta?.(text);
  }
  return { text, card: waiting };
}

/** The agent's words above a card (also without a model, the no-key buttons). */
export function confirmPrompt(card: ActionCard): string {
  return card.type === 'booking' ? 'Please pick a time below and confirm it.' : `Please confirm: ${card.description}`;
}

function toolDescription(type: 'lookup' | 'do' | 'booking', description: string): string {
  if (type === 'do') return `${description} (the visitor confirms before it runs)`;
  if (type === 'booking') return `${description} (shows the visitor free times to pick and confirm)`;
  return description;
}
