import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { visitorPreflight } from '../agents/index.js';
import { ApiError, badRequest } from '../../platform/http/errors.js';
import { acceptsHtml, escapeHtml, messagePageHtml } from '../../platform/http/html.js';
import { readFormFields } from '../../platform/http/form.js';
import { currentUser } from '../auth/index.js';
import { FIELD_MAX } from '../field-limits.js';
import { toCsv } from './csv.js';
import type { LeadsService } from './service.js';
import { OPERATOR_ALLOWED } from '../auth/index.js';

const widgetLeadSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  name: z.string(),
  phone: z.string(),
  /** a booking's lead (modules/actions): the address the invitation went to (its phone is ''); null otherwise */
  email: z.string().nullable(),
  session_id: z.string().nullable(),
  /** the conversation of the lead's session (docs/API-NOTES.md "Widget leads") */
  conversation_id: z
    .string()
    .nullable()
    .describe(
      "the conversation of the lead's session_id; null without a session or before the visitor's first message",
    ),
  created_at: z.string(),
});

const statusEnum = z.enum(['New', 'Contacted', 'Closed']);
const accountLeadSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  contact: z.string(),
  status: statusEnum,
  notes: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

const leadName = z.string().trim().min(1).max(FIELD_MAX.lead.name);
const contact = z.string().trim().min(1).max(FIELD_MAX.lead.contact);
const notes = z.string().max(5000).nullable();

