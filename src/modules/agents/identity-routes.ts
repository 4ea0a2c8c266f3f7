import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../auth/index.js';
import type { IdentityService } from './identity.js';
import { agentIdParams } from './schemas.js';

// the identity secret vouches for the site's users: only the account's owner sets or reads it
const ownerOnly = { teamRole: 'owner' as const };

/** An agent's identity secret for verified visitors (docs/API-NOTES.md "Verified visitors"). */
export const identityRoutes: FastifyPluginAsyncZod<{ identity: IdentityService }> = async (app, { identity }) => {
  const security = [{ bearer: [] }];
  const tags = ['agents'];
  const path = '/api/chatbots/:chatbot_id/identity-secret';

  app.post(path, {
    config: ownerOnly,
    schema: {
      tags,
      security,
      params: agentIdParams,
      summary: 'A new identity secret for verified visitors, shown once; the one before stops verifying at once',
      response: {
        201: z.object({ secret: z.string().describe('shown only in this answer: keep it on your server') }),
      },
    },
    handler: async (req, reply) => reply.code(201).send(identity.rotate(currentUser(req), req.params.chatbot_id)),
  });

  app.get(path, {
    config: ownerOnly,
    schema: {
      tags,
      security,
      params: agentIdParams,
      summary: 'Whether the agent verifies visitors (never the secret)',
      response: { 200: z.object({ configured: z.boolean(), created_at: z.string().nullable() }) },
    },
    handler: async (req) => identity.status(currentUser(req), req.params.chatbot_id),
  });

  app.delete(path, {
    config: ownerOnly,
    schema: {
      tags,
      security,
      params: agentIdParams,
      summary: 'Removes the identity secret: visitors are no longer verified',
    },
    handler: async (req, reply) => {
      identity.remove(currentUser(req), req.params.chatbot_id);
      return reply.code(204).send();
    },
  });
};
