import type { ConversationChannel } from '../../providers/channels/index.js';
import type { ChatRequest, LlmProvider } from '../../providers/llm/types.js';
import type { ActionCard } from '../actions/index.js';
import type { ChatbotRow, ClaimedUser, VisitorUser } from '../agents/index.js';
import type { Passage } from '../knowledge/index.js';
import type { ConversationRow, MessageRow } from './tables.js';
import type { SourceRef } from './turn-request.js';

/** What a chat turn takes, gives, and decides before the model is asked (service.ts). */

export interface ChatInput {
  message: string;
  session_id?: string;
  user_name?: string;
  user_email?: string;
  /** public chat: the visitor as the owner's site vouches for them (id, hash; agents/identity.ts) */
  user?: ClaimedUser;
  /** where the visitor writes from; default `web` (the widget, the share page, the API) */
  channel?: ConversationChannel;
}

export interface ChatResult {
  message: string;
  conversation_id: string;
  session_id: string;
  sources: SourceRef[];
  /** the stored answer's id (for the visitor's feedback on it); null when it was not stored */
  message_id: string | null;
  /** 'person': a person has taken the conversation over, the agent did not answer (`message` is empty); their reply comes on the live stream */
  handled_by: 'agent' | 'person';
  /** an action waiting for the visitor's Confirm (docs/ACTIONS.md); null when none */
  action: ActionCard | null;
}

/** Everything decided before the model is asked: stored user message, passages, prompt. */
export interface PreparedTurn {
  agent: ChatbotRow;
  conversation: ConversationRow;
  userMessage: MessageRow;
  passages: Passage[];
  request: ChatRequest;
  /** null: no key for the agent's provider, answer from the knowledge base alone */
  provider: LlmProvider | null;
  /** without a provider: the question's words the agent's knowledge holds nowhere (knowledge-answer.ts) */
  unknownWords?: ReadonlySet<string>;
  /** asked through the public route: the agent's visitor settings apply (citations shown or not) */
  visitor: boolean;
  /**
   * the visitor the site vouched for, set only when THIS turn's `user.hash` verified with the
   * agent's identity secret (and the conversation is not another user's); actions read it for
   * `{{user.id}}`, `{{user.name}}`, `{{user.email}}`
   */
  visitorUser?: VisitorUser;
}
