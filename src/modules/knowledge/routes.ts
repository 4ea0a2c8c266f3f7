import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { readFormFields } from '../../platform/http/form.js';
import { currentUser } from '../auth/index.js';
import { MAX_TEXT_SOURCE_CHARS, type KnowledgeService } from './service.js';

export const sourceSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  type: z.enum(['file', 'website', 'text']),
  name: z.string(),
  url: z.string().nullable(),
  file_type: z.string().nullable(),
  file_size: z.number().int().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  error_message: z.string().nullable(),
  progress: z.number(),
  created_at: z.string(),
});

const textSourceFields = z.object({
  name: z.string().trim().min(1).max(200),
  // multipart sends line breaks as CRLF; count them once
  content: z.string().min(1).transform((s) => s.replace(/\r\n/g, '\n')),
});

/** JSON bodies of the text route may hold the whole 2M-character text, escaped. */
const TEXT_SOURCE_BODY_LIMIT = 16 * 1024 * 1024;

export const knowledgeRoutes: FastifyPluginAsyncZod<{ knowledge: KnowledgeService }> = async (app, { knowledge }) => {
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });

  app.get('/api/sources/chatbot/:chatbot_id', {
    schema: { tags: ['sources'], security, params: chatbotParams, response: { 200: sourceSchema.array() } },
    handler: async (req) => knowledge.listSources(currentUser(req), req.params.chatbot_id),
  });

  app.post('/api/sources/chatbot/:chatbot_id/text', {
    bodyLimit: TEXT_SOURCE_BODY_LIMIT,
    schema: {
      tags: ['sources'],
      security,
      params: chatbotParams,
      consumes: ['multipart/form-data', 'application/json'],
      response: { 201: sourceSchema },
    },
    handler: async (req, reply) => {
      const user = currentUser(req);
      const fields = await readFormFields(req, MAX_TEXT_SOURCE_CHARS * 4);
      const parsed = textSourceFields.safeParse(fields);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw badRequest(`${String(issue.path[0] ?? 'body')}: ${issue.message}`);
      }
      if (parsed.data.content.length > MAX_TEXT_SOURCE_CHARS) {
        throw new ApiError(413, `content: too large (at most ${MAX_TEXT_SOURCE_CHARS} characters)`);
      }
      const source = await knowledge.addTextSource(user, req.params.chatbot_id, parsed.data);
      return reply.code(201).send(source);
    },
  });

  app.delete('/api/sources/:source_id', {
    schema: { tags: ['sources'], security, params: z.object({ source_id: z.string().min(1).max(100) }) },
    handler: async (req, reply) => {
      knowledge.deleteSource(currentUser(req), req.params.source_id);
      return reply.code(204).send();
    },
  });
};
