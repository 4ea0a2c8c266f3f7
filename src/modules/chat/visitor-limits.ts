import type { Clock } from '../../platform/clock.js';
import { tooManyRequests } from '../../platform/http/errors.js';
import type { ChatbotRow } from '../agents/index.js';
import type { ChatRepo } from './repo.js';

/**
 * The agent's own limits on visitor messages (the owner testing an agent is held only to the
 * account's quota). Both run inside the turn's transaction: a refused message rolls back with it.
 */

const HOUR_MS = 3600_000;

/** `messages_per_hour` visitor messages per session in any rolling hour (docs/API.md "Plans"). */
export function assertSessionRate(repo: ChatRepo, clock: Clock, agent: ChatbotRow, conversationId: string): void {
  const now = clock.now().getTime();
  const { count, earliest } = repo.userMessagesSince(conversationId, new Date(now - HOUR_MS).toISOString());
  if (count < agent.messages_per_hour) return;
  // the allowance grows again when the earliest message of the last hour leaves the window
  const retryAfterS = (Date.parse(earliest!) + HOUR_MS - now) / 1000;
  throw tooManyRequests(
    `Too many messages: this chat allows ${agent.messages_per_hour} messages per hour; try again later`,
    retryAfterS,
  );
}

/** The agent's optional cap on visitor messages per UTC day (beyond the spec). */
export function assertDailyCap(repo: ChatRepo, clock: Clock, agent: ChatbotRow): void {
  const now = clock.now();
  const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const count = repo.agentUserMessagesSince(agent.id, new Date(dayStart).toISOString());
  if (count < agent.daily_message_limit!) return;
  const retryAfterS = (dayStart + 24 * HOUR_MS - now.getTime()) / 1000;
  throw tooManyRequests('This chatbot has reached its message limit for today; please try again tomorrow', retryAfterS);
}
