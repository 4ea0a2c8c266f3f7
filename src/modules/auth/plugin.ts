import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { forbidden } from '../../platform/http/errors.js';
import type { Actor, AuthService, AuthUser, TeamRole } from './service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** true: the route needs no bearer token. Everything else does; there is no URL-prefix rule. */
    public?: boolean;
    /** the route needs role admin (the actor's own server role) */
    adminOnly?: boolean;
    /**
     * The least team role the route allows (owner > manager > operator); `manager` when not given,
     * so an operator reaches only the routes that say `operator` (docs/API-NOTES.md "Team").
     */
    teamRole?: TeamRole;
  }
  interface FastifyRequest {
    /** set on every non-public route before its handler runs */
    user: AuthUser | null;
  }
}

/** The caller of an authenticated route (the hook guarantees it is there). */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new Error('currentUser() on a route without authentication');
  return request.user;
}

/** The person calling an authenticated route (a teammate or the owner): for routes about one's self. */
export function currentActor(request: FastifyRequest): Actor {
  return currentUser(request).actor;
}

const RANK: Record<TeamRole, number> = { operator: 1, manager: 2, owner: 3 };

/** Why the route refuses this caller (adminOnly, teamRole), or undefined. */
function refusal(config: FastifyRequest['routeOptions']['config'], user: AuthUser): Error | undefined {
  if (config.adminOnly && user.actor.role !== 'admin') return forbidden('Admin role required');
  const needed = config.teamRole ?? 'manager';
  if (RANK[user.actor.team_role] < RANK[needed]) {
    return forbidden(`Your team role (${user.actor.team_role}) does not allow this; it needs ${needed} or above`);
  }
  return undefined;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Authentication is the default: an onRequest hook on the root instance authenticates every
 * matched route unless its options say `config: { public: true }`.
 */
export const authenticationPlugin = fp(
  async (app: FastifyInstance, opts: { auth: AuthService }) => {
    app.decorateRequest('user', null);
    // callback style: a public route (the busy ones) passes without a promise or a microtask hop
    app.addHook('onRequest', (request, _reply, done) => {
      const config = request.routeOptions.config;
      if (request.is404 || config.public) return done(); // unknown routes answer 404, not 401
      opts.auth.authenticate(bearerToken(request)).then((user) => {
        request.user = user;
        done(refusal(config, user));
      }, done);
    });
  },
  { name: 'authentication' },
);
