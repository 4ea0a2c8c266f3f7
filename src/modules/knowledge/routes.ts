import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { readFormFields } from '../../platform/http/form.js';
import { receiveFile } from '../../platform/http/multipart.js';
import { currentUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import { MAX_UPLOAD_BYTES, type IngestionService } from './ingestion.js';
import { MAX_QA_ANSWER_CHARS, MAX_QA_QUESTION_CHARS, MAX_TEXT_SOURCE_CHARS, type KnowledgeService } from './service.js';
import type { AnswerGapsService, GapRow } from './gaps.js';
import { noSkippedPages, type SkippedPages } from './crawler.js';
import type { SourceRow } from './tables.js';

export const sourceSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  type: z.enum(['file', 'website', 'text', 'qa']).describe('qa: a question and its answer, written by the owner'),
  name: z.string(),
  url: z.string().nullable(),
  file_type: z.string().nullable(),
  file_size: z.number().int().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  error_message: z.string().nullable(),
  progress: z.number(),
  pages_done: z.number().int().nullable(),
  pages_found: z.number().int().nullable(),
  /** websites: the max_pages the crawl was asked for; null for other sources */
  max_pages: z.number().int().nullable(),
  /** websites: same-site pages found but not stored (robots.txt, include/exclude paths, not HTML, too large, errors) */
  pages_skipped: z.number().int().nullable(),
  pages_skipped_by: z
    .object({
      robots: z.number().int(),
      excluded: z.number().int(),
      not_html: z.number().int(),
      too_large: z.number().int(),
      failed: z.number().int(),
    })
    .nullable(),
  /** websites: the crawl stopped at max_pages with pages left; null while processing (and for other sources) */
  page_cap_hit: z.boolean().nullable(),
  /** qa sources only (absent on others): the question and the owner's answer */
  qa_question: z.string().optional(),
  qa_answer: z.string().optional(),
  created_at: z.string(),
});

type SourceResponse = z.infer<typeof sourceSchema>;

/** A page of a source's passages: where each comes from (passage-context.ts) and its text. */
const passagePage = z.object({
  source: sourceSchema,
  total: z.number().int(),
  offset: z.number().int(),
  passages: z
    .object({
      id: z.number().int(),
      ordinal: z.number().int(),
      content: z.string(),
      token_count: z.number().int(),
      title: z.string().nullable(),
      page_url: z.string().nullable(),
      page: z.number().int().nullable(),
      heading: z.string().nullable(),
    })
    .array(),
});

/** A source row as the API shows it: the crawl options and report of a website read from their columns. */
export function sourceResponse(row: SourceRow): SourceResponse {
  const website = row.type === 'website';
  let maxPages: number | null = null;
  let skippedBy: SkippedPages | null = null;
  if (website) {
    try {
      maxPages = (JSON.parse(row.options ?? '{}') as { maxPages?: number }).maxPages ?? 1;
    } catch {
      maxPages = null;
    }
    if (row.pages_skipped !== null) {
      try {
        skippedBy = { ...noSkippedPages(), ...(JSON.parse(row.pages_skipped_by ?? '{}') as Partial<SkippedPages>) };
      } catch {
        skippedBy = null;
      }
    }
  }
  return {
    id: row.id,
    chatbot_id: row.chatbot_id,
    type: row.type,
    name: row.name,
    url: row.url,
    file_type: row.file_type,
    file_size: row.file_size,
    status: row.status,
    error_message: row.error_message,
    progress: row.progress,
    pages_done: row.pages_done,
    pages_found: row.pages_found,
    max_pages: maxPages,
    pages_skipped: website ? row.pages_skipped : null,
    pages_skipped_by: skippedBy,
    page_cap_hit: website ? row.page_cap_hit : null,
    ...(row.type === 'qa' ? { qa_question: row.qa_question ?? '', qa_answer: row.qa_answer ?? '' } : {}),
    created_at: row.created_at,
  };
}

const MAX_PATHS = 50;
const MAX_PATH_CHARS = 300;

/**
 * Path prefixes: a JSON array of strings, or (forms, and JSON too) one string holding a JSON array
 * or a comma- or newline-separated list. Blank entries are dropped; absent or null is no paths.
 */
