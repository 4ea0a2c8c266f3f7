import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { auth, createAgent, multipartForm, registerUser, type TestApp } from '../app.js';
import type { Method } from './routes.js';

/**
 * The fuzz run's accounts: the victim (A) with data of every kind, each text carrying a unique
 * marker; the attacker (B) with a little data of its own; and A's data read back for comparing.
 */

export type IdKind =
  | 'user'
  | 'agent'
  | 'conversation'
  | 'message'
  | 'source'
  | 'widgetLead'
  | 'accountLead'
  | 'session';
export type IdPool = Record<IdKind, string[]>;
export const emptyPool = (): IdPool => ({
  user: [],
  agent: [],
  conversation: [],
  message: [],
  source: [],
  widgetLead: [],
  accountLead: [],
  session: [],
});

/** The path parameters of the route table and the kind of id each names. */
export const PARAM_KIND: Record<string, IdKind> = {
  chatbot_id: 'agent',
  conversation_id: 'conversation',
  source_id: 'source',
  lead_id: 'accountLead',
  user_id: 'user',
};

export interface Account {
  email: string;
  token: string;
  userId: string;
  sessionId: string;
}

export interface Victim extends Account {
  /** public_access true, active: its public info and knowledge are open to visitors */
  publicAgent: string;
  /** public_access false */
  privateAgent: string;
  /** public_access true, status inactive: public info shows it (as offline), chat refuses it */
  inactiveAgent: string;
  ids: IdPool;
  /** marker string -> what it was planted in */
  markers: Map<string, string>;
  /** markers that belong to each agent's public face (name, welcome message) */
  publicInfo: Map<string, string[]>;
  /** markers and ids a visitor's chat with the public agent may quote: its knowledge (sources) */
  publicKnowledge: { markers: string[]; ids: string[] };
}

