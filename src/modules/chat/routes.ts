import { CONVERSATION_CHANNELS } from '../../providers/channels/index.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../platform/http/errors.js';
import { serverFailure } from '../../platform/http/error-handler.js';
import { EventStream, wantsEventStream } from '../../platform/http/sse.js';
import { visitorPreflight } from '../agents/index.js';
import { currentUser, emailField } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import { actionTurnRoutes } from './action-routes.js';
import { visitorUser } from './visitor-user.js';
import type { ActionTurns } from './action-turns.js';
import type { DraftReplies } from './draft-reply.js';
import type { HandoffService } from './handoff.js';
import { handoffRoutes } from './handoff-routes.js';
import type { InboxService } from './inbox.js';
import { inboxRoutes } from './inbox-routes.js';
import { type VisitorHistory, visitorHistoryRoutes } from './visitor-history.js';
import type { ChatService, PreparedTurn } from './service.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

const sessionId = z.string().trim().min(1).max(200);
const visitorFields = {
  // the length cap is checked by the service (413), so it is not a 400 here
  message: z.string(),
  user_name: z.string().trim().max(100).optional(),
  user_email: emailField.optional(),
};

/**
 * The visitor as the owner's site vouches for them (docs/API-NOTES.md "Verified visitors"): `hash`
 * is hex HMAC-SHA256 of `id` with the agent's identity secret. A hash that does not verify is not
 * an error: the whole `user` is ignored and the visitor is anonymous.
 */

const sourceRef = z.object({
  source_id: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  title: z.string().nullable(),
  page: z.number().int().nullable(),
});
export const actionCardSchema = z.object({
  run_id: z.string(),
  action_name: z.string(),
  type: z.enum(['do', 'booking']),
  description: z.string(),
  inputs: z.record(z.string(), z.string()),
  sends: z.string().nullable().describe('do: the request it will make ("POST https://...")'),
  slots: z.object({ start: z.string(), end: z.string() }).array().describe('booking: the free times to pick from'),
  time_zone: z.string().nullable(),
  needs_email: z.boolean().describe('booking: no e-mail address is known; the visitor gives one with the choice'),
});

const chatResponse = z.object({
  message: z.string(),
  conversation_id: z.string(),
  session_id: z.string(),
  sources: sourceRef.array(),
  /** the stored answer's id, for the visitor's thumbs (POST .../feedback); null when it was not stored */
  message_id: z.string().nullable(),
  /** 'person': a person handles the conversation, the agent did not answer (`message` is empty); the reply comes on GET /api/public/chat/{id}/events */
  handled_by: z.enum(['agent', 'person']),
  /** an action waiting for the visitor's Confirm (docs/ACTIONS.md): what will be sent, or the free slots; null when none */
  action: actionCardSchema.nullable(),
});

const conversationSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  session_id: z.string().nullable(),
  user_name: z.string().nullable(),
  user_email: z.string().nullable(),
  status: z.enum(['active', 'resolved', 'escalated']),
  rating: z
    .number()
    .int()
    .nullable()
    .describe(
      "1-5 from the visitor's thumbs: 1 + 4 x the share of thumbs up among the rated answers; null when none is rated",
    ),
  message_count: z.number().int(),
  messages_count: z.number().int(),
  /** the visitor's thumbs on the conversation's answers (beyond the spec; `rating` is derived from them) */
  thumbs_up: z.number().int(),
  thumbs_down: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  escalated_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  /** a message came after the owner last opened the transcript */
  unread: z.boolean(),
  /** live handoff: who answers now, and since when a person does */
  handled_by: z.enum(['agent', 'person']),
  taken_at: z.string().nullable(),
  /** the user id of the person the conversation is assigned to in the inbox; null: nobody */
  assigned_to: z.string().nullable(),
  /** verified visitors: the owner's site vouched for the visitor (a valid `user` hash) */
  verified: z.boolean(),
  /** the verified visitor's user id on the owner's site; null when not verified */
  visitor_user_id: z.string().nullable(),
  /** where the visitor writes from: `web` (widget, share page, API) or a messaging channel (docs/CHANNELS.md) */
  channel: z.enum(CONVERSATION_CHANNELS),
});

const messageSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp: z.string(),
  /** an answer cut off part-way (provider failure mid-stream, or the visitor left): `content` is the partial text */
  interrupted: z.boolean(),
  /** assistant messages: the visitor's thumbs, 1 up, -1 down, null none */
  feedback: z.number().int().nullable(),
  /** an assistant message a person wrote (live handoff) */
  from_person: z.boolean(),
  /** a person's message: who wrote it and the display name the visitor saw (docs/API-NOTES.md "Inbox") */
  sender_user_id: z.string().nullable(),
  sender_name: z.string().nullable(),
});

/**
 * Answers as JSON, or as Server-Sent Events when the client accepts them: `delta` events, then
 * `done` with the JSON body; an error after the stream began is an `error` event (never a `done`):
 * the text sent so far is stored as an interrupted answer.
 */
async function answer(
  chat: ChatService,
  turn: PreparedTurn,
  request: FastifyRequest,
  reply: FastifyReply,
  durable: () => Promise<void>,
) {
  if (!wantsEventStream(request)) return chat.reply(turn);
  const stream = new EventStream(reply);
  try {
    const result = await chat.reply(turn, { onDelta: (text) => stream.send('delta', { text }), signal: stream.signal });
    // `done` acknowledges the stored question and answer: they are on disk first (a plain JSON
    // answer gets the same from the app's onSend hook, which a hijacked stream skips)
    await durable();
    stream.send('done', result);
    stream.end();
  } catch (err) {
    if (!stream.started) throw err; // still an ordinary error response
    // a full disk or a damaged database says so, as a JSON answer would (507/503)
    const detail = err instanceof ApiError ? err.detail : serverFailure(err, request.server.databaseCondition).detail;
    if (!(err instanceof ApiError)) request.log.error({ err }, 'chat stream failed');
    stream.send('error', { detail });
    stream.end();
  }
  return reply;
}

