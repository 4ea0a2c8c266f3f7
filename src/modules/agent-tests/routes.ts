import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../auth/index.js';
import type { TestRunner } from './runner.js';
import { type AgentTestsService, MAX_CSV_CHARS, MAX_PHRASE_CHARS, MAX_PHRASES, MAX_QUESTION_CHARS } from './service.js';
import { TEST_ORIGINS } from './tables.js';

const testSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  question: z.string(),
  expected_phrases: z.array(z.string()).describe('all must be in a right answer (no case, accents or extra spaces)'),
  expected_source_id: z.string().nullable().describe('a right answer comes from this source'),
  expected_source_name: z.string().nullable().describe("the source's name when the test was saved"),
  origin: z.enum(TEST_ORIGINS),
  conversation_id: z
    .string()
    .nullable()
    .describe('made from an answer: its conversation (erasing it deletes the test)'),
  created_at: z.string(),
  updated_at: z.string(),
});
const resultSchema = z.object({
  test_id: z.string(),
  question: z.string(),
  passed: z.boolean(),
  answer: z.string(),
  sources: z.array(z.object({ source_id: z.string(), name: z.string() })),
  reason: z.string().nullable().describe('why it failed, in plain words; null when it passed'),
});
const runSummary = z.object({
  id: z.string(),
  trigger: z.enum(['manual', 'auto']),
  with_model: z.boolean().describe("the agent's model answered; false: the answer quoted from the knowledge"),
  passed: z.number().int(),
  failed: z.number().int(),
  regressions: z.array(z.string()).describe('ids of the tests that passed in the run before and fail in this one'),
  started_at: z.string(),
  finished_at: z.string(),
});
const runSchema = runSummary.extend({ results: z.array(resultSchema) });
const settingsSchema = z.object({ auto_run_with_model: z.boolean() });

const question = z.string().max(MAX_QUESTION_CHARS * 2);
const phrases = z.array(z.string().max(MAX_PHRASE_CHARS * 2)).max(MAX_PHRASES * 2);
const sourceId = z.string().max(100).nullable().optional();
const id = z.string().min(1).max(100);
const fromSchema = z.union([
  z.object({ message_id: id }).strict(),
  z.object({ gap_id: id }).strict(),
  z.object({ source_id: id }).strict(),
]);

/** An agent's test questions, their runs and settings (docs/API-NOTES.md "Test questions"). Owners and managers. */
export const agentTestRoutes: FastifyPluginAsyncZod<{ tests: AgentTestsService; runner: TestRunner }> = async (
  app,
  { tests, runner },
) => {
  const security = [{ bearer: [] }];
  const tags = ['tests'];
  const params = z.object({ chatbot_id: id });
  const testParams = z.object({ chatbot_id: id, test_id: id });
  const base = '/api/chatbots/:chatbot_id/tests';

  app.get(base, {
    schema: { tags, security, params, summary: "The agent's test questions", response: { 200: testSchema.array() } },
    handler: async (req) => tests.list(currentUser(req), req.params.chatbot_id),
  });

  app.post(base, {
    schema: {
      tags,
      security,
      params,
      summary:
        'Adds a test question: written out ({question, expected_phrases, expected_source_id?}), or made ' +
        '`from` an answer (message_id: the visitor question before it), an answered gap (gap_id) or a Q&A source (source_id)',
      body: z.union([
        z.object({ question, expected_phrases: phrases, expected_source_id: sourceId }).strict(),
        z.object({ from: fromSchema }).strict(),
      ]),
      response: { 201: testSchema },
    },
    handler: async (req, reply) => {
      const user = currentUser(req);
      const body = req.body;
      const made =
        'from' in body
          ? tests.createFrom(user, req.params.chatbot_id, body.from)
          : tests.create(user, req.params.chatbot_id, body);
      return reply.code(201).send(made);
    },
  });

  app.patch(`${base}/:test_id`, {
    schema: {
      tags,
      security,
      params: testParams,
      body: z.object({
        question: question.optional(),
        expected_phrases: phrases.optional(),
        expected_source_id: sourceId,
      }),
      response: { 200: testSchema },
    },
    handler: async (req) => tests.update(currentUser(req), req.params.chatbot_id, req.params.test_id, req.body),
  });

  app.delete(`${base}/:test_id`, {
    schema: { tags, security, params: testParams, summary: 'Deletes the test question' },
    handler: async (req, reply) => {
      tests.remove(currentUser(req), req.params.chatbot_id, req.params.test_id);
      return reply.code(204).send();
    },
  });

  app.post(`${base}/import`, {
    schema: {
      tags,
      security,
      params,
      summary:
        'Imports test questions from CSV text (columns question, expected_phrases separated by | or ;, expected_source ' +
        'as id or name): the good rows are stored, the bad ones listed with their line',
      body: z.object({ csv: z.string().max(MAX_CSV_CHARS) }),
      response: {
        200: z.object({
          imported: z.number().int(),
          tests: testSchema.array(),
          errors: z.array(z.object({ line: z.number().int(), detail: z.string() })),
        }),
      },
    },
    handler: async (req) => {
      const { imported, errors } = tests.importCsv(currentUser(req), req.params.chatbot_id, req.body.csv);
      return { imported: imported.length, tests: imported, errors };
    },
  });

  app.post(`${base}/run`, {
    schema: {
      tags,
      security,
      params,
      summary:
        "Runs the agent's tests now and answers their results: the model's answers with a provider key, else the " +
        'answer quoted from the knowledge. Stores no conversation and counts no message',
      response: { 200: runSchema },
    },
    handler: async (req) => runner.runNow(currentUser(req), req.params.chatbot_id),
  });

  app.get(`${base}/runs`, {
    schema: {
      tags,
      security,
      params,
      summary: "The agent's latest runs, newest first (the last 50 are kept)",
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(50).default(20) }),
      response: { 200: runSummary.array() },
    },
    handler: async (req) => runner.runs(currentUser(req), req.params.chatbot_id, req.query.limit),
  });

  app.get(`${base}/runs/:run_id`, {
    schema: { tags, security, params: z.object({ chatbot_id: id, run_id: id }), response: { 200: runSchema } },
    handler: async (req) => runner.runDetail(currentUser(req), req.params.chatbot_id, req.params.run_id),
  });

  app.get(`${base}/settings`, {
    schema: { tags, security, params, response: { 200: settingsSchema } },
    handler: async (req) => tests.settings(currentUser(req), req.params.chatbot_id),
  });

  app.put(`${base}/settings`, {
    schema: {
      tags,
      security,
      params,
      summary: 'auto_run_with_model: runs after a knowledge change ask the model too (it costs money; off by default)',
      body: settingsSchema,
      response: { 200: settingsSchema },
    },
    handler: async (req) => tests.saveSettings(currentUser(req), req.params.chatbot_id, req.body),
  });
};
