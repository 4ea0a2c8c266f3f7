import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { currentUser } from '../auth/index.js';
import type { PlanHolder } from '../limits/index.js';
import { agentIdParams, agentSchema, createAgentBody, publicAgentSchema, toggleResponse, updateAgentBody } from './schemas.js';
import { toAgentView, type AgentsService } from './service.js';
import { visitorPreflight } from './visitor-cors.js';

export const agentRoutes: FastifyPluginAsyncZod<{ agents: AgentsService; ownerPlan: (userId: string) => PlanHolder }> = async (
  app,
  { agents, ownerPlan },
) => {
  const security = [{ bearer: [] }];

  app.get('/api/chatbots', {
    schema: { tags: ['agents'], security, response: { 200: agentSchema.array() } },
    handler: async (req) => agents.list(currentUser(req)).map(toAgentView),
  });

  app.post('/api/chatbots', {
    schema: { tags: ['agents'], security, body: createAgentBody, response: { 201: agentSchema } },
    handler: async (req, reply) => reply.code(201).send(toAgentView(agents.create(currentUser(req), req.body))),
  });

  app.get('/api/chatbots/:chatbot_id', {
    schema: { tags: ['agents'], security, params: agentIdParams, response: { 200: agentSchema } },
    handler: async (req) => toAgentView(agents.get(currentUser(req), req.params.chatbot_id)),
  });

  app.put('/api/chatbots/:chatbot_id', {
    schema: { tags: ['agents'], security, params: agentIdParams, body: updateAgentBody, response: { 200: agentSchema } },
    handler: async (req) => toAgentView(agents.update(currentUser(req), req.params.chatbot_id, req.body)),
  });

  app.delete('/api/chatbots/:chatbot_id', {
    schema: { tags: ['agents'], security, params: agentIdParams },
    handler: async (req, reply) => {
      agents.delete(currentUser(req), req.params.chatbot_id);
      return reply.code(204).send();
    },
  });

  app.get('/api/public/chatbot/:chatbot_id', {
    config: { public: true, visitorFacing: true },
    schema: { tags: ['public'], params: agentIdParams, response: { 200: publicAgentSchema } },
    handler: async (req) => agents.publicInfo(req.params.chatbot_id, ownerPlan, req.visitorAgent),
  });
  app.options('/api/public/chatbot/:chatbot_id', visitorPreflight());

  app.patch('/api/chatbots/:chatbot_id/toggle', {
    schema: { tags: ['agents'], security, params: agentIdParams, response: { 200: toggleResponse } },
    handler: async (req) => agents.toggle(currentUser(req), req.params.chatbot_id),
  });
};
