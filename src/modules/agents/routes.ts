import { type FastifyPluginAsyncZod, jsonSchemaTransform } from 'fastify-type-provider-zod';
import { sendJsonText } from '../../platform/http/json.js';
import { currentUser } from '../auth/index.js';
import {
  agentIdParams,
  agentSchema,
  createAgentBody,
  publicAgentSchema,
  savedAgentSchema,
  toggleResponse,
  updateAgentBody,
} from './schemas.js';
import { saveColorWarnings } from './colors.js';
import { toAgentView, type AgentsService } from './service.js';
import type { ChatbotRow } from './tables.js';
import { visitorPreflight } from './visitor-cors.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

/** A saved agent's answer: the Agent object and, when the save sent a colour or the theme, `warnings`. */
function savedView(row: ChatbotRow, body: Parameters<typeof saveColorWarnings>[1]) {
  const warnings = saveColorWarnings(row, body);
  return warnings ? { ...toAgentView(row), warnings } : toAgentView(row);
}

export const agentRoutes: FastifyPluginAsyncZod<{ agents: AgentsService }> = async (app, { agents }) => {
  const security = [{ bearer: [] }];

  // The collection, under a prefix so it answers at `/api/chatbots/` too, as at `/api/chatbots`
  // (Fastify serves a prefixed '/' route at both; clients of the original service add the slash).
  // Only these two: every other path stays exact.
  // Fastify reuses a prefixed '/' route's options for its slash twin, which would leave the docs
  // listing `/api/chatbots/`: they list the URL without the slash.
  const documented = {
    swaggerTransform: (args: Parameters<typeof jsonSchemaTransform>[0]) =>
      jsonSchemaTransform({ ...args, url: '/api/chatbots' }),
  };
  const collectionRoutes: FastifyPluginAsyncZod = async (collection) => {
    collection.get('/', {
      config: { ...documented, ...OPERATOR_ALLOWED },
      schema: { tags: ['agents'], security, response: { 200: agentSchema.array() } },
      handler: async (req) => agents.list(currentUser(req)).map(toAgentView),
    });

    collection.post('/', {
      config: documented,
      schema: { tags: ['agents'], security, body: createAgentBody, response: { 201: savedAgentSchema } },
      handler: async (req, reply) =>
        reply.code(201).send(savedView(agents.create(currentUser(req), req.body), req.body)),
    });
  };
  await app.register(collectionRoutes, { prefix: '/api/chatbots' });

  app.get('/api/chatbots/:chatbot_id', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['agents'], security, params: agentIdParams, response: { 200: agentSchema } },
    handler: async (req) => toAgentView(agents.get(currentUser(req), req.params.chatbot_id)),
  });

  app.put('/api/chatbots/:chatbot_id', {
    schema: {
      tags: ['agents'],
      security,
      params: agentIdParams,
      body: updateAgentBody,
      response: { 200: savedAgentSchema },
    },
    handler: async (req) => savedView(agents.update(currentUser(req), req.params.chatbot_id, req.body), req.body),
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
    // every widget load reads it: the service keeps its JSON, checked against the schema once
    handler: async (req, reply) => sendJsonText(reply, agents.publicInfoJson(req.params.chatbot_id)),
  });
  app.options('/api/public/chatbot/:chatbot_id', visitorPreflight());

  app.patch('/api/chatbots/:chatbot_id/toggle', {
    schema: { tags: ['agents'], security, params: agentIdParams, response: { 200: toggleResponse } },
    handler: async (req) => agents.toggle(currentUser(req), req.params.chatbot_id),
  });
};
