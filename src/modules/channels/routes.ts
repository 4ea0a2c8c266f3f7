import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHANNELS, CONVERSATION_CHANNELS } from '../../providers/channels/index.js';
import { analyticsDays } from '../analytics/index.js';
import { forbidden } from '../../platform/http/errors.js';
import { currentUser } from '../auth/index.js';
import type { ChannelsService } from './service.js';

const security = [{ bearer: [] }];
const tags = ['channels'];
const channelName = z.enum(CHANNELS.map((c) => c.name) as [(typeof CHANNELS)[number]['name']]);
const agentParams = z.object({ chatbot_id: z.string() });

const SUMMARIES: Record<(typeof CHANNELS)[number]['name'], { connect: string; disconnect: string }> = {
  telegram: {
    connect:
      "Connect a Telegram bot by its token (from BotFather); checked with Telegram, the bot's name is shown back",
    disconnect: 'Disconnect the Telegram bot; its conversations stay',
  },
  whatsapp: {
    connect:
      "Connect a WhatsApp Business phone number (Cloud API): its phone number id, an access token, the Meta app's secret and a verify token of your choice; checked with Meta, the number is shown back",
    disconnect: 'Disconnect the WhatsApp number; its conversations stay',
  },
  email: {
    connect:
      "Connect a mailbox: imap_url (imaps://user:password@host, read with IDLE), the address people write to, and optionally smtp_url for the replies (else the server's SMTP settings); both servers checked now, the password never returned",
    disconnect: 'Disconnect the mailbox; its conversations stay',
  },
};

const channelSchema = z.object({
  channel: channelName,
  state: z.enum(['not_connected', 'connected', 'error']),
  account_name: z
    .string()
    .nullable()
    .describe("the bot's handle, e.g. @acme_help_bot, the WhatsApp number, or the mailbox's address"),
  display_name: z.string().nullable(),
  mode: z
    .enum(['polling', 'webhook'])
    .nullable()
    .describe(
      'Telegram: webhook when PUBLIC_URL is https, else long polling; WhatsApp: always webhook; e-mail: polling (IMAP IDLE)',
    ),
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

  for (const definition of CHANNELS) {
    const name = definition.name;
    const { connect, disconnect } = SUMMARIES[name];
    const body = z.object(
      Object.fromEntries(
        definition.fields.map((f) => {
          const value = z
            .string()
            .trim()
            .min(1)
            .max(f === 'access_token' || f.endsWith('_url') ? 1000 : 200);
          return [f, definition.optionalFields?.includes(f) ? value.optional() : value];
        }),
      ),
    );
    app.put(`/api/chatbots/:chatbot_id/channels/${name}`, {
      schema: { tags, security, params: agentParams, summary: connect, body, response: { 200: channelSchema } },
      handler: async (req) =>
        channels.connections.connect(currentUser(req), req.params.chatbot_id, name, req.body as Record<string, string>),
    });
    app.delete(`/api/chatbots/:chatbot_id/channels/${name}`, {
      schema: { tags, security, params: agentParams, summary: disconnect },
      handler: async (req, reply) => {
        await channels.connections.disconnect(currentUser(req), req.params.chatbot_id, name);
        return reply.code(204).send();
      },
    });
  }

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

  await app.register(whatsappWebhook, { channels });
};

/**
 * Meta's webhook for an agent's WhatsApp number (docs/CHANNELS.md): the GET answers Meta's check of
 * the URL, the POST carries messages signed with the app secret. The signature is over the raw
 * bytes, so this scope reads every body as a Buffer (its own parser) and parses it only once the
 * signature matched.
 */
const whatsappWebhook: FastifyPluginAsyncZod<{ channels: ChannelsService }> = async (app, { channels }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const params = z.object({ chatbot_id: z.string().max(100) });
  app.get('/api/channels/whatsapp/:chatbot_id', {
    config: { public: true },
    schema: {
      tags,
      summary:
        "Meta's verification of the WhatsApp webhook URL: hub.challenge back when hub.verify_token is the owner's",
      params,
      querystring: z.object({
        'hub.mode': z.string().max(50).optional(),
        'hub.verify_token': z.string().max(500).optional(),
        'hub.challenge': z.string().max(500).optional(),
      }),
    },
    handler: async (req, reply) => {
      const q = req.query;
      if (!channels.verifySubscription('whatsapp', req.params.chatbot_id, q['hub.mode'], q['hub.verify_token']))
        throw forbidden('hub.verify_token: not the verify token saved with this WhatsApp number (or not connected)');
      return reply.type('text/plain; charset=utf-8').send(q['hub.challenge'] ?? '');
    },
  });
  app.post('/api/channels/whatsapp/:chatbot_id', {
    config: { public: true },
    schema: {
      tags,
      summary:
        "WhatsApp's webhook: a body signed with the app secret (X-Hub-Signature-256); text messages are answered, the rest acknowledged",
      params,
    },
    handler: async (req) => {
      const signature = req.headers['x-hub-signature-256'];
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      channels.receiveSigned(
        'whatsapp',
        req.params.chatbot_id,
        raw,
        typeof signature === 'string' ? signature : undefined,
      );
      return { ok: true };
    },
  });
};
