import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EventStream } from '../../platform/http/sse.js';
import { currentUser } from '../auth/index.js';
import type { HandoffService, LiveEvent } from './handoff.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';
import { teamHandoffState } from './inbox-routes.js';

/** Heartbeat comments keep idle streams (and proxies on the way) open. */
export const HEARTBEAT_MS = 25_000;
/** A stream ends after this; the client reconnects (and learns the state again from `ready`). */
export const STREAM_MAX_MS = 30 * 60_000;

const ids = z.object({ chatbot_id: z.string().min(1).max(100), conversation_id: z.string().min(1).max(100) });
const liveMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp: z.string(),
  from_person: z.boolean(),
  sender_name: z.string().nullable().describe("a person's message: the display name they had when sending it"),
});

/**
 * Live handoff routes (docs/API-NOTES.md "Live handoff"): the owner takes over, replies, hands back; the
 * visitor's stream (authenticated by the session id) and the owner's stream per agent.
 */
export const handoffRoutes: FastifyPluginAsyncZod<{ handoff: HandoffService }> = async (app, { handoff }) => {
  const security = [{ bearer: [] }];
  // open streams end when the app closes (they would hold the server's close otherwise)
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const finish of [...open]) finish();
  });

  /** Runs a long-lived stream until the client leaves, STREAM_MAX_MS passes or the app closes. */
  const run = (stream: EventStream, setup: (finish: () => void) => () => void) =>
    new Promise<void>((resolve) => {
      let cleanup: () => void = () => {};
      const heartbeat = setInterval(() => stream.comment(), HEARTBEAT_MS);
      heartbeat.unref();
      const maxAge = setTimeout(() => finish(), STREAM_MAX_MS);
      maxAge.unref();
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        clearInterval(heartbeat);
        clearTimeout(maxAge);
        open.delete(finish);
        cleanup();
        stream.end();
        resolve();
      };
      open.add(finish);
      stream.signal.addEventListener('abort', finish);
      cleanup = setup(finish);
    });

  /** take and hand-back: the conversation's handoff state after the change */
  const stateChange = (summary: string) => ({
    tags: ['chat'],
    summary,
    security,
    params: ids,
    response: { 200: teamHandoffState },
  });

  app.post('/api/chat/conversations/:chatbot_id/:conversation_id/take', {
    config: OPERATOR_ALLOWED,
    schema: stateChange('A person takes the conversation over: the agent stops answering it'),
    handler: async (req) => handoff.take(currentUser(req), req.params.chatbot_id, req.params.conversation_id),
  });

  app.post('/api/chat/conversations/:chatbot_id/:conversation_id/hand-back', {
    config: OPERATOR_ALLOWED,
    schema: stateChange('The agent answers again (an escalated conversation becomes active)'),
    handler: async (req) => handoff.handBack(currentUser(req), req.params.chatbot_id, req.params.conversation_id),
  });

  app.post('/api/chat/conversations/:chatbot_id/:conversation_id/reply', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      summary: "The person's message to the visitor (409 unless taken over); reaches the visitor's open stream",
      security,
      params: ids,
      body: z.object({ message: z.string() }),
      response: { 201: liveMessage },
    },
    handler: async (req, reply) =>
      reply
        .code(201)
        .send(handoff.reply(currentUser(req), req.params.chatbot_id, req.params.conversation_id, req.body.message)),
  });

  // The visitor's live stream: `ready` (the state), `message` (a person's messages), `status`
  // (escalated, taken, handed_back, handoff_timeout, handoff_unavailable). Authenticated by the session id: 404 unless
  // it is this agent's conversation's.
  app.get('/api/public/chat/:chatbot_id/events', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: z.object({ chatbot_id: z.string().min(1).max(100) }),
      querystring: z.object({ session_id: z.string().trim().min(1).max(200) }),
    },
    handler: async (req, reply) => {
      const { agent, conversation } = handoff.visitorConversation(req.params.chatbot_id, req.query.session_id);
      const stream = new EventStream(reply);
      stream.send('ready', handoff.visitorReady(agent, conversation.id));
      await run(stream, () => {
        let timer: NodeJS.Timeout | undefined;
        let told = false;
        // an escalation nobody took within the agent's handoff_wait_s: told once per stream
        // (re-checked each second at most, against the app's clock)
        const check = () => {
          clearTimeout(timer);
          if (told) return;
          // nobody can come now (office hours, everyone away): said at once, not after the wait
          const closed = handoff.unavailable(agent, conversation.id);
          if (closed) {
            told = true;
            stream.send('status', {
              status: 'handoff_unavailable',
              at: new Date().toISOString(),
              next_opening: closed.next_opening,
            });
            return;
          }
          const ms = handoff.timeoutIn(agent, conversation.id);
          if (ms === null) return;
          if (ms === 0) {
            told = true;
            stream.send('status', {
              status: 'handoff_timeout',
              at: new Date().toISOString(),
              wait_s: agent.handoff_wait_s,
            });
            return;
          }
          timer = setTimeout(check, Math.min(ms, 1000));
          timer.unref();
        };
        const unsubscribe = handoff.hub.subscribeConversation(conversation.id, (e: LiveEvent) => {
          if (e.type === 'message') {
            if (e.message.from_person) stream.send('message', e.message);
            return;
          }
          if (e.status === 'escalated') {
            told = false;
            // nobody can come now: the visitor hears that instead (check() below), not "escalated"
            if (handoff.unavailable(agent, conversation.id)) return check();
          }
          stream.send('status', { status: e.status, at: e.at });
          check();
        });
        check();
        return () => {
          clearTimeout(timer);
          unsubscribe();
        };
      });
      return reply;
    },
  });

  // The owner's live view of one agent: `message` {conversation_id, message} for every new
  // message, `status` {conversation_id, status, at} for escalations and handoffs. Bearer header
  // (the admin UI reads it with fetch streaming; no token in the URL).
  app.get('/api/chat/conversations/:chatbot_id/events', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['chat'], security, params: z.object({ chatbot_id: z.string().min(1).max(100) }) },
    handler: async (req, reply) => {
      const agent = handoff.ownedAgent(currentUser(req), req.params.chatbot_id);
      const stream = new EventStream(reply);
      stream.send('ready', { chatbot_id: agent.id });
      await run(stream, () =>
        handoff.hub.subscribeAgent(agent.id, (e: LiveEvent) => {
          if (e.type === 'message') stream.send('message', { conversation_id: e.conversation_id, message: e.message });
          else stream.send('status', { conversation_id: e.conversation_id, status: e.status, at: e.at });
        }),
      );
      return reply;
    },
  });
};
