import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { Mailer } from '../../platform/mail/index.js';
import { AuthRepo, type AuthService } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { TeamRepo } from './repo.js';
import { TeamService } from './service.js';

export interface TeamDeps {
  db: Db;
  config: Config;
  clock: Clock;
  auth: AuthService;
  plans: PlanService;
  /** sends invitation links */
  mailer: Mailer;
  report: (what: string) => (err: unknown) => void;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Teammates, and the audit log: who made each change. One onResponse hook records every
 * authenticated POST/PUT/PATCH/DELETE that answered 2xx (added before the routes, so it covers them all).
 */
export function createTeam(app: FastifyInstance, deps: TeamDeps) {
  const repo = new TeamRepo(deps.db);
  const team = new TeamService({
    repo,
    users: new AuthRepo(deps.db),
    auth: deps.auth,
    plans: deps.plans,
    mailer: deps.mailer,
    config: deps.config,
    clock: deps.clock,
    log: app.log,
  });
  app.addHook('onResponse', (req, reply, done) => {
    const user = req.user;
    if (!user || !CHANGES.has(req.method) || reply.statusCode < 200 || reply.statusCode > 299) return done();
    if (app.databaseCondition.current().state === 'full') return done();
    try {
      repo.insertAudit({
        account_id: user.id,
        actor_user_id: user.actor.id,
        method: req.method,
        route: req.routeOptions.url ?? req.url,
        params: JSON.stringify(req.params ?? {}),
        status: reply.statusCode,
        at: new Date(deps.clock.now().getTime()).toISOString(),
      });
    } catch (err) {
      deps.report('recording a change in the audit log')(err);
    }
    done();
  });
  return { team, audit: repo };
}
