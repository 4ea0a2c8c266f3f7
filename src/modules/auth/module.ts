import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { Mailer } from '../../platform/mail/index.js';
import { AuthRepo } from './repo.js';
import { AuthService } from './service.js';

/** How often expired sessions are removed. */
const SESSION_SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface AuthDeps {
  db: Db;
  config: Config;
  clock: Clock;
  /** sends password-reset links */
  mailer: Mailer;
  report: (what: string) => (err: unknown) => void;
}

/** Accounts and sessions, and the hourly sweep of expired sessions. */
export function createAuth(app: FastifyInstance, deps: AuthDeps) {
  // one repository (and so one cache of users) for every module that reads or changes users
  const users = new AuthRepo(deps.db);
  const auth = new AuthService({
    repo: users,
    config: deps.config,
    clock: deps.clock,
    mailer: deps.mailer,
    // sessions are not renewed or saved on a disk known to be full: kept in memory meanwhile
    writable: () => app.databaseCondition.current().state !== 'full',
    onWriteFailed: (what, err) => deps.report(what)(err),
  });
  // Expired sessions are refused on use anyway; this only keeps the table small.
  const sweep = setInterval(() => {
    try {
      auth.purgeExpiredSessions();
    } catch (err) {
      deps.report('removing expired sessions')(err);
    }
  }, SESSION_SWEEP_EVERY_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
  return {
    auth,
    /** the account by id: the one owner lookup (plans, quotas, agents' status, branding) */
    accountOf: (userId: string) => auth.getUser(userId),
    /** the users' repository the auth service uses (its cache forgets what any module changes through it) */
    users,
  };
}
