import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EventStream } from '../../platform/http/sse.js';
import { currentActor, OPERATOR_ALLOWED } from '../auth/index.js';
import type { NotificationPayload, NotificationsService } from './service.js';

/** Heartbeat comments keep an idle stream (and proxies on the way) open. */
const HEARTBEAT_MS = 25_000;
/** A stream ends after this; the admin UI reconnects. */
const STREAM_MAX_MS = 30 * 60_000;

const security = [{ bearer: [] }];
const tags = ['notifications'];

const preferences = z.object({
  browser: z.boolean().describe('a notification, a sound and the count in the title in an open admin tab'),
  push: z.boolean().describe('Web Push to the browsers this person allowed, with the admin closed'),
  email: z.boolean().describe('the "A visitor asked for a person" e-mail'),
});
const endpoint = z.string().min(1).max(2048);
const subscription = z.object({
  endpoint,
  keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
});

/**
 * Beyond the spec (docs/API-NOTES.md "Notifications"): each about the calling person (currentActor),
 * never another person's; every team role may call them.
 */
export const notificationsRoutes: FastifyPluginAsyncZod<{ notifications: NotificationsService }> = async (
  app,
  { notifications },
) => {
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const finish of [...open]) finish();
  });

  app.get('/api/notifications/vapid-public-key', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags,
      summary: "The server's VAPID public key: the applicationServerKey browsers subscribe to Web Push with",
      security,
      response: { 200: z.object({ public_key: z.string() }) },
    },
    handler: async () => ({ public_key: notifications.vapidPublicKey() }),
  });

  app.post('/api/notifications/push-subscriptions', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags,
      summary: "Stores this browser's push subscription (PushSubscription.toJSON()) for the calling person",
      security,
      body: subscription,
      response: { 201: z.object({ endpoint: z.string() }) },
    },
    handler: async (req, reply) => reply.code(201).send(notifications.subscribe(currentActor(req), req.body)),
  });

  app.delete('/api/notifications/push-subscriptions', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags,
      summary: "Removes the calling person's subscription of that endpoint (204 also when there was none)",
      security,
      body: z.object({ endpoint }),
    },
    handler: async (req, reply) => {
      notifications.unsubscribe(currentActor(req), req.body.endpoint);
      return reply.code(204).send();
    },
  });

  app.get('/api/notifications/preferences', {
    config: OPERATOR_ALLOWED,
    schema: { tags, security, response: { 200: preferences } },
    handler: async (req) => notifications.preferences(currentActor(req)),
  });

  app.put('/api/notifications/preferences', {
    config: OPERATOR_ALLOWED,
    schema: { tags, security, body: preferences, response: { 200: preferences } },
    handler: async (req) => notifications.setPreferences(currentActor(req), req.body),
  });

  // The calling person's notifications while an admin tab is open: `ready`, then `notification`
  // (title, body, url, conversation_id, chatbot_id, kind) for each one meant for them.
  app.get('/api/notifications/events', {
    config: OPERATOR_ALLOWED,
    schema: { tags, summary: "The calling person's notifications as Server-Sent Events", security },
    handler: async (req, reply) => {
      const person = currentActor(req);
      const stream = new EventStream(reply);
      stream.send('ready', { browser: notifications.preferences(person).browser });
      await new Promise<void>((resolve) => {
        const heartbeat = setInterval(() => stream.comment(), HEARTBEAT_MS);
        const maxAge = setTimeout(() => finish(), STREAM_MAX_MS);
        heartbeat.unref();
        maxAge.unref();
        const unsubscribe = notifications.listen(person.id, (n: NotificationPayload) => stream.send('notification', n));
        const finish = () => {
          if (!open.delete(finish)) return;
          clearInterval(heartbeat);
          clearTimeout(maxAge);
          unsubscribe();
          stream.end();
          resolve();
        };
        open.add(finish);
        stream.signal.addEventListener('abort', finish);
      });
      return reply;
    },
  });
};