export const chatRoutes: FastifyPluginAsyncZod<{
  chat: ChatService;
  handoff: HandoffService;
  drafts: DraftReplies;
  inbox: InboxService;
  actionTurns: ActionTurns;
  history: VisitorHistory;
  durable: () => Promise<void>;
}> = async (app, { chat, handoff, drafts, inbox, actionTurns, history, durable }) => {
  await app.register(handoffRoutes, { handoff });
  await app.register(actionTurnRoutes, { actionTurns, chat, chatResponse });
  await app.register(inboxRoutes, { inbox });
  await app.register(visitorHistoryRoutes, { history });
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });

  app.post('/api/public/chat/:chatbot_id', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: chatbotParams,
      body: z.object({ ...visitorFields, session_id: sessionId, user: visitorUser.optional() }),
      response: { 200: chatResponse },
    },
    handler: async (req, reply) =>
      answer(chat, await chat.preparePublic(req.params.chatbot_id, req.body), req, reply, durable),
  });
  app.options('/api/public/chat/:chatbot_id', visitorPreflight());

  app.post('/api/chat', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      security,
      body: z.object({ ...visitorFields, chatbot_id: z.string().min(1).max(100), session_id: sessionId.optional() }),
      response: { 200: chatResponse },
    },
    handler: async (req, reply) =>
      answer(chat, await chat.prepareOwned(currentUser(req), req.body.chatbot_id, req.body), req, reply, durable),
  });

  // the visitor's thumbs on an answer of their session (0 clears them)
  app.post('/api/public/chat/:chatbot_id/feedback', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: chatbotParams,
      body: z.object({
        session_id: sessionId,
        message_id: z.string().min(1).max(100),
        value: z.union([z.literal(1), z.literal(-1), z.literal(0)], { error: 'must be 1, -1 or 0' }),
      }),
      response: {
        200: z.object({
          message_id: z.string(),
          feedback: z.number().int().nullable(),
          rating: z.number().int().nullable(),
        }),
      },
    },
    handler: async (req) => chat.feedback(req.params.chatbot_id, req.body),
  });
  app.options('/api/public/chat/:chatbot_id/feedback', visitorPreflight());

  // the visitor asks for a person
  app.post('/api/public/chat/:chatbot_id/escalate', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: chatbotParams,
      body: z.object({ session_id: sessionId }),
      response: {
        200: z.object({
          conversation_id: z.string(),
          status: z.literal('escalated'),
          escalated_at: z.string(),
          /** beyond issue 23 (issue 34.4): false: nobody can come now; the widget offers its contact form at once */
          handoff: z.object({ available: z.boolean(), next_opening: z.string().nullable() }),
        }),
      },
    },
    handler: async (req) => chat.escalate(req.params.chatbot_id, req.body),
  });
  app.options('/api/public/chat/:chatbot_id/escalate', visitorPreflight());

  app.get('/api/chat/conversations/:chatbot_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      security,
      params: chatbotParams,
      querystring: z.object({
        status: z.enum(['active', 'resolved', 'escalated']).optional(),
        q: z
          .string()
          .trim()
          .max(FIELD_MAX.conversation_search)
          .optional()
          .describe('text in the transcript (case-insensitive)'),
      }),
      response: { 200: conversationSchema.array() },
    },
    handler: async (req) =>
      chat
        .listConversations(currentUser(req), req.params.chatbot_id, {
          status: req.query.status,
          q: req.query.q || undefined,
        })
        .map((c) => ({ ...c, messages_count: c.message_count })),
  });

  // the owner marks a conversation resolved, or reopens it
  app.patch('/api/chat/conversations/:chatbot_id/:conversation_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      security,
      params: z.object({ chatbot_id: z.string().min(1).max(100), conversation_id: z.string().min(1).max(100) }),
      body: z.object({ status: z.enum(['active', 'resolved']) }),
      response: { 200: conversationSchema },
    },
    handler: async (req) => {
      const c = chat.setStatus(currentUser(req), req.params.chatbot_id, req.params.conversation_id, req.body.status);
      return { ...c, messages_count: c.message_count };
    },
  });

  // Erasure of one visitor (GDPR art. 17): the conversation, its messages and, unless
  // `keep_leads=true`, the agent's widget leads of the same session with their alert e-mails.
  // Under the agent, as an item of its conversation list: the path position after
  // `/conversations/` is the list's `{chatbot_id}`, and one router node takes one name.
  app.delete('/api/chat/conversations/:chatbot_id/:conversation_id', {
    schema: {
      tags: ['chat'],
      summary:
        "Deletes a conversation with its messages and the visitor's widget leads of the same session (keep_leads=true keeps them)",
      security,
      params: z.object({ chatbot_id: z.string().min(1).max(100), conversation_id: z.string().min(1).max(100) }),
      querystring: z.object({ keep_leads: z.enum(['true', 'false']).optional() }),
    },
    handler: async (req, reply) => {
      chat.eraseConversation(currentUser(req), req.params.chatbot_id, req.params.conversation_id, {
        keepLeads: req.query.keep_leads === 'true',
      });
      // the freed pages go back to the disk soon (the periodic reclaim would get there too)
      void req.server.space.soon();
      return reply.code(204).send();
    },
  });

  // a suggested reply to the visitor's latest message(s), for the teammate to edit and send (nothing stored)
  app.post('/api/chat/conversations/:chatbot_id/:conversation_id/draft-reply', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      summary:
        "A drafted reply to the visitor's latest message(s) from the agent's knowledge and provider, for a person to edit and send (nothing is stored)",
      security,
      params: z.object({ chatbot_id: z.string().min(1).max(100), conversation_id: z.string().min(1).max(100) }),
      response: {
        200: z.object({
          draft: z.string(),
          sources: sourceRef.array(),
          /** the model that wrote it; null: quoted from the knowledge base (no provider key) */
          model: z.string().nullable(),
        }),
      },
    },
    handler: async (req, reply) => {
      // the upstream call ends when the teammate leaves (another draft asked for, the page closed)
      const left = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) left.abort();
      });
      return drafts.draft(currentUser(req), req.params.chatbot_id, req.params.conversation_id, left.signal);
    },
  });

  app.get('/api/chat/messages/:conversation_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['chat'],
      security,
      params: z.object({ conversation_id: z.string().min(1).max(100) }),
      response: { 200: messageSchema.array() },
    },
    handler: async (req) => chat.listMessages(currentUser(req), req.params.conversation_id),
  });
};