export const leadsRoutes: FastifyPluginAsyncZod<{ leads: LeadsService }> = async (app, { leads }) => {
  const security = [{ bearer: [] }];
  const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });
  const leadParams = z.object({ lead_id: z.string().min(1).max(100) });

  app.post('/api/public/lead/:chatbot_id', {
    config: { public: true, visitorFacing: true },
    schema: {
      tags: ['public'],
      params: chatbotParams,
      body: z.object({
        name: z.string().trim().min(1).max(100),
        // any phone format (docs/API.md "Fields and formats"), but a phone number, not an essay
        phone: z.string().trim().min(3).max(50),
        session_id: z.string().trim().min(1).max(200).optional(),
      }),
      response: { 200: widgetLeadSchema },
    },
    handler: async (req) => leads.captureWidgetLead(req.params.chatbot_id, req.body),
  });
  app.options('/api/public/lead/:chatbot_id', visitorPreflight());

  app.get('/api/chatbot-leads/:chatbot_id', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['leads'], security, params: chatbotParams, response: { 200: widgetLeadSchema.array() } },
    handler: async (req) => leads.listWidgetLeads(currentUser(req), req.params.chatbot_id),
  });

  app.get('/api/chatbot-leads/:chatbot_id/export.csv', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['leads'], security, params: chatbotParams },
    handler: async (req, reply) => {
      const rows = leads.listWidgetLeads(currentUser(req), req.params.chatbot_id);
      const csv = toCsv(
        ['id', 'name', 'phone', 'session_id', 'created_at'],
        rows.map((l) => [l.id, l.name, l.phone, l.session_id, l.created_at]),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="widget-leads.csv"')
        .send(csv);
    },
  });

  // Erasure of one widget lead (a visitor asked to be forgotten), with its alert e-mails. Under the
  // agent, so the path cannot be read as the list route's `/api/chatbot-leads/{chatbot_id}`.
  app.delete('/api/chatbot-leads/:chatbot_id/:lead_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['leads'],
      summary: "Deletes one of the agent's widget leads and the alert e-mails about it",
      security,
      params: z.object({ chatbot_id: z.string().min(1).max(100), lead_id: z.string().min(1).max(100) }),
      response: { 200: z.object({ success: z.literal(true), message: z.string(), lead_id: z.string() }) },
    },
    handler: async (req, reply) => {
      leads.deleteWidgetLead(currentUser(req), req.params.chatbot_id, req.params.lead_id);
      // the freed pages go back to the disk soon (the periodic reclaim would get there too)
      void req.server.space.soon();
      return reply.send({ success: true as const, message: 'Lead deleted', lead_id: req.params.lead_id });
    },
  });

  app.get('/api/leads', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['leads'], security, response: { 200: accountLeadSchema.array() } },
    handler: async (req) => leads.listAccountLeads(currentUser(req)),
  });

  // a static path: the router prefers it to any `/api/leads/:lead_id` (those are PUT and DELETE only)
  app.get('/api/leads/stats', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['leads'],
      summary:
        "Counts of the caller's account leads by status and of its agents' widget leads (chatbot_id: one agent's), and the account leads against the plan's limit",
      security,
      querystring: z.object({ chatbot_id: z.string().min(1).max(100).optional() }),
      response: {
        200: z.object({
          total: z.number().int(),
          by_status: z.object({ New: z.number().int(), Contacted: z.number().int(), Closed: z.number().int() }),
          widget_leads: z.number().int(),
          current_leads: z.number().int(),
          max_leads: z.number().int().nullable(),
          percentage_used: z.number().int(),
          can_add_more: z.boolean(),
          plan_name: z.string(),
        }),
      },
    },
    handler: async (req) => leads.leadStats(currentUser(req), req.query.chatbot_id),
  });

  app.get('/api/leads/export.csv', {
    config: OPERATOR_ALLOWED,
    schema: { tags: ['leads'], security },
    handler: async (req, reply) => {
      const rows = leads.listAccountLeads(currentUser(req));
      const csv = toCsv(
        ['id', 'name', 'contact', 'status', 'notes', 'created_at', 'updated_at'],
        rows.map((l) => [l.id, l.name, l.contact, l.status, l.notes, l.created_at, l.updated_at]),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="leads.csv"')
        .send(csv);
    },
  });

  app.post('/api/leads', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['leads'],
      security,
      body: z.object({ name: leadName, contact, notes: notes.optional(), status: statusEnum.optional() }),
      response: { 200: accountLeadSchema },
    },
    handler: async (req) => leads.createAccountLead(currentUser(req), req.body),
  });

  app.put('/api/leads/:lead_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['leads'],
      security,
      params: leadParams,
      body: z.object({
        name: leadName.optional(),
        contact: contact.optional(),
        notes: notes.optional(),
        status: statusEnum.optional(),
      }),
      response: { 200: accountLeadSchema },
    },
    handler: async (req) => leads.updateAccountLead(currentUser(req), req.params.lead_id, req.body),
  });

  app.delete('/api/leads/:lead_id', {
    config: OPERATOR_ALLOWED,
    schema: {
      tags: ['leads'],
      summary:
        "Deletes one of the account's leads, or a widget lead of one of its agents (with the alert e-mails about it)",
      security,
      params: leadParams,
      response: { 200: z.object({ success: z.literal(true), message: z.string(), lead_id: z.string() }) },
    },
    handler: async (req) => {
      if (leads.deleteLead(currentUser(req), req.params.lead_id).widget) void req.server.space.soon();
      return { success: true as const, message: 'Lead deleted', lead_id: req.params.lead_id };
    },
  });

  // Alert addresses: alerts go only to the account's own e-mail or to an address whose owner
  // clicked the confirmation link (docs/API-NOTES.md "Lead alerts").
  const alertStateSchema = z.object({
    address: z.string().nullable(),
    verified: z.boolean(),
    confirmation_sent_at: z.string().nullable(),
  });
  app.get('/api/chatbots/:chatbot_id/alert-address', {
    schema: { tags: ['leads'], security, params: chatbotParams, response: { 200: alertStateSchema } },
    handler: async (req) => leads.alertAddressState(currentUser(req), req.params.chatbot_id),
  });
  app.post('/api/chatbots/:chatbot_id/alert-address/confirmation', {
    schema: {
      tags: ['leads'],
      summary:
        "Sends the link that confirms the agent's alert address (at most one an hour per address, five a day per account)",
      security,
      params: chatbotParams,
      response: { 200: alertStateSchema },
    },
    handler: async (req) => leads.requestConfirmation(currentUser(req), req.params.chatbot_id),
  });

  // The link in the e-mail opens a page that asks before confirming: a mail scanner that follows
  // links must not confirm on the reader's behalf. Pages for a browser, the API's JSON otherwise.
  const PAGE_CSP = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
  const GONE = 'This link has expired or was already used';
  const page = (reply: FastifyReply, code: number, html: string) =>
    reply
      .code(code)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      .send(html);
  app.get('/alerts/confirm', {
    config: { public: true },
    schema: {
      tags: ['leads'],
      summary: 'The page a confirmation link opens',
      querystring: z.object({ token: z.string().max(200).default('') }),
    },
    handler: async (req, reply) => {
      const address = leads.peekConfirmation(req.query.token);
      if (!acceptsHtml(req)) {
        if (!address) throw new ApiError(404, GONE);
        return { address, verified: false };
      }
      if (!address) return page(reply, 404, messagePageHtml(GONE, "Ask for a new one in the agent's settings."));
      const form = `<form method="post" enctype="multipart/form-data"><input type="hidden" name="token" value="${escapeHtml(req.query.token)}"><button type="submit">Confirm</button></form>`;
      return page(
        reply,
        200,
        messagePageHtml(`Receive lead alerts at ${address}?`, "Alerts hold visitors' names and phone numbers.", form),
      );
    },
  });
  app.post('/alerts/confirm', {
    config: { public: true },
    schema: {
      tags: ['leads'],
      summary: 'Confirms an alert address (form field `token`)',
      consumes: ['multipart/form-data', 'application/json'],
    },
    handler: async (req, reply) => {
      const { token } = await readFormFields(req, 1000);
      if (!token) throw badRequest('token: required (the one in the confirmation link)');
      const address = leads.confirm(token);
      if (!acceptsHtml(req)) {
        if (!address) throw new ApiError(404, GONE);
        return { address, verified: true };
      }
      if (!address) return page(reply, 404, messagePageHtml(GONE, "Ask for a new one in the agent's settings."));
      return page(reply, 200, messagePageHtml(`Lead alerts will be sent to ${address}`, 'You can close this page.'));
    },
  });
};
