import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../platform/http/errors.js';
import { type IdentityService, visitorPreflight } from '../agents/index.js';
import type { VisitorConversation, VisitorHistoryRepo, VisitorMessage } from './visitor-history-repo.js';

/**
 * A verified visitor's past conversations on an agent (docs/API-NOTES.md "Verified visitors"). The
 * chat's id and hash sit in the site's HTML for as long as the page is open, so reading history
 * takes more: a short JWT the site mints with the agent's identity secret (`sub` the user id,
 * `exp` at most 24 h ahead), sent as `Authorization: Bearer`.
 */
export class VisitorHistory {
  constructor(
    private readonly repo: VisitorHistoryRepo,
    private readonly identity: Pick<IdentityService, 'tokenSubject'>,
  ) {}

  async conversations(request: FastifyRequest, limit: number): Promise<VisitorConversation[]> {
    const { agentId, userId } = await this.visitor(request);
    return this.repo.conversations(agentId, userId, limit);
  }

  async messages(request: FastifyRequest, conversationId: string): Promise<VisitorMessage[]> {
    const { agentId, userId } = await this.visitor(request);
    // another user's conversation, or another agent's, is 404 as a missing one
    const found = this.repo.messages(agentId, userId, conversationId);
    if (!found) throw notFound('Conversation');
    return found;
  }

  /** The agent (from the visitor-facing hook: 404 when unknown) and the token's user. */
  private async visitor(request: FastifyRequest): Promise<{ agentId: string; userId: string }> {
    const agent = request.visitorAgent;
    if (!agent) throw notFound('Chatbot');
    return { agentId: agent.id, userId: await this.identity.tokenSubject(agent.id, request.headers.authorization) };
  }
}

const conversationSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_message_preview: z.string().nullable().describe('the first 200 characters of the last message'),
  message_count: z.number().int(),
});
const messageSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp: z.string(),
  /** an answer a person wrote (live handoff), with the name they show visitors */
  from_person: z.boolean(),
  sender_name: z.string().nullable(),
});

export const visitorHistoryRoutes: FastifyPluginAsyncZod<{ history: VisitorHistory }> = async (app, { history }) => {
  const config = { public: true, visitorFacing: true };
  const tags = ['public'];
  const list = '/api/public/chatbots/:chatbot_id/visitor-conversations';
  const one = `${list}/:conversation_id`;
  const chatbotId = z.string().min(1).max(100);

  app.get(list, {
    config,
    schema: {
      tags,
      summary: "A verified visitor's conversations on the agent, newest first (Authorization: Bearer <visitor JWT>)",
      params: z.object({ chatbot_id: chatbotId }),
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
      response: { 200: conversationSchema.array() },
    },
    handler: async (req) => history.conversations(req, req.query.limit),
  });
  app.options(list, visitorPreflight(['Authorization']));

  app.get(one, {
    config,
    schema: {
      tags,
      summary: "The messages of one of the verified visitor's conversations (404 for one not theirs)",
      params: z.object({ chatbot_id: chatbotId, conversation_id: z.string().min(1).max(100) }),
      response: { 200: messageSchema.array() },
    },
    handler: async (req) => history.messages(req, req.params.conversation_id),
  });
  app.options(one, visitorPreflight(['Authorization']));
};
