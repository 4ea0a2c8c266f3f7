import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { newId } from '../../platform/ids.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { ChatRepo } from './repo.js';
import type { MessageRow } from './tables.js';
import type { SourceRef } from './turn-request.js';
import type { PreparedTurn } from './turn-types.js';

/** What storing a chat turn's answer needs (the chat service's own parts). */
export interface AnswerStoreDeps {
  repo: ChatRepo;
  agents: Pick<AgentsService, 'recordActivity'>;
  clock: Clock;
  log: FastifyBaseLogger;
  events: AppEvents;
  /** tells the live views of the conversation (message.created) */
  emitMessage: (agent: ChatbotRow, message: MessageRow) => void;
}

/**
 * Stores the answer to `turn` and returns its message id, or null when the conversation was erased
 * while the answer was being made. `interrupted`: `text` is only the part produced before the
 * answer was cut off (not announced as answer.stored). `used`: the passages the answer drew on.
 */
export function storeAnswer(
  deps: AnswerStoreDeps,
  turn: PreparedTurn,
  text: string,
  sources: SourceRef[],
  interrupted = false,
  used = 0,
): string | null {
  const now = deps.clock.now();
  try {
    return storeAnswerRow(deps, turn, now, text, sources, interrupted, used);
  } catch (err) {
    // the owner erased the conversation while its answer was being written (the message's
    // foreign key refuses it): the answer is not stored, since it would bring back part of what
    // was erased; the visitor still gets it
    if (sqliteCode(err) !== 'SQLITE_CONSTRAINT_FOREIGNKEY' || deps.repo.findConversation(turn.conversation.id))
      throw err;
    deps.log.info({ chatbotId: turn.agent.id }, 'answer not stored: its conversation was erased meanwhile');
    return null;
  }
}

function storeAnswerRow(
  deps: AnswerStoreDeps,
  turn: PreparedTurn,
  now: Date,
  text: string,
  sources: SourceRef[],
  interrupted: boolean,
  used: number,
): string {
  return deps.repo.transaction(() => {
    const message = deps.repo.insertMessage({
      id: newId(),
      conversation_id: turn.conversation.id,
      chatbot_id: turn.agent.id,
      role: 'assistant',
      content: text,
      timestamp: now.toISOString(),
      response_time_ms: Math.max(0, now.getTime() - Date.parse(turn.userMessage.timestamp)),
      sources_json: JSON.stringify(sources),
      interrupted,
      feedback: null,
      from_person: false,
    });
    deps.agents.recordActivity(turn.agent.id, 1, 0);
    deps.emitMessage(turn.agent, message);
    if (!interrupted) {
      const { agent, conversation, userMessage, visitor } = turn;
      deps.events.emit('answer.stored', {
        account_id: agent.user_id,
        chatbot_id: agent.id,
        conversation_id: conversation.id,
        message_id: message.id,
        question: userMessage.content,
        answer: text,
        passages: used,
        visitor,
      });
    }
    return message.id;
  });
}

/** The SQLite error code of a failed statement (also when wrapped by drizzle, as its `cause`). */
function sqliteCode(err: unknown): unknown {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code ?? e?.cause?.code;
}
