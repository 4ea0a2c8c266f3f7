import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Mailer } from '../../platform/mail/index.js';
import { EMBEDDINGS_CHOICES } from '../../providers/embeddings/index.js';
import { PROVIDER_NAMES, usesHost } from '../../providers/llm/catalog.js';
import type { ProviderRegistry } from '../../providers/llm/registry.js';
import type { ProviderName } from '../../providers/llm/types.js';
import { DEFAULT_MODEL } from '../agents/index.js';
import { currentUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import type { ServerSettings } from './service.js';

const providerName = z.enum(PROVIDER_NAMES);
const keyed = PROVIDER_NAMES.filter((name) => !usesHost(name));
const hosted = PROVIDER_NAMES.filter(usesHost);
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(FIELD_MAX.settings.base_url);
const apiKey = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(FIELD_MAX.settings.api_key)
  .regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces');
const smtpUrl = z
  .string()
  .trim()
  .max(FIELD_MAX.settings.smtp_url)
  .regex(/^smtps?:\/\/[^/?#\s]+/i, 'must be an smtp:// or smtps:// URL with a host')
  .refine((v) => URL.canParse(v), 'must be an smtp:// or smtps:// URL with a host');
const sender = z
  .string()
  .trim()
  .min(3)
  .max(FIELD_MAX.settings.smtp_from)
  .regex(/^[^\r\n]*@[^\r\n]*$/, 'must be an e-mail address, optionally with a name: Name <alerts@example.com>');

const source = z.enum(['environment', 'database', 'none']);
const common = {
  source: source.describe('environment: set by the environment variable, which wins; database: saved here; none'),
  configured: z.boolean().describe('in use now'),
  env_variable: z.string().describe('the environment variable that wins when set'),
  hint: z
    .string()
    .nullable()
    .describe('the last 4 characters of the key, or the host/URL without password or query; never the secret'),
  stored: z
    .enum(['none', 'readable', 'unreadable'])
    .describe('what the database holds, used or not; unreadable: the key file was lost or replaced, enter it again'),
  updated_at: z.string().nullable(),
};
const providerView = z.object({
  ...common,
  base_url: z.string().nullable().describe('the base URL in use, without credentials; null for the default'),
});
const smtpView = z.object({
  ...common,
  from: z.string().nullable().describe('the sender in use; null for the default'),
});
const settingsView = z.object({
  providers: z.object(
    Object.fromEntries(PROVIDER_NAMES.map((name) => [name, providerView])) as Record<ProviderName, typeof providerView>,
  ),
  smtp: smtpView,
  embeddings: z.enum(EMBEDDINGS_CHOICES).describe('EMBEDDINGS: environment-only'),
});
const testResult = z.object({ detail: z.string() });

/**
 * Server settings (beyond the spec; docs/CONFIGURATION.md "Server settings"): provider keys and the mail server,
 * set by an admin, stored encrypted, applied without a restart. Role admin only (403 for others,
 * checked before the body is read). No answer ever holds a key or a password: hints only.
 */
export const settingsRoutes: FastifyPluginAsyncZod<{
  settings: ServerSettings;
  providers: ProviderRegistry;
  mailer: Mailer;
  emailOf: (userId: string) => string;
}> = async (app, { settings, providers, mailer, emailOf }) => {
  // provider keys and mail are the server admin's, and never a teammate's even if made admin (docs/API-NOTES.md "Team")
  const config = { adminOnly: true, teamRole: 'owner' as const };
  const security = [{ bearer: [] }];
  const tags = ['admin'];

  app.get('/api/admin/settings', {
    config,
    schema: {
      tags,
      security,
      summary: 'Provider keys and the mail server: where each comes from, and a hint (never the secret)',
      response: { 200: settingsView },
    },
    handler: async () => settings.view(),
  });

  app.put('/api/admin/settings/providers/:provider', {
    config,
    schema: {
      tags,
      security,
      summary: 'Saves a provider key (and base URL), or the Ollama host; 409 while the environment sets that provider',
      params: z.object({ provider: providerName }),
      body: z.object({
        api_key: apiKey.optional().describe(keyed.join(', ')),
        base_url: httpUrl
          .nullable()
          .optional()
          .describe(`${keyed.join(', ')}: an OpenAI-compatible or proxy endpoint`),
        host: httpUrl.optional().describe(hosted.join(', ')),
      }),
      response: { 200: providerView },
    },
    handler: async (req) => settings.setProvider(req.params.provider, req.body, currentUser(req).id),
  });

  app.delete('/api/admin/settings/providers/:provider', {
    config,
    schema: {
      tags,
      security,
      summary: 'Removes the stored key (the environment, if it sets one, stays in use)',
      params: z.object({ provider: providerName }),
    },
    handler: async (req, reply) => {
      settings.remove(`provider.${req.params.provider}`);
      return reply.code(204).send();
    },
  });

  app.post('/api/admin/settings/providers/:provider/test', {
    config,
    schema: {
      tags,
      security,
      summary:
        "One 1-token completion with the provider as configured now, or with a key (host) typed and not saved: 200, 409 when it is not configured (or the environment sets it and a key is typed), 502 with the provider's error",
      params: z.object({ provider: providerName }),
      body: z.object({
        api_key: apiKey
          .optional()
          .describe(`${keyed.join(', ')}: try this key instead of the saved one; nothing is saved`),
        base_url: httpUrl
          .nullable()
          .optional()
          .describe(`${keyed.join(', ')}: with api_key, its base URL`),
        host: httpUrl.optional().describe(`${hosted.join(', ')}: try this host; nothing is saved`),
        model: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe("the model to ask; default: the provider's default model for new agents"),
      }),
      response: { 200: testResult.extend({ model: z.string() }) },
    },
    handler: async (req) => {
      const name: ProviderName = req.params.provider;
      const draft = settings.draftProvider(name, req.body);
      return settings.testProvider(name, draft ?? providers.get(name), req.body.model ?? DEFAULT_MODEL[name], !!draft);
    },
  });

  app.put('/api/admin/settings/smtp', {
    config,
    schema: {
      tags,
      security,
      summary: 'Saves the mail server (lead alerts, reset links); 409 while SMTP_URL is set',
      body: z.object({
        url: smtpUrl.describe('nodemailer connection URL: smtp[s]://user:password@host:port'),
        from: sender.nullable().optional().describe('the sender; default SMTP_FROM, else chat-agent@localhost'),
      }),
      response: { 200: smtpView },
    },
    handler: async (req) => settings.setSmtp(req.body, currentUser(req).id),
  });

  app.delete('/api/admin/settings/smtp', {
    config,
    schema: { tags, security, summary: 'Removes the stored mail server (SMTP_URL, if set, stays in use)' },
    handler: async (_req, reply) => {
      settings.remove('smtp');
      return reply.code(204).send();
    },
  });

  app.post('/api/admin/settings/smtp/test', {
    config,
    schema: {
      tags,
      security,
      summary:
        "Sends a test message to the admin's own address (or `to`): 200, 409 when mail is not configured, 502 with the mail server's error",
      body: z.object({ to: z.email().max(320).optional() }),
      response: { 200: testResult.extend({ to: z.string() }) },
    },
    handler: async (req) => settings.testSmtp(mailer, req.body.to ?? emailOf(currentUser(req).id)),
  });
};
