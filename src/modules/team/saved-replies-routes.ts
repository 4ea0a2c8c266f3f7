import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser, OPERATOR_ALLOWED } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import type { SavedReplies } from './saved-replies.js';

const security = [{ bearer: [] }];
const shortcut = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    new RegExp(`^[a-z0-9][a-z0-9_-]{0,${FIELD_MAX.inbox.shortcut - 1}}$`),
    `must be 1-${FIELD_MAX.inbox.shortcut} letters a-z, digits, - or _`,
  );
const content = z.string().trim().min(1).max(FIELD_MAX.inbox.saved_reply);
const savedReplySchema = z.object({
  id: z.string(),
  shortcut: z.string(),
  content: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
const idParams = z.object({ id: z.string().min(1).max(100) });

/** An account's saved replies (docs/API-NOTES.md "Inbox"); operators use and keep them too. */
export const savedReplyRoutes: FastifyPluginAsyncZod<{ savedReplies: SavedReplies }> = async (
  app,
  { savedReplies },
) => {
  app.get('/api/saved-replies', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['inbox'], security, response: { 200: savedReplySchema.array() } },
    handler: async (req) => savedReplies.list(currentUser(req)),
  });

  app.post('/api/saved-replies', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      summary:
        'A saved reply: `/shortcut` in the reply box inserts its content; the shortcut is unique per account (409)',
      security,
      body: z.object({ shortcut, content }),
      response: { 201: savedReplySchema },
    },
    handler: async (req, reply) => reply.code(201).send(savedReplies.create(currentUser(req), req.body)),
  });

  app.put('/api/saved-replies/:id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['inbox'],
      security,
      params: idParams,
      body: z.object({ shortcut: shortcut.optional(), content: content.optional() }),
      response: { 200: savedReplySchema },
    },
    handler: async (req) => savedReplies.update(currentUser(req), req.params.id, req.body),
  });

  app.delete('/api/saved-replies/:id', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['inbox'], security, params: idParams },
    handler: async (req, reply) => {
      savedReplies.delete(currentUser(req), req.params.id);
      return reply.code(204).send();
    },
  });
};
