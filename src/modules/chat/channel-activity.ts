import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { conversations, messages } from './tables.js';

/** Per channel: conversations started and messages written since `sinceIso` (the channels' analytics). */
export function channelActivityOf(
  db: Db,
  chatbotId: string,
  sinceIso: string,
): { channel: string; conversations: number; messages: number }[] {
  const started = db
    .select({ channel: conversations.channel, n: sql<number>`count(*)` })
    .from(conversations)
    .where(and(eq(conversations.chatbot_id, chatbotId), gte(conversations.created_at, sinceIso)))
    .groupBy(conversations.channel)
    .all();
  const written = db
    .select({ channel: conversations.channel, n: sql<number>`count(*)` })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversation_id))
    .where(and(eq(messages.chatbot_id, chatbotId), gte(messages.timestamp, sinceIso)))
    .groupBy(conversations.channel)
    .all();
  const byChannel = new Map<string, { channel: string; conversations: number; messages: number }>();
  const entry = (channel: string) =>
    byChannel.get(channel) ?? byChannel.set(channel, { channel, conversations: 0, messages: 0 }).get(channel)!;
  for (const r of started) entry(r.channel).conversations = r.n;
  for (const r of written) entry(r.channel).messages = r.n;
  return [...byChannel.values()];
}
