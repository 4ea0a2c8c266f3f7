import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { AuthRepo, AuthService } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { TeamRepo } from './repo.js';
import { SavedReplies } from './saved-replies.js';
import { TeamService } from './service.js';

export interface TeamDeps {
  db: Db;
  config: Config;
  clock: Clock;
  auth: AuthService;
  /** the auth module's users repository (shared: one cache of users) */
  users: AuthRepo;
  plans: PlanService;
  /** sends invitation links */
  mailer: Mailer;
  report: (what: string) => (err: unknown) => void;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Teammates, and the audit log: who made each change. One onResponse hook records every
 * authenticated POST/PUT/PATCH/DELETE that answered 2xx (added before the routes, so it covers them
 * all). A deletion clears the parameters of the rows that named the deleted object (erasure).
 */
export function createTeam(app: FastifyInstance, deps: TeamDeps) {
  const repo = new TeamRepo(deps.db);
  const team = new TeamService({
    repo,
    users: deps.users,
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
    const route = req.routeOptions.url ?? req.url;
    const params = (req.params ?? {}) as Record<string, string>;
    // a deletion (an erasure among them) leaves no id of the deleted object in the log
    const deleted = req.method === 'DELETE' ? /:([a-z_]+)$/.exec(route)?.[1] : undefined;
    try {
      repo.transaction(() => {
        if (deleted && params[deleted]) repo.forgetInAudit(user.id, deleted, params[deleted]);
        repo.insertAudit({
          account_id: user.id,
          actor_user_id: user.actor.id,
          method: req.method,
          route,
          params: deleted ? '{}' : JSON.stringify(params),
          status: reply.statusCode,
          at: isoNow(deps.clock),
        });
      });
    } catch (err) {
      deps.report('recording a change in the audit log')(err);
    }
    done();
  });
  return { team, audit: repo, savedReplies: new SavedReplies(deps.db, deps.clock) };
}
