import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../auth/index.js';
import type { AnswerGapsService, GapRow } from './gaps.js';
import type { KnowledgeService } from './service.js';
import { qaAnswer, qaQuestion } from './source-fields.js';
import { sourceResponse, sourceSchema } from './source-schemas.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

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
  check_reason: z
    .string()
    .nullable()
    .describe(
      'answered gaps: "check this", why its answer may be out of date (a sync changed the page it answers from)',
    ),
});

function gapResponse(row: GapRow & { check_reason?: string | null }): z.infer<typeof gapSchema> {
  return {
    ...row,
    reasons: row.reasons as z.infer<typeof gapSchema>['reasons'],
    check_reason: row.check_reason ?? null,
  };
}

/**
 * The owner's own answers: question-and-answer sources, and the answer gaps (questions the agent
 * could not answer well) that such an answer closes. Registered by knowledgeRoutes (routes.ts), in
 * its place among the source routes.
 */
export function qaRoutes(
  app: Parameters<FastifyPluginAsyncZod>[0],
  { knowledge, gaps }: { knowledge: KnowledgeService; gaps: AnswerGapsService },
): void {
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });

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
    config: OPERATOR_ALLOWED,
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
    config: OPERATOR_ALLOWED,
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
    config: OPERATOR_ALLOWED,
    schema: { tags: ['gaps'], security, params: gapParams, response: { 200: gapSchema } },
    handler: async (req) => gapResponse(gaps.dismiss(currentUser(req), req.params.chatbot_id, req.params.gap_id)),
  });
}
