import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { clientBlock } from '../../platform/http/client-address.js';
import { tooManyRequests } from '../../platform/http/errors.js';
import type { Plan } from '../../config/plans.js';
import type { PlanHolder, PlanService } from './plans.js';
import type { RateLimiter } from './rate-limiter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is not rate limited (health checks) */
    rateLimit?: boolean;
    /**
     * The route serves an agent's website visitors (public info, chat, lead): it takes the agent
     * from the `chatbot_id` param, is rate limited under the agent owner's plan, and answers CORS
     * according to the agent's `allowed_domains`.
     */
    visitorFacing?: boolean;
  }
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  plans: PlanService;
  /** the account by id: on visitor-facing routes, the owner of the agent the visitor CORS hook found */
  accountOf: (userId: string) => PlanHolder & { id: string };
}

/** Headers a cross-origin widget must be able to read to show a useful "slow down". */
export const RATE_LIMIT_HEADERS = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/**
 * Plan request rates (docs/API.md "Plans"): per account on bearer routes, per client address on
 * public routes. Visitor-facing routes use the agent owner's plan and count the address per
 * owner, so one owner's busy site does not use up another's allowance; other public routes
 * (login, register, docs) use the default plan. The client address is `request.ip`, which
 * believes X-Forwarded-For only when TRUST_PROXY is set; IPv6 addresses count per /64, the
 * block one subscriber usually holds, so rotating addresses within it does not escape the limit.
 *
 * Runs as an onRequest hook after authentication, before the body is read.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: RateLimitOptions) => {
    // synchronous (a throw becomes the error answer): no promise per request
    app.addHook('onRequest', (request, reply, done) => {
      if (request.is404 || request.routeOptions.config.rateLimit === false) return done();
      const { key, plan } = rateSubject(request, opts);
      const decision = planRate(opts.limiter, key, plan);
      reply.header('RateLimit-Limit', decision.limit);
      reply.header('RateLimit-Remaining', decision.remaining);
      reply.header('RateLimit-Reset', decision.resetS);
      if (!decision.allowed) {
        throw tooManyRequests(
          `Rate limit exceeded: at most ${decision.limit} requests in this window; try again in ${decision.retryAfterS} s`,
          decision.retryAfterS,
        );
      }
      done();
    });
  },
  // after the account (authentication) and the visitor's agent (visitor CORS, which also lets a browser read the 429)
  { name: 'rate-limit', dependencies: ['authentication', 'visitor-cors'] },
);

/** One request counted against a plan's per-minute and per-hour rates under `key`. */
export function planRate(
  limiter: RateLimiter,
  key: string,
  plan: Pick<Plan, 'requests_per_minute' | 'requests_per_hour'>,
) {
  return limiter.hit(key, [
    { seconds: 60, max: plan.requests_per_minute },
    { seconds: 3600, max: plan.requests_per_hour },
  ]);
}

function rateSubject(request: FastifyRequest, opts: RateLimitOptions) {
  if (request.user) return { key: `account:${request.user.id}`, plan: opts.plans.planOf(request.user) };
  const address = `address:${clientBlock(request.ip)}`;
  const owner =
    request.routeOptions.config.visitorFacing && request.visitorAgent
      ? opts.accountOf(request.visitorAgent.user_id)
      : undefined;
  if (owner) return { key: `${address}:owner:${owner.id}`, plan: opts.plans.planOf(owner) };
  return { key: address, plan: opts.plans.defaultPlan() };
}
