import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import { MAX_WEBHOOKS, WEBHOOK_EVENTS, type WebhooksService } from './service.js';

const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
const withSecret = webhookSchema.extend({ secret: z.string().describe('shown only in this answer: keep it now') });
const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event: z.string(),
  payload: z.string().describe('the exact JSON body posted (and signed)'),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});

// event names are checked by the service, so an unknown one is a 400 naming the allowed ones
const events = z.array(z.string().max(100)).max(20);
const url = z.string().trim().min(1).max(FIELD_MAX.webhook_url);

export const webhookRoutes: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  const security = [{ bearer: [] }];
  const tags = ['webhooks'];
  const params = z.object({ id: z.string().min(1).max(100) });

  app.get('/api/webhooks', {
    schema: {
      tags,
      security,
      summary: "The account's webhooks (secrets are never shown again)",
      response: { 200: webhookSchema.array() },
    },
    handler: async (req) => webhooks.list(currentUser(req)),
  });

  app.post('/api/webhooks', {
    schema: {
      tags,
      security,
      summary: `Adds a webhook (at most ${MAX_WEBHOOKS}); the answer shows its signing secret once. Events: ${WEBHOOK_EVENTS.join(', ')}`,
      body: z.object({ url, events }),
      response: { 201: withSecret },
    },
    handler: async (req, reply) => reply.code(201).send(webhooks.create(currentUser(req), req.body)),
  });

  app.patch('/api/webhooks/:id', {
    schema: {
      tags,
      security,
      params,
      body: z.object({ url: url.optional(), events: events.optional(), active: z.boolean().optional() }),
      response: { 200: webhookSchema },
    },
    handler: async (req) => webhooks.update(currentUser(req), req.params.id, req.body),
  });

  app.delete('/api/webhooks/:id', {
    schema: { tags, security, params, summary: 'Deletes the webhook, its delivery log and its pending deliveries' },
    handler: async (req, reply) => {
      await webhooks.remove(currentUser(req), req.params.id);
      return reply.code(204).send();
    },
  });

  app.post('/api/webhooks/:id/rotate-secret', {
    schema: {
      tags,
      security,
      params,
      summary: 'A new signing secret, shown once; the old one stops at once',
      response: { 200: withSecret },
    },
    handler: async (req) => webhooks.rotateSecret(currentUser(req), req.params.id),
  });

  app.get('/api/webhooks/:id/deliveries', {
    schema: {
      tags,
      security,
      params,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
      response: { 200: deliverySchema.array() },
    },
    handler: async (req) => webhooks.deliveries(currentUser(req), req.params.id, req.query.limit),
  });

  app.post('/api/webhooks/:id/deliveries/:delivery_id/retry', {
    schema: {
      tags,
      security,
      summary: 'Queues a failed delivery again (409 for one that is not failed)',
      params: z.object({ id: z.string().min(1).max(100), delivery_id: z.string().min(1).max(100) }),
      response: { 202: deliverySchema },
    },
    handler: async (req, reply) =>
      reply.code(202).send(webhooks.retry(currentUser(req), req.params.id, req.params.delivery_id)),
  });

  app.post('/api/webhooks/:id/test', {
    schema: {
      tags,
      security,
      params,
      summary: 'Queues a `ping` event to the webhook',
      response: { 202: deliverySchema },
    },
    handler: async (req, reply) => reply.code(202).send(webhooks.sendTest(currentUser(req), req.params.id)),
  });
};
