import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { userSchema, type AuthService } from '../auth/index.js';

const patchUserBody = z.object({
  role: z.enum(['user', 'admin']).optional(),
  status: z.enum(['active', 'suspended', 'banned']).optional(),
  plan_id: z.string().min(1).max(64).optional(),
  plan_expires_at: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s).toISOString())
    .nullable()
    .optional(),
});

/**
 * The admin API (docs/API-NOTES.md "Admin API"). Users belong to the auth feature; admin is only a door onto its service.
 * `adminOnly` is checked by the authentication hook, before the body is even parsed.
 */
export const adminRoutes: FastifyPluginAsyncZod<{ auth: AuthService }> = async (app, { auth }) => {
  const config = { adminOnly: true };
  const security = [{ bearer: [] }];

  app.get('/api/admin/users', {
    config,
    schema: { tags: ['admin'], security, response: { 200: userSchema.array() } },
    handler: async () => auth.listUsers(),
  });

  app.patch('/api/admin/users/:user_id', {
    config,
    schema: {
      tags: ['admin'],
      security,
      params: z.object({ user_id: z.string().min(1).max(100) }),
      body: patchUserBody,
      response: { 200: userSchema },
    },
    handler: async (req) => {
      const patch = Object.fromEntries(Object.entries(req.body).filter(([, v]) => v !== undefined));
      return auth.updateUser(req.params.user_id, patch);
    },
  });
};
