import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHANNELS, CONVERSATION_CHANNELS } from '../../providers/channels/index.js';
import { analyticsDays } from '../analytics/index.js';
import { currentUser } from '../auth/index.js';
import type { ChannelsService } from './service.js';

const security = [{ bearer: [] }];
const tags = ['channels'];
const channelName = z.enum(CHANNELS.map((c) => c.name) as [(typeof CHANNELS)[number]['name']]);
const agentParams = z.object({ chatbot_id: z.string() });

const channelSchema = z.object({
  channel: channelName,
  state: z.enum(['not_connected', 'connected', 'error']),
  account_name: z.string().nullable().describe("the bot's handle, e.g. @acme_help_bot"),
  display_name: z.string().nullable(),
  mode: z.enum(['polling', 'webhook']).nullable().describe('webhook when PUBLIC_URL is https, else long polling'),
  error: z.string().nullable().describe('why the channel stopped (state error)'),
  last_message_at: z.string().nullable(),
  connected_at: z.string().nullable(),
});

/** The owner's routes for an agent's messaging channels, and the networks' webhook (docs/CHANNELS.md). */
export const channelRoutes: FastifyPluginAsyncZod<{ channels: ChannelsService }> = async (app, { channels }) => {
  app.get('/api/chatbots/:chatbot_id/channels', {
    schema: {
      tags,
      security,
      params: agentParams,
      summary: 'Every channel the agent can answer on, with its state (the token is never returned)',
      response: { 200: channelSchema.array() },
    },
    handler: async (req) => channels.connections.list(currentUser(req), req.params.chatbot_id),
  });

  app.put('/api/chatbots/:chatbot_id/channels/telegram', {
    schema: {
      tags,
      security,
      params: agentParams,
      summary:
        "Connect a Telegram bot by its token (from BotFather); checked with Telegram, the bot's name is shown back",
      body: z.object({ bot_token: z.string().trim().min(1).max(200) }),
      response: { 200: channelSchema },
    },
    handler: async (req) =>
      channels.connections.connect(currentUser(req), req.params.chatbot_id, 'telegram', req.body.bot_token),
  });

  app.delete('/api/chatbots/:chatbot_id/channels/telegram', {
    schema: {
      tags,
      security,
      params: agentParams,
      summary: 'Disconnect the Telegram bot; its conversations stay',
    },
    handler: async (req, reply) => {
      await channels.connections.disconnect(currentUser(req), req.params.chatbot_id, 'telegram');
      return reply.code(204).send();
    },
  });

  app.get('/api/analytics/chatbot/:chatbot_id/channels', {
    schema: {
      tags: ['analytics'],
      security,
      params: agentParams,
      querystring: z.object({ days: analyticsDays }),
      summary: 'Per channel: conversations started and messages written in the window (beside the spec analytics)',
      response: {
        200: z.object({
          from: z.string(),
          to: z.string(),
          channels: z
            .object({
              channel: z.enum(CONVERSATION_CHANNELS),
              conversations: z.number().int(),
              messages: z.number().int(),
            })
            .array(),
        }),
      },
    },
    handler: async (req) => channels.activity(currentUser(req), req.params.chatbot_id, req.query.days),
  });

  // Telegram posts updates here in webhook mode, with the connection's secret in a header
  app.post('/api/public/channels/telegram/:connection_id', {
    config: { public: true },
    schema: {
      tags,
      summary: "Telegram's webhook (only with an https PUBLIC_URL): checked by its secret-token header",
      params: z.object({ connection_id: z.string().max(100) }),
      body: z
        .looseObject({ update_id: z.number().int() })
        .describe('a Telegram Update; kinds other than private messages are confirmed and dropped'),
    },
    handler: async (req) => {
      const secret = req.headers['x-telegram-bot-api-secret-token'];
      channels.receiveWebhook(
        'telegram',
        req.params.connection_id,
        typeof secret === 'string' ? secret : undefined,
        req.body,
      );
      return { ok: true };
    },
  });
};
