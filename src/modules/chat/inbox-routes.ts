import { CONVERSATION_CHANNELS } from '../../providers/channels/index.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser, OPERATOR_ALLOWED } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import type { InboxService } from './inbox.js';

const security = [{ bearer: [] }];
const ids = z.object({ chatbot_id: z.string().min(1).max(100), conversation_id: z.string().min(1).max(100) });
const status = z.enum(['active', 'resolved', 'escalated']);
const assignee = z.object({ user_id: z.string(), name: z.string() }).nullable();
/** the take and hand-back answer, with the assignment */
export const teamHandoffState = z.object({
  conversation_id: z.string(),
  status,
  handled_by: z.enum(['agent', 'person']),
  taken_at: z.string().nullable(),
  escalated_at: z.string().nullable(),
  assigned_to: assignee.describe('the person the conversation is assigned to in the inbox; null: nobody'),
});
const inboxItem = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  agent_name: z.string(),
  session_id: z.string(),
  user_name: z.string().nullable(),
  user_email: z.string().nullable(),
  status,
  handled_by: z.enum(['agent', 'person']),
  taken_at: z.string().nullable(),
  escalated_at: z.string().nullable(),
  assigned_to: assignee,
  last_message: z.string().nullable().describe('the start (200 characters) of the latest message'),
  last_message_at: z.string(),
  message_count: z.number().int(),
  unread: z.boolean(),
  /** verified visitors: the owner's site vouched for the visitor (a valid `user` hash) */
  verified: z.boolean(),
  visitor_user_id: z.string().nullable(),
  /** where the visitor writes from: `web` (widget, share page, API) or a messaging channel (docs/CHANNELS.md) */
  channel: z.enum(CONVERSATION_CHANNELS),
  created_at: z.string(),
  updated_at: z.string(),
});
const noteSchema = z.object({
  id: z.string(),
  content: z.string(),
  author: z.object({ user_id: z.string().nullable(), name: z.string() }),
  created_at: z.string(),
});

/** One inbox for the account: the list, assignment, internal notes (docs/API-NOTES.md "Inbox"). */
export const inboxRoutes: FastifyPluginAsyncZod<{ inbox: InboxService }> = async (app, { inbox }) => {
  app.get('/api/inbox', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      summary:
        "Every agent's conversations, newest activity first; the X-Total-Count header holds how many match the filters",
      security,
      querystring: z.object({
        status: status.optional(),
        chatbot_id: z.string().min(1).max(100).optional(),
        assigned: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('`me`, `unassigned`, or the user id of a person of the team'),
        page: z.coerce.number().int().min(1).max(100_000).default(1),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
      response: { 200: inboxItem.array() },
    },
    handler: async (req, reply) => {
      const { items, total } = inbox.list(currentUser(req), req.query);
      reply.header('x-total-count', String(total));
      return items;
    },
  });

  app.put('/api/chat/conversations/:chatbot_id/:conversation_id/assignee', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      summary: 'Assign the conversation to a person of the team (their user id), or to nobody (null)',
      security,
      params: ids,
      body: z.object({ user_id: z.string().min(1).max(100).nullable() }),
      response: { 200: teamHandoffState },
    },
    handler: async (req) =>
      inbox.assign(currentUser(req), req.params.chatbot_id, req.params.conversation_id, req.body.user_id),
  });

  app.get('/api/chat/conversations/:chatbot_id/:conversation_id/notes', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      summary: "The conversation's internal notes, oldest first (the team's only: the visitor never sees them)",
      security,
      params: ids,
      response: { 200: noteSchema.array() },
    },
    handler: async (req) => inbox.notes(currentUser(req), req.params.chatbot_id, req.params.conversation_id),
  });

  app.post('/api/chat/conversations/:chatbot_id/:conversation_id/notes', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      summary:
        'An internal note on the conversation: never in the transcript, stream or prompt the visitor or model get',
      security,
      params: ids,
      body: z.object({ content: z.string().max(FIELD_MAX.inbox.note) }),
      response: { 201: noteSchema },
    },
    handler: async (req, reply) =>
      reply
        .code(201)
        .send(inbox.addNote(currentUser(req), req.params.chatbot_id, req.params.conversation_id, req.body.content)),
  });
};
