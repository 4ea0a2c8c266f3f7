import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { visitorPreflight } from '../agents/index.js';
import { emailField } from '../auth/index.js';
import type { ActionTurns } from './action-turns.js';
import { visitorUser } from './visitor-user.js';
import type { ChatService } from './service.js';

const settled = z.object({
  message: z.string().describe("the agent's message saying what happened (stored in the conversation)"),
  message_id: z.string().nullable(),
  run: z.object({
    id: z.string(),
    status: z
      .string()
      .describe(
        'running, succeeded, failed, cancelled, expired, or awaiting_confirmation when the choice must be fixed',
      ),
    outcome: z.string().nullable(),
  }),
});

/** The visitor's Confirm and Cancel on an action's card (docs/ACTIONS.md). */
export const actionTurnRoutes: FastifyPluginAsyncZod<{
  actionTurns: ActionTurns;
  chat: ChatService;
  chatResponse: z.ZodType;
}> = async (app, { actionTurns, chat, chatResponse }) => {
  const params = z.object({ chatbot_id: z.string().min(1).max(100), run_id: z.string().min(1).max(100) });
  const agentParams = z.object({ chatbot_id: z.string().min(1).max(100) });
  const sessionId = z.string().trim().min(1).max(200);

  app.get('/api/public/chat/:chatbot_id/actions', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: agentParams,
      summary:
        "The agent's actions for the widget; `buttons`: shown as buttons (no provider key, no model to call them)",
      response: {
        200: z.object({
          buttons: z.boolean(),
          actions: z
            .object({
              id: z.string(),
              type: z.enum(['lookup', 'do', 'booking']),
              name: z.string(),
              description: z.string(),
              parameters: z.object({ name: z.string(), description: z.string(), required: z.boolean() }).array(),
              requires_verified: z.boolean(),
            })
            .array(),
        }),
      },
    },
    handler: async (req) => actionTurns.publicActions(req.params.chatbot_id),
  });
  app.options('/api/public/chat/:chatbot_id/actions', visitorPreflight());

  app.post('/api/public/chat/:chatbot_id/actions/:action_id/start', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: agentParams.extend({ action_id: z.string().min(1).max(100) }),
      summary:
        "Starts an action from its button (no model): a look-up answers at once, a do or booking answers with its card; the chat's answer shape",
      body: z.object({
        session_id: sessionId,
        inputs: z.record(z.string().max(64), z.string().max(500)).default({}),
        user: visitorUser.optional(),
      }),
      response: { 200: chatResponse },
    },
    handler: async (req) =>
      chat.startAction(req.params.chatbot_id, {
        message: '',
        session_id: req.body.session_id,
        action_id: req.params.action_id,
        inputs: req.body.inputs,
        user: req.body.user,
      }),
  });
  app.options('/api/public/chat/:chatbot_id/actions/:action_id/start', visitorPreflight());

  app.post('/api/public/chat/:chatbot_id/action-runs/:run_id/confirm', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params,
      summary: "Runs the action the card asked about, once; a booking's chosen slot (and e-mail) comes with it",
      body: z.object({
        session_id: sessionId,
        start: z.string().max(40).optional().describe('booking: the chosen slot (its `start` from the card)'),
        email: emailField.optional(),
        name: z.string().trim().max(100).optional(),
      }),
      response: { 200: settled },
    },
    handler: async (req) =>
      actionTurns.confirm(req.params.chatbot_id, {
        session_id: req.body.session_id,
        runId: req.params.run_id,
        choice: { start: req.body.start, email: req.body.email, name: req.body.name },
      }),
  });
  app.options('/api/public/chat/:chatbot_id/action-runs/:run_id/confirm', visitorPreflight());

  app.post('/api/public/chat/:chatbot_id/action-runs/:run_id/cancel', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params,
      summary: 'Ends the run; nothing is sent',
      body: z.object({ session_id: sessionId }),
      response: { 200: settled },
    },
    handler: async (req) =>
      actionTurns.cancel(req.params.chatbot_id, { session_id: req.body.session_id, runId: req.params.run_id }),
  });
  app.options('/api/public/chat/:chatbot_id/action-runs/:run_id/cancel', visitorPreflight());
};
