import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser, type AuthUser } from '../auth/index.js';
import type { PlanService } from './plans.js';
import type { MessageQuota } from './quota.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

export interface UsageDeps {
  plans: PlanService;
  quota: MessageQuota;
  /** bytes the account's knowledge takes, and its plan's room (knowledge/storage-quota.ts) */
  storage: { usedBy(accountId: string): number; limitOf(accountId: string): number };
  /** the account's agents */
  agentCount: (user: AuthUser) => number;
}

const usageSchema = z.object({
  plan_id: z.string(),
  plan_expires_at: z.string().nullable(),
  /** the calendar month (UTC) the message count is for, e.g. 2026-11 */
  month: z.string(),
  messages: z.object({ used: z.number().int(), max: z.number().int() }),
  storage: z.object({ used_bytes: z.number().int(), max_bytes: z.number().int() }),
  agents: z.object({ used: z.number().int(), max: z.number().int() }),
});

export type Usage = z.infer<typeof usageSchema>;

/** What the account uses against its plan: the dashboard's usage panel. */
export function usageOf(deps: UsageDeps, user: AuthUser): Usage {
  const plan = deps.plans.planOf(user);
  const messages = deps.quota.usage(user);
  return {
    plan_id: user.plan_id,
    plan_expires_at: user.plan_expires_at,
    month: messages.month,
    messages: { used: messages.used, max: messages.max },
    storage: { used_bytes: deps.storage.usedBy(user.id), max_bytes: deps.storage.limitOf(user.id) },
    agents: { used: deps.agentCount(user), max: plan.max_agents },
  };
}

/** Beyond the spec: `GET /api/usage`, the caller's own usage (nobody else's). */
export const usageRoutes: FastifyPluginAsyncZod<UsageDeps> = async (app, deps) => {
  app.get('/api/usage', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['limits'],
      summary: "The caller's messages this month, knowledge storage and agents, each against the plan's limit",
      security: [{ bearer: [] }],
      response: { 200: usageSchema },
    },
    handler: async (req) => usageOf(deps, currentUser(req)),
  });
};
