import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser, OPERATOR_ALLOWED } from '../auth/index.js';
import { MAX_ACTIONS, type ActionsService } from './service.js';

const toolName = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower-case letters, digits and _ only, starting with a letter, at most 64');
const parameter = z.object({
  name: z
    .string()
    .trim()
    .regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/, 'letters, digits and _ only, at most 64'),
  description: z.string().trim().min(1).max(500),
  required: z.boolean().optional(),
});
const fieldPath = z
  .string()
  .trim()
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'a field name or a dotted path such as order.status')
  .max(200);

const actionFields = {
  name: toolName,
  description: z.string().trim().min(1).max(1000),
  url: z.string().trim().min(1).max(2000).nullable().optional(),
  parameters: parameter.array().max(10).optional(),
  response_fields: fieldPath.array().max(20).optional(),
  requires_verified: z.boolean().optional(),
  calendar_url: z.string().trim().min(1).max(2000).nullable().optional(),
  slot_minutes: z.number().int().min(5).max(480).optional(),
  days_ahead: z.number().int().min(1).max(90).optional(),
  enabled: z.boolean().optional(),
};
const type = z.enum(['lookup', 'do', 'booking']);

const actionSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  type,
  name: z.string(),
  description: z.string(),
  url: z.string().nullable(),
  parameters: z.object({ name: z.string(), description: z.string(), required: z.boolean().optional() }).array(),
  response_fields: z.string().array(),
  requires_verified: z.boolean(),
  calendar_url: z.string().nullable(),
  slot_minutes: z.number().int(),
  days_ahead: z.number().int(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

const runSchema = z.object({
  id: z.string(),
  action_id: z.string().nullable(),
  action_name: z.string(),
  action_type: type,
  chatbot_id: z.string(),
  conversation_id: z.string(),
  inputs: z.record(z.string(), z.string()),
  status: z.enum(['awaiting_confirmation', 'running', 'succeeded', 'failed', 'cancelled', 'expired']),
  outcome: z.string().nullable(),
  http_status: z.number().int().nullable(),
  confirmed_at: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
});
const count = z.number().int();
const days = z
  .string()
  .regex(/^[0-9]{1,3}$/, 'must be a whole number of days, 1 to 365')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be 1 to 365').max(365, 'must be 1 to 365'))
  .default(30);

/** The owner's routes for an agent's actions (docs/ACTIONS.md). */
export const actionRoutes: FastifyPluginAsyncZod<{ actions: ActionsService }> = async (app, { actions }) => {
  const security = [{ bearer: [] }];
  const tags = ['actions'];
  const agentParams = z.object({ chatbot_id: z.string().min(1).max(100) });
  const params = agentParams.extend({ action_id: z.string().min(1).max(100) });

  app.get('/api/chatbots/:chatbot_id/actions', {
    schema: { tags, security, params: agentParams, response: { 200: actionSchema.array() } },
    handler: async (req) => actions.list(currentUser(req), req.params.chatbot_id),
  });

  app.post('/api/chatbots/:chatbot_id/actions', {
    schema: {
      tags,
      security,
      params: agentParams,
      summary: `Adds an action (at most ${MAX_ACTIONS} an agent); the answer shows its signing secret once`,
      body: z.object({ type, ...actionFields }),
      response: {
        201: actionSchema.extend({
          signing_secret: z.string().describe('requests to your endpoint are signed with it; shown only here'),
        }),
      },
    },
    handler: async (req, reply) =>
      reply.code(201).send(actions.create(currentUser(req), req.params.chatbot_id, req.body)),
  });

  app.get('/api/chatbots/:chatbot_id/actions/:action_id', {
    schema: { tags, security, params, response: { 200: actionSchema } },
    handler: async (req) => actions.get(currentUser(req), req.params.chatbot_id, req.params.action_id),
  });

  app.put('/api/chatbots/:chatbot_id/actions/:action_id', {
    schema: {
      tags,
      security,
      params,
      summary: 'Changes the fields sent (the type stays); the result is checked as a new action',
      body: z.object({
        type: type.optional(),
        ...actionFields,
        name: toolName.optional(),
        description: actionFields.description.optional(),
      }),
      response: { 200: actionSchema },
    },
    handler: async (req) => actions.update(currentUser(req), req.params.chatbot_id, req.params.action_id, req.body),
  });

  app.get('/api/chatbots/:chatbot_id/conversations/:conversation_id/action-runs', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags,
      security,
      params: agentParams.extend({ conversation_id: z.string().min(1).max(100) }),
      summary: "The conversation's action runs, oldest first: which action, inputs, outcome, time (the transcript)",
      response: { 200: runSchema.array() },
    },
    handler: async (req) => actions.runsOf(currentUser(req), req.params.chatbot_id, req.params.conversation_id),
  });

  app.get('/api/analytics/chatbot/:chatbot_id/actions', {
    schema: {
      tags: ['analytics'],
      security,
      params: agentParams,
      querystring: z.object({ days }),
      summary: 'Per action: runs, confirmations and how they ended in the window (beside the spec analytics)',
      response: {
        200: z.object({
          from: z.string(),
          to: z.string(),
          actions: z
            .object({
              action_id: z.string().nullable(),
              action_name: z.string(),
              action_type: type,
              runs: count,
              confirmed: count,
              succeeded: count,
              failed: count,
              cancelled: count,
              expired: count,
            })
            .array(),
        }),
      },
    },
    handler: async (req) => actions.analytics(currentUser(req), req.params.chatbot_id, req.query.days),
  });

  app.delete('/api/chatbots/:chatbot_id/actions/:action_id', {
    schema: { tags, security, params, summary: 'Deletes the action; its runs stay in the transcripts' },
    handler: async (req, reply) => {
      actions.remove(currentUser(req), req.params.chatbot_id, req.params.action_id);
      return reply.code(204).send();
    },
  });
};
