import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { currentUser } from './plugin.js';
import { loginBody, messageSchema, registerBody, tokenSchema, userSchema } from './schemas.js';
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

  app.get('/api/auth/me', {
    schema: { tags: ['auth'], security: [{ bearer: [] }], response: { 200: userSchema } },
    handler: async (req) => auth.getUser(currentUser(req).id),
  });

  app.post('/api/auth/logout', {
    schema: { tags: ['auth'], security: [{ bearer: [] }], response: { 200: messageSchema } },
    handler: async (req) => {
      auth.logout(currentUser(req));
      return { message: 'Successfully logged out' };
    },
  });
};
