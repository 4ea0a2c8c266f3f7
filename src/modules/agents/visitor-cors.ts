import type { FastifyInstance, RouteShorthandOptionsWithHandler } from 'fastify';
import fp from 'fastify-plugin';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { RATE_LIMIT_HEADERS } from '../limits/index.js';
import { originMatches } from './origins.js';
import type { AgentsService } from './service.js';
import type { ChatbotRow } from './tables.js';

/**
 * CORS for the routes a website visitor's browser calls (`config.visitorFacing`: public agent
 * info, chat and lead). Only these routes ever send CORS headers; the bearer routes send none, so
 * no other site's script can read an owner's data with the owner's browser.
 *
 * An agent with an empty `allowed_domains` works on any site (`public_access` governs; docs/API.md "Objects"). A
 * non-empty list refuses requests whose `Origin` matches none of its patterns with 403 and sends
 * no CORS headers to them. The app's own origin (PUBLIC_URL, or the request's own host: the share
 * page and the admin UI's preview) is always allowed. Requests without an `Origin` (servers,
 * curl) are not refused: the list is a rule for browsers, which always send it cross-origin; it
 * is not authentication.
 *
 * CORS is written by hand rather than with @fastify/cors because the decision needs the agent's
 * row, which a CORS plugin's per-request hook sees only as a raw URL before routing.
 */
export const visitorCorsPlugin = fp(
  async (app: FastifyInstance, opts: { agents: AgentsService; publicUrl: string }) => {
    const ownOrigin = new URL(opts.publicUrl).origin;
    app.decorateRequest('visitorAgent', null);
    // synchronous (a throw becomes the error answer): no promise per request
    app.addHook('onRequest', (request, reply, done) => {
      if (request.is404 || !request.routeOptions.config.visitorFacing) return done();
      const chatbotId = (request.params as { chatbot_id?: unknown }).chatbot_id;
      const agent =
        typeof chatbotId === 'string' && chatbotId.length <= 100 ? opts.agents.findById(chatbotId) : undefined;
      request.visitorAgent = agent ?? null;
      const origin = request.headers.origin;
      if (!origin) return done();
      const own = origin === ownOrigin || sameHost(origin, request.headers.host);
      if (agent && agent.allowed_domains.length > 0 && !own && !originMatches(agent.allowed_domains, origin)) {
        throw forbidden(
          "This website is not allowed to use this chatbot (its address is not in the chatbot's allowed domains)",
        );
      }
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header('Access-Control-Expose-Headers', RATE_LIMIT_HEADERS.join(', '));
      done();
    });
  },
  // its hook runs after the account is known (authentication's hook), as it always has
  { name: 'visitor-cors', dependencies: ['authentication'] },
);

function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** on visitor-facing routes: the agent named by `chatbot_id`, or null when there is none */
    visitorAgent: ChatbotRow | null;
  }
}

/**
 * The CORS preflight (OPTIONS) of a visitor-facing route; register it beside the route. The hook
 * above has already refused an origin the agent does not allow; an unknown agent is 404, like
 * the route it precedes. `extraHeaders`: request headers the route reads beyond these (a visitor
 * token's Authorization).
 */
export const visitorPreflight = (extraHeaders: string[] = []): RouteShorthandOptionsWithHandler => ({
  config: { public: true, visitorFacing: true },
  schema: { hide: true },
  handler: async (request, reply) => {
    if (!request.visitorAgent) throw notFound('Chatbot');
    if (request.headers.origin) {
      reply.header('Access-Control-Allow-Methods', 'GET, POST');
      reply.header('Access-Control-Allow-Headers', ['Content-Type', 'Accept', ...extraHeaders].join(', '));
      reply.header('Access-Control-Max-Age', '600');
    }
    return reply.code(204).send();
  },
});
