import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import {
  auth,
  makeDataDir,
  type ManualClock,
  ROOMY_PLAN,
  sendExpect,
  type TestApp,
  useTestApps,
  writePlansFile,
} from './app.js';
import { providerSetup, type SseEvent, takeSseEvents } from './chat.js';
import type { FakeProviderName, FakeToolReply, RecordedRequest } from './fake-llm.js';

/** Shared by the actions suites (modules/actions*.test.ts, the e2e ones for bodies): the owner's endpoint, its checks, the routes. */

type Json = Record<string, any>;

/** One request the endpoint received, as it came. */
export interface Hit {
  method: string;
  /** the raw request target: path and query, as sent */
  target: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface EndpointAnswer {
  status?: number;
  type?: string;
  body?: string | Buffer;
  /** never answer (the app's deadline ends it) */
  hang?: boolean;
  /** a Location header to the same endpoint's /elsewhere */
  redirect?: boolean;
}

/**
 * The owner's endpoint on 127.0.0.1 (random port): records every request, answers with
 * `respond` (default: 200 `{}`). It also serves calendar feeds when `respond` says so.
 */
export class Endpoint {
  hits: Hit[] = [];
  respond: (hit: Hit) => EndpointAnswer = () => ({ body: '{}' });
  private server: http.Server | undefined;
  url = '';