export function jwtClaims(token: string): { sub: string; sid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

export async function inject(t: TestApp, method: Method, url: string, token: string | undefined, payload?: unknown) {
  const res = await t.app.inject({
    method,
    url,
    headers: token ? auth(token) : {},
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return res;
}

export async function ok(
  t: TestApp,
  method: Method,
  url: string,
  token: string | undefined,
  payload?: unknown,
): Promise<any> {
  const res = await inject(t, method, url, token, payload);
  if (res.statusCode >= 300) throw new Error(`setup ${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.statusCode === 204 ? undefined : res.json();
}

export async function account(t: TestApp, name: string): Promise<Account> {
  const { token, email } = await registerUser(t.app, { name });
  const me = await ok(t, 'GET', '/api/auth/me', token);
  return { email, token, userId: me.id, sessionId: jwtClaims(token).sid };
}

/** Reads back every id of an account's data, by kind. */
export async function collectIds(t: TestApp, acct: Account): Promise<IdPool> {
  const ids = emptyPool();
  ids.user.push(acct.userId);
  ids.session.push(acct.sessionId);
  for (const agent of await ok(t, 'GET', '/api/chatbots', acct.token)) {
    ids.agent.push(agent.id);
    for (const s of await ok(t, 'GET', `/api/sources/chatbot/${agent.id}`, acct.token)) ids.source.push(s.id);
    for (const l of await ok(t, 'GET', `/api/chatbot-leads/${agent.id}`, acct.token)) ids.widgetLead.push(l.id);
    for (const c of await ok(t, 'GET', `/api/chat/conversations/${agent.id}`, acct.token)) {
      ids.conversation.push(c.id);
      for (const m of await ok(t, 'GET', `/api/chat/messages/${c.id}`, acct.token)) ids.message.push(m.id);
    }
  }
  for (const l of await ok(t, 'GET', '/api/leads', acct.token)) ids.accountLead.push(l.id);
  return ids;
}

/**
 * Account A with a marker in every text field it can set. Markers are lower-case letters and
 * digits only, so no JSON/CSV/HTML escaping or lower-casing can hide them from the leak check, and
 * the fuzzer (which never sees them) cannot produce them by chance.
 */
export async function setUpVictim(t: TestApp): Promise<Victim> {
  const markers = new Map<string, string>();
  const mark = (label: string) => {
    const value = `zq${label.replace(/[^a-z0-9]/g, '')}${randomBytes(6).toString('hex')}`;
    markers.set(value, label);
    return value;
  };
  const acct = await account(t, `Victim ${mark('user-name')}`);

  const agentFields = (n: string) => ({
    name: `Agent ${mark(`${n}-name`)}`,
    description: `About ${mark(`${n}-description`)}`,
    instructions: `Be helpful. ${mark(`${n}-instructions`)}`,
    welcome_message: `Welcome ${mark(`${n}-welcome`)}`,
  });
  const fieldsOf = {
    public: agentFields('agent-public'),
    private: agentFields('agent-private'),
    inactive: agentFields('agent-inactive'),
  };
  const publicAgent = (await createAgent(t.app, acct.token, fieldsOf.public)).id as string;
  const privateAgent = (await createAgent(t.app, acct.token, fieldsOf.private)).id as string;
  const inactiveAgent = (await createAgent(t.app, acct.token, fieldsOf.inactive)).id as string;
  await ok(t, 'PUT', `/api/chatbots/${privateAgent}`, acct.token, { public_access: false });
  await ok(t, 'PUT', `/api/chatbots/${inactiveAgent}`, acct.token, { status: 'inactive' });

  // knowledge: JSON on the public agent, a multipart form on the private one
  const publicSourceName = mark('source-public-name');
  const publicSourceContent = mark('source-public-content');
  const publicSource = await ok(t, 'POST', `/api/sources/chatbot/${publicAgent}/text`, acct.token, {
    name: `Opening hours ${publicSourceName}`,
    content: `The shop is open from nine to five on weekdays. Reference ${publicSourceContent}.`,
  });
  const form = await multipartForm({
    name: `Pricing ${mark('source-private-name')}`,
    content: `Internal price list, discount code ${mark('source-private-content')}, do not share.`,
  });
  const privateSource = await t.app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${privateAgent}/text`,
    headers: { ...auth(acct.token), ...form.headers },
    payload: form.payload,
  });
  if (privateSource.statusCode !== 201)
    throw new Error(`private source: ${privateSource.statusCode} ${privateSource.body}`);

  // conversations: the owner's own chat with each of two agents, and a visitor on the public one
  for (const [agent, n] of [
    [publicAgent, 'chat-owner-public'],
    [privateAgent, 'chat-owner-private'],
  ] as const) {
    await ok(t, 'POST', '/api/chat', acct.token, {
      message: `When are you open? ${mark(`${n}-message`)}`,
      chatbot_id: agent,
      session_id: mark(`${n}-session`),
      user_name: `Owner ${mark(`${n}-user-name`)}`,
      user_email: `${mark(`${n}-user-email`)}@example.com`,
    });
  }
  const visitorSession = mark('chat-visitor-session');
  for (const n of ['first', 'second']) {
    await ok(t, 'POST', `/api/public/chat/${publicAgent}`, undefined, {
      message: `Are you open on weekdays? ${mark(`chat-visitor-${n}-message`)}`,
      session_id: visitorSession,
      user_name: `Visitor ${mark('chat-visitor-user-name')}`,
      user_email: `${mark('chat-visitor-user-email')}@example.com`,
    });
  }

  // leads: a widget lead on the public agent, two account leads
  await ok(t, 'POST', `/api/public/lead/${publicAgent}`, undefined, {
    name: `Lead ${mark('widget-lead-name')}`,
    phone: `+31 ${mark('widget-lead-phone')}`,
    session_id: visitorSession,
  });
  for (const n of ['first', 'second']) {
    await ok(t, 'POST', '/api/leads', acct.token, {
      name: `Prospect ${mark(`account-lead-${n}-name`)}`,
      contact: `${mark(`account-lead-${n}-contact`)}@example.com`,
      notes: `Met at the fair ${mark(`account-lead-${n}-notes`)}`,
      status: n === 'first' ? 'New' : 'Contacted',
    });
  }

  const ids = await collectIds(t, acct);
  const publicMarkers = (f: { name: string; welcome_message: string }) =>
    [f.name, f.welcome_message].map((s) => s.split(' ').pop()!);
  return {
    ...acct,
    publicAgent,
    privateAgent,
    inactiveAgent,
    ids,
    markers,
    publicInfo: new Map([
      [publicAgent, publicMarkers(fieldsOf.public)],
      [inactiveAgent, publicMarkers(fieldsOf.inactive)],
    ]),
    publicKnowledge: { markers: [publicSourceName, publicSourceContent], ids: [publicSource.id] },
  };
}

/** Account B: a little data of its own, so its fuzzing reaches the handlers past the owner checks. */
export async function setUpAttacker(t: TestApp): Promise<Account & { ids: IdPool }> {
  const acct = await account(t, 'Attacker');
  const agent = await createAgent(t.app, acct.token, { name: 'Attacker bot' });
  await createAgent(t.app, acct.token, { name: 'Attacker bot two', description: 'second' });
  await ok(t, 'POST', `/api/sources/chatbot/${agent.id}/text`, acct.token, {
    name: 'Notes',
    content: 'Parcels ship within two days.',
  });
  await ok(t, 'POST', '/api/chat', acct.token, {
    message: 'How fast do parcels ship?',
    chatbot_id: agent.id,
    session_id: 'attacker-session',
  });
  await ok(t, 'POST', `/api/public/lead/${agent.id}`, undefined, { name: 'Self', phone: '555-0100' });
  await ok(t, 'POST', '/api/leads', acct.token, { name: 'Someone', contact: 'someone@example.org' });
  return { ...acct, ids: await collectIds(t, acct) };
}

/**
 * Everything of A's, read back through A's own token. Listing and reading do not change it, so
 * two snapshots of an untouched account are equal.
 */
export async function victimSnapshot(t: TestApp, a: Victim) {
  // a read that fails is recorded, not thrown, so a deleted object shows up as a difference
  const get = async (url: string): Promise<any> => {
    const res = await inject(t, 'GET', url, a.token);
    return res.statusCode === 200 ? res.json() : { status: res.statusCode, body: res.body.slice(0, 200) };
  };
  const agents: Record<string, unknown> = {};
  for (const id of [a.publicAgent, a.privateAgent, a.inactiveAgent]) {
    const conversations: Array<Record<string, unknown>> = await get(`/api/chat/conversations/${id}`);
    const messages: Record<string, unknown> = {};
    for (const c of Array.isArray(conversations) ? conversations : [])
      messages[c.id as string] = await get(`/api/chat/messages/${c.id}`);
    agents[id] = {
      agent: await get(`/api/chatbots/${id}`),
      sources: await get(`/api/sources/chatbot/${id}`),
      widgetLeads: await get(`/api/chatbot-leads/${id}`),
      conversations,
      messages,
    };
  }
  return {
    me: await get('/api/auth/me'),
    agentList: await get('/api/chatbots').then((list) =>
      Array.isArray(list) ? list.map((x: { id: string }) => x.id) : list,
    ),
    accountLeads: await get('/api/leads'),
    agents: agents as Record<
      string,
      {
        agent: Record<string, unknown>;
        sources: unknown[];
        widgetLeads: unknown[];
        conversations: unknown[];
        messages: Record<string, unknown>;
      }
    >,
  };
}

/** Plans with limits far above what the run sends, so the answers come from the input, not a 429. */
export function writeGenerousPlans(dir: string): Record<string, string> {
  const plan = {
    max_agents: 10_000,
    max_account_leads: 100_000,
    monthly_messages: 10_000_000,
    requests_per_minute: 10_000_000,
    requests_per_hour: 100_000_000,
    custom_branding: true,
  };
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify({ free: plan, starter: plan, pro: plan }));
  return { PLANS_FILE: file };
}
