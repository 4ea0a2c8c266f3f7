import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser, OPERATOR_ALLOWED } from '../auth/index.js';
import type { KnowledgeService } from './service.js';
import { sourceResponse, sourceSchema } from './source-schemas.js';
import type { SyncRepo } from './sync-repo.js';
import { SYNC_INTERVALS, type SyncSchedule } from './sync-schedule.js';

const syncRecord = z.object({
  id: z.string(),
  trigger: z.enum(['scheduled', 'manual']),
  status: z.enum(['completed', 'failed']),
  error: z.string().nullable().describe('why a failed sync changed nothing'),
  added: z.number().int(),
  changed: z.number().int(),
  removed: z.number().int(),
  unchanged: z.number().int(),
  details: z.object({
    added: z.string().array(),
    changed: z.object({ url: z.string(), summary: z.string() }).array(),
    removed: z.string().array(),
  }),
  started_at: z.string(),
  finished_at: z.string(),
});

/** A website source's schedule and the record of its syncs (docs/API-NOTES.md "Website sync"). */
export function syncRoutes(
  app: FastifyInstance,
  { knowledge, syncs, syncRepo }: { knowledge: KnowledgeService; syncs: SyncSchedule; syncRepo: SyncRepo },
): void {
  const security = [{ bearer: [] }];
  const params = z.object({ source_id: z.string().min(1).max(100) });
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.put('/api/sources/:source_id/sync', {
    schema: {
      tags: ['sources'],
      security,
      params,
      summary: 'How often a website source syncs by itself: off, daily or weekly (the next run is next_sync_at)',
      body: z.object({ interval: z.enum(SYNC_INTERVALS) }),
      response: { 200: sourceSchema },
    },
    handler: async (req) => sourceResponse(syncs.set(currentUser(req), req.params.source_id, req.body.interval)),
  });

  routes.get('/api/sources/:source_id/syncs', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['sources'],
      security,
      params,
      summary: "A website source's last syncs, newest first: pages added, changed (with what changed) and removed",
      response: { 200: syncRecord.array() },
    },
    handler: async (req) => {
      const source = knowledge.ownedSource(currentUser(req), req.params.source_id);
      return syncRepo.syncsOf(source.id).map(({ source_id: _source, ...row }) => row);
    },
  });
}
