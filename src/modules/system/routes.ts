import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EMBEDDINGS_CHOICES } from '../../providers/embeddings/index.js';
import { PROVIDER_NAMES, type ProviderName } from '../../providers/llm/catalog.js';
import { currentUser } from '../auth/index.js';
import type { SystemService } from './service.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

const registrationSchema = z.object({
  registration: z.enum(['open', 'closed', 'first-only']),
  open: z.boolean().describe('whether POST /api/auth/register would accept a new account now'),
  has_accounts: z
    .boolean()
    .describe('whether the server has any account; the first one registered is its owner (an admin)'),
});

const settingSource = z.enum(['environment', 'database', 'none']);

/** One field per provider of the catalog, in its order. */
function perProvider<T extends z.ZodType>(field: T): Record<ProviderName, T> {
  return Object.fromEntries(PROVIDER_NAMES.map((name) => [name, field])) as Record<ProviderName, T>;
}

const statusSchema = z.object({
  providers: z.object(perProvider(z.boolean())),
  knowledge_only: z.boolean(),
  embeddings: z.enum(EMBEDDINGS_CHOICES),
  mail: z.object({ configured: z.boolean(), pending: z.number().int() }),
  configured_by: z
    .object({ ...perProvider(settingSource), mail: settingSource })
    .describe(
      'where each provider key and the mail server come from: the environment (which wins), the settings an admin stored, or nowhere',
    ),
  plans: z.string().array(),
  public_url: z
    .string()
    .describe(
      'base URL of embed snippets, share links and e-mail links: PUBLIC_URL, or http://localhost:PORT when it is not set',
    ),
  public_url_configured: z.boolean().describe('whether PUBLIC_URL is set'),
  database: z
    .object({
      state: z.enum(['ok', 'full', 'corrupt']),
      detail: z.string().nullable().describe('what happened and what to do, when the state is not ok'),
      integrity_checked_at: z.string().nullable().describe('when the last quick_check ended (at start, then daily)'),
    })
    .describe('full: the disk is full, writes are refused and reads work; corrupt: a restore is needed'),
  backups: z.union([
    z.object({ scheduled: z.literal(false) }),
    z.object({
      scheduled: z.literal(true),
      last_success_at: z.string().nullable(),
      last_failure_at: z.string().nullable(),
      last_error: z
        .string()
        .nullable()
        .describe("the failure's message (an admin's view; others read only that it failed)"),
      failing: z.boolean().describe('the latest scheduled backup failed'),
    }),
  ]),
  tests: z.object({
    regressions: z
      .number()
      .int()
      .describe("test questions of the account's agents that passed before and fail in their agent's latest run"),
  }),
});

/** Beyond the spec: what the admin UI reads about the server's set-up. */
export const systemRoutes: FastifyPluginAsyncZod<{ system: SystemService }> = async (app, { system }) => {
  // The login page asks before anyone is logged in, to show or hide "Create an account".
  app.get('/api/auth/registration', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary: 'Whether registration is open (REGISTRATION, and under first-only whether an account exists)',
      response: { 200: registrationSchema },
    },
    handler: async () => system.registration(),
  });

  // Provider keys are named only as present or absent (and where they come from); the keys never leave the server.
  app.get('/api/system/status', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['system'],
      summary:
        'Which LLM providers have keys (and whether from the environment or stored settings), the embeddings mode, whether lead e-mail can be sent, the plan ids, PUBLIC_URL (whether it is set), the database state and the scheduled backups',
      security: [{ bearer: [] }],
      response: { 200: statusSchema },
    },
    handler: async (req) => system.status(currentUser(req)),
  });
};
