import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DatabaseConditionReport } from '../../platform/db/condition.js';
import type { BackupScheduleStatus } from '../backup/index.js';

export interface HealthRouteOptions {
  version: string;
  /** full disk or damage, as the database condition knows it */
  database: () => DatabaseConditionReport;
  /** whether the database answers a query now */
  databaseAnswers: () => boolean;
  /** null when no backups are scheduled */
  backups: () => BackupScheduleStatus | null;
}

/** GET /api/health: what monitors and the container HEALTHCHECK poll. */
export const healthRoutes: FastifyPluginAsyncZod<HealthRouteOptions> = async (
  app,
  { version, database, databaseAnswers, backups },
) => {
  app.get('/api/health', {
    // monitors and the container HEALTHCHECK poll it; it reads nothing an abuser could use
    config: { public: true, rateLimit: false },
    schema: {
      tags: ['health'],
      summary:
        'ok; degraded (200) when scheduled backups fail; error (503) when the disk is full or the database damaged',
      response: {
        200: z.object({
          status: z.enum(['ok', 'degraded']),
          version: z.string(),
          database: z.literal('ok'),
          backups: z.enum(['ok', 'failing']).optional().describe('only when backups are scheduled'),
          detail: z.string().optional().describe('what is wrong, when something is'),
        }),
        503: z.object({
          status: z.literal('error'),
          version: z.string(),
          database: z.enum(['full', 'corrupt', 'error']),
          backups: z.enum(['ok', 'failing']).optional(),
          detail: z.string(),
        }),
      },
    },
    // whether mail goes out is for the signed-in owner (GET /api/system/status), not for anyone;
    // the failing backup's own message names folders, so only the admin status carries it
    handler: async (_req, reply) => {
      const backupStatus = backups();
      const backupState = backupStatus
        ? { backups: backupStatus.failing ? ('failing' as const) : ('ok' as const) }
        : {};
      const condition = database();
      if (condition.state !== 'ok') {
        return reply.code(503).send({
          status: 'error' as const,
          version,
          database: condition.state,
          ...backupState,
          detail: condition.detail!,
        });
      }
      if (!databaseAnswers()) {
        return reply.code(503).send({
          status: 'error' as const,
          version,
          database: 'error' as const,
          ...backupState,
          detail: 'The database does not answer.',
        });
      }
      if (backupState.backups === 'failing') {
        return {
          status: 'degraded' as const,
          version,
          database: 'ok' as const,
          ...backupState,
          detail: 'The last scheduled backup failed; the admin status and the server log say why.',
        };
      }
      return { status: 'ok' as const, version, database: 'ok' as const, ...backupState };
    },
  });
};
