import { createAgent, registerUser, type TestApp, type useTestApps } from './app.js';
import { type FakeBehaviour, type FakeLlm, type FakeProviderName, providerEnv, startFakeLlm } from './fake-llm.js';

/** Set-ups and requests the chat suites share (modules/chat, chat-interrupted). */

type Json = Record<string, any>;

/** The fields a conversation has both in an agent's conversation list and in the inbox (docs/API-NOTES.md). */
export const CONVERSATION_FIELDS = [
  'assigned_to',
  'channel',
  'chatbot_id',
  'created_at',
  'escalated_at',
  'handled_by',
  'id',
  'message_count',
  'session_id',
  'status',
  'taken_at',
  'unread',
  'updated_at',
  'user_email',
  'user_name',
  'verified',
  'visitor_user_id',
];

/** The header that asks a chat route for an SSE stream. */
export const SSE = { accept: 'text/event-stream' };

export interface SseEvent {
  event: string;
  data: any;
}

/** Takes the complete events (each block ended by a blank line) off the front of a stream's `buffer`. */
export function takeSseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let i: number;
  while ((i = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, i);
    buffer = buffer.slice(i + 2);
    const name = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (name) events.push({ event: name, data: data ? JSON.parse(data) : null });
  }
  return { events, rest: buffer };
}

/**
 * An app with keyword-only retrieval wired to a fake `provider` server (closed before the apps),
 * given `key` as that provider's key; `env` on top.
 */
export async function appWithProvider(
  apps: ReturnType<typeof useTestApps>,
  provider: FakeProviderName,
  key: string,
  opts: { behaviour?: Partial<FakeBehaviour>; env?: Record<string, string>; clock?: TestApp['clock'] } = {},
): Promise<{ f: FakeLlm; t: TestApp }> {
  const f = apps.before(await startFakeLlm(provider, opts.behaviour));
  const t = await apps.start({ env: { EMBEDDINGS: 'none', ...providerEnv(f, key), ...opts.env }, clock: opts.clock });
  return { f, t };
}

/** appWithProvider, then one account and one agent of its (createAgent's defaults, `agent` on top). */
export async function providerSetup(
  apps: ReturnType<typeof useTestApps>,
  provider: FakeProviderName,
  key: string,
  agent: Json,
  opts: Parameters<typeof appWithProvider>[3] = {},
) {
  const { f, t } = await appWithProvider(apps, provider, key, opts);
  const { token } = await registerUser(t.app);
  return { f, t, token, agent: await createAgent(t.app, token, agent) };
}

/** A visitor's chat request to the agent's public route, as it came back. */
export function publicChat(t: TestApp, agentId: string, body: Json, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: `/api/public/chat/${agentId}`, headers, payload: body });
}

/** The chat requests a fake received, oldest first. */
export const chatRequests = (f: FakeLlm) => f.requests.filter((r) => r.kind === 'chat');
