import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../auth/index.js';
import { DEFAULT_DAYS, MAX_DAYS, MIN_DAYS, type AnalyticsService } from './service.js';

const daysMessage = `must be an integer from ${MIN_DAYS} to ${MAX_DAYS}`;

/**
 * `days` as sent: digits only. z.coerce.number() would take '1.5' (then fail int), '1e2', ' 7 ' or
 * '0x10', and Number('') is 0; checking the raw string first refuses anything that is not plainly
 * a whole number, and every failure names `days` (400 `days: must be an integer from 1 to 365`).
 */
export const days = z
  .string()
  .regex(/^[0-9]{1,6}$/, daysMessage)
  .transform(Number)
  .pipe(z.number().int().min(MIN_DAYS, daysMessage).max(MAX_DAYS, daysMessage))
  .default(DEFAULT_DAYS)
  .describe(`days in the window ending today (UTC), ${MIN_DAYS} to ${MAX_DAYS}; default ${DEFAULT_DAYS}`);

const windowQuery = z.object({ days });
const count = z.number().int();

const share = z.number().min(0).max(1);

/** Outcomes of the window (issue 23.7): added fields, both on an agent and on the dashboard. */
const outcomes = {
  conversations_resolved: count.describe('conversations created in the window whose status is resolved now'),
  resolution_rate: share.describe(
    'conversations_resolved / conversations created in the window; 3 decimals; 0 when none',
  ),
  escalations: count.describe('conversations whose escalated_at falls in the window'),
  thumbs_up: count.describe("the agent's answers sent in the window and rated thumbs up (by the answer's timestamp)"),
  thumbs_down: count.describe(
    "the agent's answers sent in the window and rated thumbs down (by the answer's timestamp)",
  ),
  thumbs_up_ratio: share.nullable().describe('thumbs_up / (thumbs_up + thumbs_down); 3 decimals; null when none'),
};

const unanswered = z.object({
  id: z.string(),
  question: z.string(),
  count,
  reasons: z.array(z.string()),
  last_seen_at: z.string(),
});

const dashboardSchema = z.object({
  total_conversations: count,
  total_messages: count,
  active_chatbots: count,
  total_chatbots: count,
  total_leads: count,
  ...outcomes,
  top_unanswered: unanswered
    .extend({ chatbot_id: z.string(), chatbot_name: z.string() })
    .array()
    .describe("the 10 most asked open answer gaps over the account's agents (not windowed)"),
});

const agentAnalyticsSchema = z.object({
  total_conversations: count,
  total_messages: count,
  date_range: z.array(z.string()),
  conversations_by_date: z.record(z.string(), count),
  messages_by_date: z.record(z.string(), count),
  ...outcomes,
  top_unanswered: unanswered.array().describe("the agent's 10 most asked open answer gaps (not windowed)"),
});

const trendPoint = z.object({ date: z.string(), count });
const trendsSchema = z.object({
  conversations: trendPoint.array(),
  messages: trendPoint.array(),
  avg_response_time: z.string(),
});

export const analyticsRoutes: FastifyPluginAsyncZod<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  const security = [{ bearer: [] }];

  app.get('/api/analytics/dashboard', {
    // `days` sets the window of the outcome figures only; the totals stay all-time
    schema: { tags: ['analytics'], security, querystring: windowQuery, response: { 200: dashboardSchema } },
    handler: async (req) => analytics.dashboard(currentUser(req), req.query.days),
  });

  app.get('/api/analytics/chatbot/:chatbot_id', {
    schema: {
      tags: ['analytics'],
      security,
      params: z.object({ chatbot_id: z.string().min(1).max(100) }),
      querystring: windowQuery,
      response: { 200: agentAnalyticsSchema },
    },
    handler: async (req) => analytics.agent(currentUser(req), req.params.chatbot_id, req.query.days),
  });

  app.get('/api/analytics/trends', {
    schema: { tags: ['analytics'], security, querystring: windowQuery, response: { 200: trendsSchema } },
    handler: async (req) => analytics.trends(currentUser(req), req.query.days),
  });
};
