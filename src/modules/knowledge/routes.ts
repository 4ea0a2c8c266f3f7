import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { readFormFields } from '../../platform/http/form.js';
import { receiveFile } from '../../platform/http/multipart.js';
import { currentUser } from '../auth/index.js';
import type { AnswerGapsService } from './gaps.js';
import { MAX_UPLOAD_BYTES, type IngestionService } from './ingestion.js';
import { qaRoutes } from './qa-routes.js';
import { syncRoutes } from './sync-routes.js';
import type { SyncSchedule } from './sync-schedule.js';
import { MAX_TEXT_SOURCE_CHARS, type KnowledgeService } from './service.js';
import { jsonFields, parseFields, textSourceFields, websiteFields } from './source-fields.js';
import { passagePage, sourceResponse, sourceSchema } from './source-schemas.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

/** JSON bodies of the text route may hold the whole 2M-character text, escaped. */
const TEXT_SOURCE_BODY_LIMIT = 16 * 1024 * 1024;

export const knowledgeRoutes: FastifyPluginAsyncZod<{
  knowledge: KnowledgeService;
  ingestion: IngestionService;
  gaps: AnswerGapsService;
  syncs: SyncSchedule;
}> = async (app, { knowledge, ingestion, gaps, syncs }) => {
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });
  /** the three routes that add a source: one agent's id in the path, the new source back */
  const addSourceSchema = (consumes: string[]) => ({
    tags: ['sources'],
    security,
    params: chatbotParams,
    consumes,
    response: { 201: sourceSchema },
  });

  app.get('/api/sources/chatbot/:chatbot_id', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['sources'], security, params: chatbotParams, response: { 200: sourceSchema.array() } },
    handler: async (req) => knowledge.listSources(currentUser(req), req.params.chatbot_id).map(sourceResponse),
  });

  app.post('/api/sources/chatbot/:chatbot_id/text', {
    bodyLimit: TEXT_SOURCE_BODY_LIMIT,
    schema: addSourceSchema(['multipart/form-data', 'application/json']),
    handler: async (req, reply) => {
      const user = currentUser(req);
      const fields = await readFormFields(req, MAX_TEXT_SOURCE_CHARS * 4);
      const input = parseFields(textSourceFields, fields);
      if (input.content.length > MAX_TEXT_SOURCE_CHARS) {
        throw new ApiError(413, `content: too large (at most ${MAX_TEXT_SOURCE_CHARS} characters)`);
      }
      const source = await knowledge.addTextSource(user, req.params.chatbot_id, input);
      return reply.code(201).send(sourceResponse(source));
    },
  });

  qaRoutes(app, { knowledge, gaps });
  syncRoutes(app, { knowledge, syncs, syncRepo: ingestion.syncRepo });

  app.post('/api/sources/chatbot/:chatbot_id/file', {
    schema: addSourceSchema(['multipart/form-data']),
    handler: async (req, reply) => {
      const user = currentUser(req);
      ingestion.assertAgent(user, req.params.chatbot_id); // before reading 100 MB for nothing
      if (!req.isMultipart()) throw badRequest('body: expected multipart/form-data with a file field');
      const source = await receiveFile(
        req,
        'file',
        { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 11 },
        ({ filename, stream, signal }) =>
          ingestion.addFile(user, req.params.chatbot_id, {
            filename,
            stream,
            signal,
            declaredBytes: declaredLength(req.headers['content-length']),
          }),
      );
      if (!source) throw badRequest('file: required');
      // docs/API.md "Source status": the create response carries file_type and file_size as null; later lists have them
      return reply.code(201).send({ ...sourceResponse(source), file_type: null, file_size: null });
    },
  });

  app.post('/api/sources/chatbot/:chatbot_id/website', {
    schema: addSourceSchema(['multipart/form-data', 'application/json']),
    handler: async (req, reply) => {
      const user = currentUser(req);
      // a form's fields are strings; a JSON body's values keep their types (numbers, arrays)
      const fields = req.isMultipart() ? await readFormFields(req, 16 * 1024) : jsonFields(req.body);
      const input = parseFields(websiteFields, fields);
      const source = await ingestion.addWebsite(user, req.params.chatbot_id, {
        url: input.url,
        maxPages: input.max_pages,
        includePaths: input.include_paths,
        excludePaths: input.exclude_paths,
      });
      return reply.code(201).send(sourceResponse(source));
    },
  });

  const sourceParams = z.object({ source_id: z.string().min(1).max(100) });

  // The owner reads what was extracted from a source, a page of passages at a time.
  app.get('/api/sources/:source_id/passages', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['sources'],
      security,
      params: sourceParams,
      querystring: z.object({
        offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
      response: { 200: passagePage },
    },
    handler: async (req) => {
      const { source, total, passages } = knowledge.passages(currentUser(req), req.params.source_id, req.query);
      return {
        source: sourceResponse(source),
        total,
        offset: req.query.offset,
        passages: passages.map((p) => ({
          id: p.id,
          ordinal: p.ordinal,
          content: p.content,
          token_count: p.token_count,
          title: p.title,
          page_url: p.page_url,
          page: p.page,
          heading: p.heading,
        })),
      };
    },
  });

  // A website source synced now (sync-routes.ts: the schedule); its passages keep answering meanwhile.
  app.post('/api/sources/:source_id/recrawl', {
    schema: { tags: ['sources'], security, params: sourceParams, response: { 202: sourceSchema } },
    handler: async (req, reply) =>
      reply.code(202).send(sourceResponse(ingestion.recrawl(currentUser(req), req.params.source_id))),
  });

  app.delete('/api/sources/:source_id', {
    schema: { tags: ['sources'], security, params: z.object({ source_id: z.string().min(1).max(100) }) },
    handler: async (req, reply) => {
      await ingestion.deleteSource(currentUser(req), req.params.source_id);
      return reply.code(204).send();
    },
  });
};

/** The request's Content-Length as a number of bytes, or null when absent or not one. */
function declaredLength(header: string | undefined): number | null {
  const n = header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : Number.NaN;
  return Number.isSafeInteger(n) ? n : null;
}
