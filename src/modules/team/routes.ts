import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentActor, currentUser, emailField, OPERATOR_ALLOWED } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import type { SavedReplies } from './saved-replies.js';
import { savedReplyRoutes } from './saved-replies-routes.js';
import { registerBody, tokenSchema } from '../auth/index.js';
import type { TeamService } from './service.js';

const security = [{ bearer: [] }];
/** the OpenAPI grouping, summary and sign-in every team route shows */
const teamDoc = (summary: string) => ({ tags: ['team'], summary, security });
/** the team routes are the owner's alone */
const ownerOnly = { teamRole: 'owner' as const };

const invitationBody = z.object({ email: emailField, role: z.enum(['manager', 'operator']) });
const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['manager', 'operator']),
  expires_at: z.string(),
  link: z.string().describe('the admin UI join page with ?token= (valid 7 days, once)'),
});
const joinBody = z.object({
  token: z.string().min(1).max(200),
  name: registerBody.shape.name,
  password: registerBody.shape.password,
});
const memberSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  display_name: z.string().describe("the name visitors see on this person's replies"),
  role: z.enum(['owner', 'manager', 'operator']),
  availability: z.enum(['online', 'away']),
});
const availabilitySchema = z.object({
  availability: z
    .enum(['online', 'away'])
    .describe('away: visitors asking for a person are offered the contact form at once unless a teammate is online'),
});
const memberParams = z.object({ user_id: z.string().max(100) });

/** Beyond the spec: teammates (docs/API-NOTES.md "Team"). */
export const teamRoutes: FastifyPluginAsyncZod<{ team: TeamService; savedReplies: SavedReplies }> = async (
  app,
  { team, savedReplies },
) => {
  await app.register(savedReplyRoutes, { savedReplies });

  app.post('/api/team/invitations', {
    config: ownerOnly,
    schema: {
      ...teamDoc(
        'Invite a teammate by e-mail as manager or operator; the link works without mail and is e-mailed when mail is set up',
      ),
      body: invitationBody,
      response: { 201: invitationSchema },
    },
    handler: async (req, reply) => reply.code(201).send(team.invite(currentUser(req), req.body)),
  });

  app.post('/api/team/join', {
    config: { public: true },
    schema: {
      tags: ['team'],
      summary: "Join a team with an invitation's token, whatever REGISTRATION says; answers like register",
      body: joinBody,
      response: { 201: tokenSchema },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await team.join(req.body, { ip: req.ip, userAgent: req.headers['user-agent'] })),
  });

  app.get('/api/team/members', {
    config: ownerOnly,
    schema: { ...teamDoc('The owner and the teammates, with their roles'), response: { 200: memberSchema.array() } },
    handler: async (req) => team.members(currentUser(req)),
  });

  // the calling person's own availability: every team role, about themselves (currentActor)
  app.get('/api/team/me/availability', {
    config: OPERATOR_ALLOWED,
    schema: { ...teamDoc("The caller's own availability: online or away"), response: { 200: availabilitySchema } },
    handler: async (req) => team.availability(currentActor(req)),
  });

  app.put('/api/team/me/availability', {
    config: OPERATOR_ALLOWED,
    schema: {
      ...teamDoc('Online or away: with everyone of the team away, visitors get the contact form instead of waiting'),
      body: availabilitySchema,
      response: { 200: availabilitySchema },
    },
    handler: async (req) => team.setAvailability(currentActor(req), req.body.availability),
  });

  app.get('/api/team/assignees', {
    config: OPERATOR_ALLOWED,
    schema: {
      ...teamDoc('The people a conversation can be assigned to in the inbox: the owner, then the teammates'),
      response: { 200: z.object({ user_id: z.string(), name: z.string() }).array() },
    },
    handler: async (req) => team.members(currentUser(req)).map((m) => ({ user_id: m.user_id, name: m.name })),
  });

  app.get('/api/team/me', {
    config: OPERATOR_ALLOWED,
    schema: {
      ...teamDoc('The caller as the team sees them, with the display name visitors see on their replies'),
      response: { 200: memberSchema },
    },
    handler: async (req) => team.me(currentUser(req)),
  });

  app.put('/api/team/me', {
    config: OPERATOR_ALLOWED,
    schema: {
      ...teamDoc("The caller's display name: the name visitors see on their replies (empty or null: their name)"),
      body: z.object({ display_name: z.string().trim().max(FIELD_MAX.inbox.display_name).nullable() }),
      response: { 200: memberSchema },
    },
    handler: async (req) => team.setDisplayName(currentUser(req), req.body.display_name),
  });

  app.delete('/api/team/members/:user_id', {
    config: ownerOnly,
    schema: {
      ...teamDoc('Remove a teammate; their sessions end at once'),
      params: memberParams,
    },
    handler: async (req, reply) => {
      team.removeMember(currentUser(req), req.params.user_id);
      return reply.code(204).send();
    },
  });
};
