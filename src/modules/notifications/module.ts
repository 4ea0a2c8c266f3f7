import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AuthRepo } from '../auth/index.js';
import { WebPush } from './push.js';
import { NotificationsRepo } from './repo.js';
import { NotificationsService, type Person } from './service.js';

export interface NotificationsDeps {
  db: Db;
  config: Config;
  clock: Clock;
  /** the auth module's users repository (shared: one cache of users) */
  users: AuthRepo;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** notifications to people (tests wait on `notifications.idle()` for the pushes under way) */
    notifications: NotificationsService;
  }
}

/**
 * Notifications that reach a person: preferences, push subscriptions, the VAPID keys (made on the
 * first start) and the open tabs' stream. The chat module tells it what happened (app.ts).
 */
export function createNotifications(app: FastifyInstance, deps: NotificationsDeps) {
  const { db, config, clock, users } = deps;
  const repo = new NotificationsRepo(db);
  const people = (accountId: string): Person[] => {
    const owner = users.findUserById(accountId);
    return [
      ...(owner ? [{ id: owner.id, email: owner.email, team_role: 'owner' as const }] : []),
      ...users.listMembers(accountId).map((u) => ({
        id: u.id,
        email: u.email,
        team_role: (u.team_role === 'operator' ? 'operator' : 'manager') as Person['team_role'],
      })),
    ];
  };
  const push = new WebPush({
    repo,
    dataDir: config.dataDir,
    allowPrivateUrls: config.allowPrivateUrls,
    clock,
    log: app.log,
    subject: () => vapidSubject(config.publicUrl, users),
  });
  const notifications = new NotificationsService({
    repo,
    push,
    clock,
    log: app.log,
    allowPrivateUrls: config.allowPrivateUrls,
    people,
  });
  app.decorate('notifications', notifications);
  app.addHook('onReady', async () => push.start());
  app.addHook('onClose', async () => notifications.idle());
  return { notifications };
}

/** The public URL when it is https, else a mailto: of the server's first admin (RFC 8292 "sub"). */
function vapidSubject(publicUrl: string, users: AuthRepo): string {
  if (publicUrl.startsWith('https://')) return publicUrl;
  const admin = users
    .listUsers()
    .filter((u) => u.role === 'admin')
    .at(-1);
  return `mailto:${admin?.email ?? `postmaster@${new URL(publicUrl).hostname}`}`;
}
