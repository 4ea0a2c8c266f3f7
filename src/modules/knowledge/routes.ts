import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { cutShort, multipartClientError, readFormFields, watchClosingDelimiter } from '../../platform/http/form.js';
import { currentUser } from '../auth/index.js';
import { MAX_UPLOAD_BYTES, type IngestionService } from './ingestion.js';
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
  pages_done: z.number().int().nullable(),
  pages_found: z.number().int().nullable(),
  created_at: z.string(),
});

const pathList = z
  .string()
  .max(4000)
  .optional()
  .transform((raw, ctx) => {
    if (!raw || !raw.trim()) return [];
    let items: unknown;
    try {
      items = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(/[,\n]/);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array or a comma-separated list of paths' });
      return z.NEVER;
    }
    if (!Array.isArray(items) || items.some((p) => typeof p !== 'string')) {
      ctx.addIssue({ code: 'custom', message: 'must be a list of paths' });
      return z.NEVER;
    }
    const paths = items.map((p: string) => p.trim()).filter(Boolean);
    if (paths.length > 50 || paths.some((p) => !p.startsWith('/') || p.length > 300)) {
      ctx.addIssue({ code: 'custom', message: 'must be at most 50 paths, each starting with /' });
      return z.NEVER;
    }
    return paths;
  });

const websiteFields = z.object({
  url: z.string().trim().min(1).max(2000),
  max_pages: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return 1;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 500) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number from 1 to 500' });
        return z.NEVER;
      }
      return n;
    }),
  include_paths: pathList,
  exclude_paths: pathList,
});

function parseFields<T extends z.ZodType>(schema: T, fields: Record<string, string>): z.output<T> {
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw badRequest(`${String(issue.path[0] ?? 'body')}: ${issue.message}`);
  }
  return parsed.data;
}

const textSourceFields = z.object({
  name: z.string().trim().min(1).max(200),
  // multipart sends line breaks as CRLF; count them once
  content: z.string().min(1).transform((s) => s.replace(/\r\n/g, '\n')),
});

/** JSON bodies of the text route may hold the whole 2M-character text, escaped. */
const TEXT_SOURCE_BODY_LIMIT = 16 * 1024 * 1024;

export const knowledgeRoutes: FastifyPluginAsyncZod<{ knowledge: KnowledgeService; ingestion: IngestionService }> = async (
  app,
  { knowledge, ingestion },
) => {
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
      const input = parseFields(textSourceFields, fields);
      if (input.content.length > MAX_TEXT_SOURCE_CHARS) {
        throw new ApiError(413, `content: too large (at most ${MAX_TEXT_SOURCE_CHARS} characters)`);
      }
      const source = await knowledge.addTextSource(user, req.params.chatbot_id, input);
      return reply.code(201).send(source);
    },
  });

  app.post('/api/sources/chatbot/:chatbot_id/file', {
    schema: { tags: ['sources'], security, params: chatbotParams, consumes: ['multipart/form-data'], response: { 201: sourceSchema } },
    handler: async (req, reply) => {
      const user = currentUser(req);
      ingestion.assertAgent(user, req.params.chatbot_id); // before reading 100 MB for nothing
      if (!req.isMultipart()) throw badRequest('body: expected multipart/form-data with a file field');
      let source;
      // A body that ends inside the file part would leave the file stream open for ever (the
      // parser reports the cut only to its iterator, which waits for the stream, and the stream
      // ignores destroy()): when the whole body has arrived without the closing delimiter, the
      // upload is aborted with a 400.
      const closing = watchClosingDelimiter(req);
      const cut = new AbortController();
      const onBodyEnd = () => {
        if (!closing.seen() && !cut.signal.aborted) cut.abort(cutShort());
      };
      req.raw.once('end', onBodyEnd);
      try {
        const parts = req.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 11 } })[Symbol.asyncIterator]();
        for (;;) {
          let next;
          try {
            next = await parts.next();
          } catch (err) {
            throw multipartClientError(err);
          }
          if (next.done) break;
          const part = next.value;
          if (part.type !== 'file') continue;
          if (part.fieldname !== 'file' || source) {
            part.file.resume();
            continue;
          }
          if (req.raw.readableEnded) onBodyEnd();
          source = await ingestion.addFile(user, req.params.chatbot_id, { filename: part.filename, stream: part.file, signal: cut.signal });
        }
      } finally {
        req.raw.off('end', onBodyEnd);
        closing.stop();
      }
      if (!source) throw badRequest('file: required');
      // spec: the create response carries file_type and file_size as null; later lists have them
      return reply.code(201).send({ ...source, file_type: null, file_size: null });
    },
  });

  app.post('/api/sources/chatbot/:chatbot_id/website', {
    schema: { tags: ['sources'], security, params: chatbotParams, consumes: ['multipart/form-data', 'application/json'], response: { 201: sourceSchema } },
    handler: async (req, reply) => {
      const user = currentUser(req);
      const input = parseFields(websiteFields, await readFormFields(req, 16 * 1024));
      const source = await ingestion.addWebsite(user, req.params.chatbot_id, {
        url: input.url,
        maxPages: input.max_pages,
        includePaths: input.include_paths,
        excludePaths: input.exclude_paths,
      });
      return reply.code(201).send(source);
    },
  });

  app.delete('/api/sources/:source_id', {
    schema: { tags: ['sources'], security, params: z.object({ source_id: z.string().min(1).max(100) }) },
    handler: async (req, reply) => {
      await ingestion.deleteSource(currentUser(req), req.params.source_id);
      return reply.code(204).send();
    },
  });
};
