import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { currentActor } from './plugin.js';
import {
  changePasswordBody,
  changePasswordResponse,
  detailSchema,
  loginBody,
  messageSchema,
  registerBody,
  resetAvailability,
  resetConfirmBody,
  resetRequestBody,
  tokenSchema,
  userSchema,
} from './schemas.js';
import { RESET_REQUESTED } from './password-reset.js';
import type { AuthService } from './service.js';

export const authRoutes: FastifyPluginAsyncZod<{ auth: AuthService }> = async (app, { auth }) => {
  app.post('/api/auth/register', {
    config: { public: true },
    schema: { tags: ['auth'], body: registerBody, response: { 201: tokenSchema } },
    handler: async (req, reply) => {
      const token = await auth.register(req.body, { ip: req.ip, userAgent: req.headers['user-agent'] });
      return reply.code(201).send(token);
    },
  });

  app.post('/api/auth/login', {
    config: { public: true },
    schema: { tags: ['auth'], body: loginBody, response: { 200: tokenSchema } },
    handler: async (req) => auth.login(req.body, { ip: req.ip, userAgent: req.headers['user-agent'] }),
  });

  const anyTeamRole = { teamRole: 'operator' as const };

  app.get('/api/auth/me', {
    config: anyTeamRole,
    schema: { tags: ['auth'], security: [{ bearer: [] }], response: { 200: userSchema } },
    handler: async (req) => auth.getUser(currentActor(req).id),
  });

  app.post('/api/auth/logout', {
    config: anyTeamRole,
    schema: { tags: ['auth'], security: [{ bearer: [] }], response: { 200: messageSchema } },
    handler: async (req) => {
      auth.logout(currentActor(req));
      return { message: 'Successfully logged out' };
    },
  });

  app.post('/api/auth/password', {
    config: anyTeamRole,
    schema: {
      tags: ['auth'],
      summary:
        'Change the password: the current one is required (wrong: 400); every other session of the account ends, this one stays',
      security: [{ bearer: [] }],
      body: changePasswordBody,
      response: { 200: changePasswordResponse },
    },
    handler: async (req) => {
      const ended = await auth.changePassword(currentActor(req), req.body, {
        ip: req.ip,
        userAgent: req.headers['user-agent'],
      });
      return { detail: 'Password changed. Other sessions have been logged out.', other_sessions_ended: ended };
    },
  });

  // The login page asks whether to offer "Forgot password?": only when reset links can be sent.
  app.get('/api/auth/password-reset', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary: 'Whether this server can send password reset links (SMTP_URL is set)',
      response: { 200: resetAvailability },
    },
    handler: async () => ({ available: auth.passwordResetAvailable }),
  });

  app.post('/api/auth/password-reset', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary:
        'E-mail a reset link (valid 30 minutes, once). The answer is the same whether or not the account exists, and whether or not mail is configured',
      body: resetRequestBody,
      response: { 202: detailSchema },
    },
    handler: async (req, reply) => {
      auth.requestPasswordReset(req.body.email, { ip: req.ip }, req.log);
      return reply.code(202).send({ detail: RESET_REQUESTED });
    },
  });

  app.post('/api/auth/password-reset/confirm', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary:
        "Set a new password with a reset link's token; every session of the account ends. Bad, used or expired token: 400",
      body: resetConfirmBody,
      response: { 200: detailSchema },
    },
    handler: async (req) => {
      await auth.confirmPasswordReset(req.body);
      return { detail: 'Password changed. Log in with the new password.' };
    },
  });
};