const pathList = z
  .unknown()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === null) return [];
    let items: unknown;
    if (typeof raw === 'string') {
      if (raw.length > 4000) {
        ctx.addIssue({ code: 'custom', message: 'too long (at most 4000 characters)' });
        return z.NEVER;
      }
      if (!raw.trim()) return [];
      try {
        items = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(/[,\n]/);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array or a comma-separated list of paths' });
        return z.NEVER;
      }
    } else if (Array.isArray(raw)) {
      items = raw;
    } else {
      ctx.addIssue({
        code: 'custom',
        message: `must be an array of paths or a comma-separated list, not ${typeName(raw)}`,
      });
      return z.NEVER;
    }
    if (!Array.isArray(items) || items.some((p) => typeof p !== 'string')) {
      ctx.addIssue({ code: 'custom', message: 'must be a list of paths (strings)' });
      return z.NEVER;
    }
    const paths = items.map((p: string) => p.trim()).filter(Boolean);
    if (paths.length > MAX_PATHS || paths.some((p) => !p.startsWith('/') || p.length > MAX_PATH_CHARS)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${MAX_PATHS} paths, each starting with / and at most ${MAX_PATH_CHARS} characters`,
      });
      return z.NEVER;
    }
    return paths;
  });

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const websiteFields = z.object({
  url: z.string().trim().min(1).max(FIELD_MAX.source.website_url),
  // a number (JSON) or a numeric string (forms, JSON); absent, null or blank is the default
  max_pages: z
    .unknown()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return 1;
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < 1 || n > 500) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number from 1 to 500' });
        return z.NEVER;
      }
      return n;
    }),
  include_paths: pathList,
  exclude_paths: pathList,
});

function parseFields<T extends z.ZodType>(schema: T, fields: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw badRequest(`${String(issue.path[0] ?? 'body')}: ${issue.message}`);
  }
  return parsed.data;
}

function jsonFields(body: unknown): Record<string, unknown> {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw badRequest('body: expected multipart/form-data fields or a JSON object');
}

const textSourceFields = z.object({
  name: z.string().trim().min(1).max(FIELD_MAX.source.text_name),
  // multipart sends line breaks as CRLF; count them once
  content: z
    .string()
    .min(1)
    .transform((s) => s.replace(/\r\n/g, '\n')),
});

const qaQuestion = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_QA_QUESTION_CHARS, `too long (at most ${MAX_QA_QUESTION_CHARS} characters)`);
const qaAnswer = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_QA_ANSWER_CHARS, `too long (at most ${MAX_QA_ANSWER_CHARS} characters)`);

export const gapSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  question: z.string().describe('the latest wording a visitor used'),
  question_key: z.string().describe('the grouping key: content words, lower-cased, sorted'),
  reasons: z.enum(['no_passage', 'unsure', 'thumbs_down', 'asked_person']).array(),
  count: z.number().int(),
  status: z.enum(['open', 'answered', 'dismissed']),
  source_id: z.string().nullable().describe('the qa source that answered it'),
  conversation_id: z.string().nullable().describe('the latest conversation it came from'),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
});

function gapResponse(row: GapRow): z.infer<typeof gapSchema> {
  return { ...row, reasons: row.reasons as z.infer<typeof gapSchema>['reasons'] };
}

/** JSON bodies of the text route may hold the whole 2M-character text, escaped. */
const TEXT_SOURCE_BODY_LIMIT = 16 * 1024 * 1024;

export const knowledgeRoutes: FastifyPluginAsyncZod<{
  knowledge: KnowledgeService;
  ingestion: IngestionService;
  gaps: AnswerGapsService;
}> = async (app, { knowledge, ingestion, gaps }) => {
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });

  app.get('/api/sources/chatbot/:chatbot_id', {
    schema: { tags: ['sources'], security, params: chatbotParams, response: { 200: sourceSchema.array() } },
    handler: async (req) => knowledge.listSources(currentUser(req), req.params.chatbot_id).map(sourceResponse),
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
      return reply.code(201).send(sourceResponse(source));
    },
  });

  // A question and its answer, written by the owner: retrieved ahead of other passages when the question matches.
  app.post('/api/sources/chatbot/:chatbot_id/qa', {
    schema: {
      tags: ['sources'],
      security,
      params: chatbotParams,
      body: z.object({ question: qaQuestion, answer: qaAnswer }),
      response: { 201: sourceSchema },
    },
    handler: async (req, reply) =>
      reply
        .code(201)
        .send(sourceResponse(await knowledge.addQaSource(currentUser(req), req.params.chatbot_id, req.body))),
  });

  app.put('/api/sources/:source_id/qa', {
    schema: {
      tags: ['sources'],
      security,
      params: z.object({ source_id: z.string().min(1).max(100) }),
      body: z.object({ question: qaQuestion.optional(), answer: qaAnswer.optional() }),
      response: { 200: sourceSchema },
    },
    handler: async (req) =>
      sourceResponse(await knowledge.updateQaSource(currentUser(req), req.params.source_id, req.body)),
  });

  const gapParams = z.object({ chatbot_id: z.string().min(1).max(100), gap_id: z.string().min(1).max(100) });

  // Answer gaps: questions the agent could not answer well, grouped, most asked first.
  app.get('/api/chatbots/:chatbot_id/gaps', {
    schema: {
      tags: ['gaps'],
      security,
      params: chatbotParams,
      querystring: z.object({ status: z.enum(['open', 'answered', 'dismissed']).default('open') }),
      response: { 200: gapSchema.array() },
    },
    handler: async (req) => gaps.list(currentUser(req), req.params.chatbot_id, req.query.status).map(gapResponse),
  });

  app.post('/api/chatbots/:chatbot_id/gaps/:gap_id/answer', {
    schema: {
      tags: ['gaps'],
      security,
      params: gapParams,
      body: z.object({ answer: qaAnswer, question: qaQuestion.optional() }),
      response: { 201: z.object({ gap: gapSchema, source: sourceSchema }) },
    },
    handler: async (req, reply) => {
      const { gap, source } = await gaps.answer(currentUser(req), req.params.chatbot_id, req.params.gap_id, req.body);
      return reply.code(201).send({ gap: gapResponse(gap), source: sourceResponse(source) });
    },
  });

  app.post('/api/chatbots/:chatbot_id/gaps/:gap_id/dismiss', {
    schema: { tags: ['gaps'], security, params: gapParams, response: { 200: gapSchema } },
    handler: async (req) => gapResponse(gaps.dismiss(currentUser(req), req.params.chatbot_id, req.params.gap_id)),
  });

  app.post('/api/sources/chatbot/:chatbot_id/file', {
    schema: {
      tags: ['sources'],
      security,
      params: chatbotParams,
      consumes: ['multipart/form-data'],
      response: { 201: sourceSchema },
    },
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
    schema: {
      tags: ['sources'],
      security,
      params: chatbotParams,
      consumes: ['multipart/form-data', 'application/json'],
      response: { 201: sourceSchema },
    },
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

  // A website source crawled again with its settings; its passages keep answering meanwhile.
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