  async up(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const target = req.url ?? '/';
        const hit: Hit = {
          method: req.method ?? 'GET',
          target,
          path: target.split('?')[0]!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.hits.push(hit);
        const answer = this.respond(hit);
        if (answer.hang) return;
        res.statusCode = answer.status ?? 200;
        res.setHeader('content-type', answer.type ?? 'application/json');
        if (answer.redirect) res.setHeader('location', `${this.url}/elsewhere`);
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.server = server;
    return this;
  }

  /** the requests that were not for a calendar feed */
  get calls(): Hit[] {
    return this.hits.filter((h) => !h.path.endsWith('.ics'));
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * The integrator's check of `chat-agent-signature`, written out here independently of the app:
 * `t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<signed>")>`, t within 5 minutes of now.
 */
export function signatureOk(secret: string, signed: string, header: unknown): boolean {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((p) => p.split('=')),
  );
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300 || typeof parts.v1 !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${t}.${signed}`).digest('hex');
  return parts.v1.length === expected.length && timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
}

/** A reply function for the fake LLM giving `replies` in turn, the last one again and again. */
export function script(...replies: Array<string | FakeToolReply>) {
  let n = 0;
  return (_req: RecordedRequest) => replies[Math.min(n++, replies.length - 1)]!;
}

/** A tool call reply. */
export const call = (name: string, args: Record<string, unknown> | string = {}): FakeToolReply => ({
  toolCalls: [{ name, arguments: args }],
});

export async function addAction(t: TestApp, token: string, agentId: string, body: Json): Promise<Json> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/chatbots/${agentId}/actions`,
    headers: auth(token),
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A look-up of an order's status at the endpoint: `{order_id}` in the path. */
export const orderLookup = (endpoint: Endpoint, extra: Json = {}): Json => ({
  type: 'lookup',
  name: 'order_status',
  description: 'Looks up the status of an order',
  url: `${endpoint.url}/orders/{order_id}?lang=en`,
  parameters: [{ name: 'order_id', description: 'the order number' }],
  response_fields: ['status', 'shipping.eta'],
  ...extra,
});

/** A `do` that opens a support ticket. */
export const ticketDo = (endpoint: Endpoint, extra: Json = {}): Json => ({
  type: 'do',
  name: 'open_ticket',
  description: 'Opens a support ticket',
  url: `${endpoint.url}/tickets`,
  parameters: [
    { name: 'subject', description: 'what it is about' },
    { name: 'priority', description: 'low or high', required: false },
  ],
  response_fields: ['ticket_id'],
  ...extra,
});

/** A booking from the endpoint's calendar feed `/cal.ics`. */
export const bookingAction = (endpoint: Endpoint, extra: Json = {}): Json => ({
  type: 'booking',
  name: 'book_call',
  description: 'A 60-minute call',
  calendar_url: `${endpoint.url}/cal.ics`,
  slot_minutes: 60,
  days_ahead: 2,
  ...extra,
});

/**
 * An action's body as the owner writes it: `params` are the parameters' names and descriptions,
 * `fields` its response fields (each left out when there are none).
 */
export function actionBody(
  type: 'lookup' | 'do',
  name: string,
  description: string,
  url: string,
  params: Record<string, string>,
  fields: string[] = [],
): Json {
  const parameters = Object.entries(params).map(([param, about]) => ({ name: param, description: about }));
  return {
    type,
    name,
    description,
    url,
    ...(parameters.length ? { parameters } : {}),
    ...(fields.length ? { response_fields: fields } : {}),
  };
}

/** The env of an app whose default plan is ROOMY_PLAN with `plan` on top (e.g. a cap on action runs). */
export function planEnv(plan: Record<string, unknown>): Record<string, string> {
  const plansFile = writePlansFile(makeDataDir(), { tiny: { ...ROOMY_PLAN, ...plan } as typeof ROOMY_PLAN });
  return { PLANS_FILE: plansFile, DEFAULT_PLAN: 'tiny' };
}

/**
 * The agent's new identity secret (201), and `hashOf` a user id with it, as the owner's site would
 * compute it (hex HMAC-SHA256, written out here independently of the app).
 */
export async function identitySecret(t: TestApp, token: string, agentId: string) {
  const made = await sendExpect(t.app, token, 'POST', `/api/chatbots/${agentId}/identity-secret`, undefined, 201);
  const secret = made.secret as string;
  return { secret, hashOf: (userId: string) => createHmac('sha256', secret).update(userId).digest('hex') };
}

/** A visitor's message (JSON answer, 200). */
export async function ask(t: TestApp, agentId: string, session: string, message: string, extra: Json = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}`,
    payload: { message, session_id: session, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A visitor's message over SSE: the events, the last of which must be `done`. */
export async function askStreamed(t: TestApp, agentId: string, session: string, message: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}`,
    headers: { accept: 'text/event-stream' },
    payload: { message, session_id: session },
  });
  expect(res.statusCode, res.body).toBe(200);
  const { events, rest } = takeSseEvents(res.body);
  expect(rest).toBe('');
  const done = events.at(-1) as SseEvent;
  expect(done.event, res.body).toBe('done');
  return { events, done: done.data };
}

/** The visitor's Confirm or Cancel on a card; the answer as it came. */
export function settle(t: TestApp, agentId: string, runId: string, what: 'confirm' | 'cancel', body: Json) {
  return t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}/action-runs/${runId}/${what}`,
    payload: body,
  });
}

/** The owner's view of a conversation's action runs. */
export async function runsOf(t: TestApp, token: string, agentId: string, conversationId: string): Promise<Json[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/chatbots/${agentId}/conversations/${conversationId}/action-runs`,
    headers: auth(token),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The stored messages of a conversation (the owner's view). */
export async function messagesOf(t: TestApp, token: string, conversationId: string): Promise<Json[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/chat/messages/${conversationId}`, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** the provider key the actions tests give their fake model */
export const ACTIONS_KEY = 'sk-test-actions-key-0123456789';
/** the endpoints and feeds run on 127.0.0.1 */
export const PRIVATE_URLS = { ALLOW_PRIVATE_URLS: 'true' };

export interface ModelOptions {
  /** the fake LLM's kind (default openai); the agent then uses `<provider>-model` of it */
  provider?: FakeProviderName;
  /** the agent's fields, on top of createAgent's defaults */
  agent?: Json;
  /** more env, on top of PRIVATE_URLS */
  env?: Record<string, string>;
  clock?: ManualClock;
}

/** The file's apps (useTestApps) and its endpoints on 127.0.0.1, closed before the apps. */
export function useActionApps() {
  const apps = useTestApps();
  const endpoint = async (): Promise<Endpoint> => apps.before(await new Endpoint().up());

  /**
   * An app with a fake model answering with `reply` (none: set it later), an account and its agent,
   * an endpoint, and `actions` (given the endpoint) added to the agent, in order (`made`).
   */
  async function withModel(
    reply: ((req: RecordedRequest) => string | FakeToolReply) | undefined,
    actions: (ep: Endpoint) => Json[],
    opts: ModelOptions = {},
  ) {
    const ep = await endpoint();
    const provider = opts.provider ?? 'openai';
    const agentFields = opts.provider ? { provider, model: `${provider}-model`, ...opts.agent } : { ...opts.agent };
    const { f, t, token, agent } = await providerSetup(apps, provider, ACTIONS_KEY, agentFields, {
      env: { ...PRIVATE_URLS, ...opts.env },
      clock: opts.clock,
      ...(reply ? { behaviour: { reply } } : {}),
    });
    const made: Json[] = [];
    for (const body of actions(ep)) made.push(await addAction(t, token, agent.id, body));
    return { ep, f, t, token, agent, made };
  }

  return { apps, endpoint, withModel };
}
