import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { PASSWORD, auth, createAgent, makeDataDir, multipartForm, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * Fuzz run over every route: a few thousand random and hostile requests (ids, bodies, headers,
 * query strings, credentials) from one account ("attacker", B) and from callers with no valid
 * token, against a real app on a real SQLite file where another account ("victim", A) holds agents,
 * knowledge sources, conversations and leads, every text field carrying a unique marker string.
 *
 * Must hold for every request:
 *  - no 5xx, and no `Internal server error` anywhere in the body (a chat stream that already
 *    started reports a failure as an SSE `error` event with status 200);
 *  - no leak of A's data to B or to a caller without a valid token (see `leaksIn` for exactly
 *    what counts);
 *  - no 2xx from a guarded route for a caller without a valid token, nor for B on a route whose
 *    target (path parameter, or the chat body's `chatbot_id`) is one of A's ids.
 * And after the run, A's data read back with A's own token is what it was before.
 *
 * Every failure is collected and reported together. The run is reproducible: the seed is printed,
 * and `FUZZ_SEED=<n>` replays the same sequence of choices (ids differ between runs, but each
 * choice picks the same kind of id from the same pool). `FUZZ_REQUESTS` changes the count.
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
if (!Number.isSafeInteger(SEED)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);
const REQUESTS = process.env.FUZZ_REQUESTS ? Number(process.env.FUZZ_REQUESTS) : 4000;
/** A request the app has not answered by then is reported as hanging (a watchdog, not a wait). */
const HANG_MS = 10_000;

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];
const routeKey = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

// ------------------------------------------------------------------------------------------------
// seeded randomness

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  float(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)]!;
  }
  /** one of the options, by weight */
  weighted<T>(options: ReadonlyArray<readonly [number, T]>): T {
    const total = options.reduce((s, [w]) => s + w, 0);
    let x = this.float() * total;
    for (const [w, v] of options) {
      x -= w;
      if (x < 0) return v;
    }
    return options[options.length - 1]![1];
  }
  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.'): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.float() * alphabet.length)];
    return s;
  }
  bytes(length: number): Buffer {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = Math.floor(this.float() * 256);
    return b;
  }
}

// ------------------------------------------------------------------------------------------------
// fixtures

type IdKind = 'user' | 'agent' | 'conversation' | 'message' | 'source' | 'widgetLead' | 'accountLead' | 'session';
type IdPool = Record<IdKind, string[]>;
const emptyPool = (): IdPool => ({ user: [], agent: [], conversation: [], message: [], source: [], widgetLead: [], accountLead: [], session: [] });

/** The path parameters of the route table and the kind of id each names. */
const PARAM_KIND: Record<string, IdKind> = {
  chatbot_id: 'agent',
  conversation_id: 'conversation',
  source_id: 'source',
  lead_id: 'accountLead',
  user_id: 'user',
};

interface Account {
  email: string;
  token: string;
  userId: string;
  sessionId: string;
}

interface Victim extends Account {
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

function jwtClaims(token: string): { sub: string; sid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

async function inject(t: TestApp, method: Method, url: string, token: string | undefined, payload?: unknown) {
  const res = await t.app.inject({
    method,
    url,
    headers: token ? auth(token) : {},
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return res;
}

async function ok(t: TestApp, method: Method, url: string, token: string | undefined, payload?: unknown): Promise<any> {
  const res = await inject(t, method, url, token, payload);
  if (res.statusCode >= 300) throw new Error(`setup ${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.statusCode === 204 ? undefined : res.json();
}

async function account(t: TestApp, name: string): Promise<Account> {
  const { token, email } = await registerUser(t.app, { name });
  const me = await ok(t, 'GET', '/api/auth/me', token);
  return { email, token, userId: me.id, sessionId: jwtClaims(token).sid };
}

/** Reads back every id of an account's data, by kind. */
async function collectIds(t: TestApp, acct: Account): Promise<IdPool> {
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
async function setUpVictim(t: TestApp): Promise<Victim> {
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
  const fieldsOf = { public: agentFields('agent-public'), private: agentFields('agent-private'), inactive: agentFields('agent-inactive') };
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
  if (privateSource.statusCode !== 201) throw new Error(`private source: ${privateSource.statusCode} ${privateSource.body}`);

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
  const publicMarkers = (f: { name: string; welcome_message: string }) => [f.name, f.welcome_message].map((s) => s.split(' ').pop()!);
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
async function setUpAttacker(t: TestApp): Promise<Account & { ids: IdPool }> {
  const acct = await account(t, 'Attacker');
  const agent = await createAgent(t.app, acct.token, { name: 'Attacker bot' });
  await createAgent(t.app, acct.token, { name: 'Attacker bot two', description: 'second' });
  await ok(t, 'POST', `/api/sources/chatbot/${agent.id}/text`, acct.token, { name: 'Notes', content: 'Parcels ship within two days.' });
  await ok(t, 'POST', '/api/chat', acct.token, { message: 'How fast do parcels ship?', chatbot_id: agent.id, session_id: 'attacker-session' });
  await ok(t, 'POST', `/api/public/lead/${agent.id}`, undefined, { name: 'Self', phone: '555-0100' });
  await ok(t, 'POST', '/api/leads', acct.token, { name: 'Someone', contact: 'someone@example.org' });
  return { ...acct, ids: await collectIds(t, acct) };
}

/**
 * Everything of A's, read back through A's own token. Listing and reading do not change it, so
 * two snapshots of an untouched account are equal.
 */
async function victimSnapshot(t: TestApp, a: Victim) {
  // a read that fails is recorded, not thrown, so a deleted object shows up as a difference
  const get = async (url: string): Promise<any> => {
    const res = await inject(t, 'GET', url, a.token);
    return res.statusCode === 200 ? res.json() : { status: res.statusCode, body: res.body.slice(0, 200) };
  };
  const agents: Record<string, unknown> = {};
  for (const id of [a.publicAgent, a.privateAgent, a.inactiveAgent]) {
    const conversations: Array<Record<string, unknown>> = await get(`/api/chat/conversations/${id}`);
    const messages: Record<string, unknown> = {};
    for (const c of Array.isArray(conversations) ? conversations : []) messages[c.id as string] = await get(`/api/chat/messages/${c.id}`);
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
    agentList: await get('/api/chatbots').then((list) => (Array.isArray(list) ? list.map((x: { id: string }) => x.id) : list)),
    accountLeads: await get('/api/leads'),
    agents: agents as Record<string, { agent: Record<string, unknown>; sources: unknown[]; widgetLeads: unknown[]; conversations: unknown[]; messages: Record<string, unknown> }>,
  };
}

/** Plans with limits far above what the run sends, so the answers come from the input, not a 429. */
function writeGenerousPlans(dir: string): Record<string, string> {
  const plan = { max_agents: 10_000, max_account_leads: 100_000, monthly_messages: 10_000_000, requests_per_minute: 10_000_000, requests_per_hour: 100_000_000, custom_branding: true };
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify({ free: plan, starter: plan, pro: plan }));
  return { PLANS_FILE: file };
}

// ------------------------------------------------------------------------------------------------
// the generators

interface Ctx {
  rng: Rng;
  t: TestApp;
  a: Victim;
  b: Account & { ids: IdPool };
  /** the first account (admin), never A or B */
  operator: Account;
  /** a throwaway account the operator may change */
  c: Account;
  /** every id of A's, flat */
  aIdList: string[];
  /** A's ids and email (lower-case) with what each is */
  aIdLabels: Map<string, string>;
}

/**
 * Path parameter values. A raw `../` is resolved by the injector's URL parsing before the router
 * sees it (as a browser would), so traversal is also sent percent-encoded, which arrives as is.
 */
const HOSTILE_IDS = [
  ...['..', '.', '%2e%2e', '..%2F..%2F..%2Fetc%2Fpasswd', '..%5C..%5Cwindows'],
  ...['%zz', '%', '%00', '%C0%AF', '%ED%A0%80', '%FF%FE', '%F0%9F%92%A9', '%E2%80%AE', '%20', '%09', '%0D%0A', '%5B%5D', '%7B%7D', '*', '%2A', '%25', '%2525'],
  ...['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'],
  ...['-1', '0', '1e309', 'NaN', 'Infinity', 'null', 'undefined', 'true'],
  ...["' OR '1'='1' --", '" OR ""="', '1; DROP TABLE chatbots; --', '<script>alert(1)</script>', '${7*7}{{7*7}}'].map(encodeURIComponent),
  ...['export.csv', 'me', 'users'],
];

/** A string of odd characters: control, combining, astral, RTL, zero-width, lone surrogates. */
function unicodeJunk(rng: Rng, length: number): string {
  const pieces = ['é', 'ü', '漢', '字', '🙂', '👩‍👩‍👧', '\u0301', '\u200b', '\u202e', '\ufeff', '\ud800', '\udfff', '\u0000', '\u0007', '\n', '\t', 'Ω', '\u2028', 'ﷺ', 'ß'];
  let s = '';
  while (s.length < length) s += rng.pick(pieces);
  return s;
}

/** Percent-encodes every UTF-8 byte (lone surrogates, which encodeURIComponent refuses, included). */
function pct(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

function hostileId(ctx: Ctx): string {
  const { rng } = ctx;
  return rng.weighted<() => string>([
    [6, () => rng.pick(HOSTILE_IDS)],
    [3, () => `0191${rng.string(4, '0123456789abcdef')}-${rng.string(4, '0123456789abcdef')}-7${rng.string(3, '0123456789abcdef')}-8${rng.string(3, '0123456789abcdef')}-${rng.string(12, '0123456789abcdef')}`],
    [3, () => encodeURIComponent(rng.string(rng.int(1, 40))) || 'x'],
    [2, () => 'a'.repeat(rng.int(300, 3000))],
    [1, () => encodeURIComponent(rng.string(rng.int(90, 120), 'abcdef0123456789'))],
    [2, () => pct(unicodeJunk(rng, rng.int(1, 20)))],
    [1, () => pct(unicodeJunk(rng, 5)).replace(/%/g, '%25')],
    [1, () => `..%2F${rng.pick(ctx.aIdList)}`],
  ])();
}

/** A's id in a disguise: case, padding, encoding, appended junk. */
function disguisedId(ctx: Ctx, id: string): string {
  const { rng } = ctx;
  return rng.pick([
    id.toUpperCase(),
    `${id}%00`,
    `${id}%20`,
    `%20${id}`,
    `${id}%0A`,
    encodeURIComponent(`${id}'--`),
    `${id}.json`,
    `${id}%2F..`,
    id.split('').map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
    `${id}${id}`,
    id.slice(0, -1),
  ]);
}

/** A value for a path parameter: A's ids (as they are, or disguised), B's own, or junk. */
function paramValue(ctx: Ctx, name: string, caller: Caller): string {
  const { rng, a, b } = ctx;
  const kind = PARAM_KIND[name];
  // a parameter that names no id (a file, a hash): traversal and junk, and ids all the same
  if (kind === undefined && rng.chance(0.4)) return rng.chance(0.5) ? encodeURIComponent(wildcardValue(ctx)) : wildcardValue(ctx);
  if (caller === 'operator') {
    // the operator may only change itself and the throwaway account (see `Caller`)
    return rng.weighted<() => string>([
      [3, () => ctx.c.userId],
      [1, () => ctx.operator.userId],
      [2, () => hostileId(ctx)],
    ])();
  }
  const victims = kind && a.ids[kind].length > 0 ? a.ids[kind] : ctx.aIdList;
  const own = kind && b.ids[kind].length > 0 ? b.ids[kind] : b.ids.agent;
  return rng.weighted<() => string>([
    [33, () => rng.pick(victims)],
    [7, () => rng.pick(ctx.aIdList)],
    [20, () => rng.pick(own)],
    [5, () => disguisedId(ctx, rng.pick(victims))],
    [35, () => hostileId(ctx)],
  ])();
}

function wildcardValue(ctx: Ctx): string {
  const { rng, t } = ctx;
  const up = '../'.repeat(rng.int(3, 20));
  const dbFile = t.config.databaseFile.replace(/^\//, '');
  return rng.pick([
    'index.html',
    'swagger-ui.css',
    'swagger-ui-bundle.js',
    'favicon-32x32.png',
    'does-not-exist.js',
    `${up}etc/passwd`,
    `${up}${dbFile}`,
    `${up}${path.join(t.dataDir, 'jwt-secret').replace(/^\//, '')}`,
    encodeURIComponent(`${up}${dbFile}`),
    `..%2f..%2f..%2f..%2f${encodeURIComponent(dbFile)}`,
    `%2e%2e/%2e%2e/%2e%2e/package.json`,
    '..%5c..%5cpackage.json',
    '%00',
    '.env',
    'a'.repeat(rng.int(300, 2000)),
    pct(unicodeJunk(rng, 10)),
    '%zz',
  ]);
}

const DAYS = ['', '0', '1', '7', '30', '365', '366', '-1', '1.5', '1e2', '1e309', '0x10', 'abc', '%00', 'NaN', 'Infinity', ' 30', '30%20', '９', '9'.repeat(400), '[]', '%5B1%5D', 'null'];

function queryString(ctx: Ctx, r: RouteInfo): string {
  const { rng } = ctx;
  const parts: string[] = [];
  if (r.url.startsWith('/api/analytics/') && r.url !== '/api/analytics/dashboard' ? rng.chance(0.8) : rng.chance(0.08)) {
    parts.push(
      rng.weighted<() => string>([
        [6, () => `days=${rng.pick(DAYS)}`],
        [1, () => `days=${rng.pick(DAYS)}&days=${rng.pick(DAYS)}`],
        [1, () => `days[]=${rng.pick(DAYS)}`],
        [1, () => `days[$gt]=1`],
        [1, () => `days`],
        [1, () => `DAYS=7`],
      ])(),
    );
  }
  if (rng.chance(0.15)) {
    parts.push(
      rng.pick([
        'public=true',
        `user_id=${rng.pick(ctx.a.ids.user)}`,
        `chatbot_id=${rng.pick(ctx.a.ids.agent)}`,
        '__proto__[admin]=1',
        'constructor[prototype][admin]=1',
        `q=${'x'.repeat(rng.int(100, 5000))}`,
        '%zz=%zz',
        'a=1&a=2&a=3',
        `limit=-1&offset=${rng.pick(DAYS)}`,
        'format=csv',
        pct(unicodeJunk(rng, 8)),
        '&&&==&',
      ]),
    );
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Random JSON of any shape. */
function randomJson(rng: Rng, depth = 0): unknown {
  const leaf = () =>
    rng.pick<unknown>([
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      2 ** 53,
      '',
      ' ',
      'NaN',
      'Infinity',
      '-0',
      '1e309',
      'null',
      'true',
      '0x1f',
      rng.string(rng.int(1, 30)),
      unicodeJunk(rng, rng.int(1, 10)),
      'x'.repeat(rng.int(300, 5000)),
      '\u0000',
      '../../etc/passwd',
      '<img src=x onerror=alert(1)>',
      "' OR 1=1 --",
    ]);
  if (depth > 3 || rng.chance(0.5)) return leaf();
  if (rng.chance(0.5)) return Array.from({ length: rng.int(0, 4) }, () => randomJson(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--) o[rng.pick(['name', 'message', 'id', 'x', 'user_id', 'role', rng.string(5)])] = randomJson(rng, depth + 1);
  return o;
}

const email = (rng: Rng) => `fz${rng.string(8, 'abcdefghijklmnopqrstuvwxyz0123456789')}@example.com`;

/**
 * Addresses a website source is refused for (internal, or not http(s)): the fuzz must not send the
 * crawler to the internet, so no public host is ever generated.
 */
const INTERNAL_URLS = [
  'http://127.0.0.1/',
  'http://localhost:3000/admin',
  'http://[::1]/',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://0.0.0.0/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://127.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[fd00::1]/',
  'http://100.64.0.1/',
  'file:///etc/passwd',
  'gopher://127.0.0.1:25/',
  'javascript:alert(1)',
  'data:text/html,hi',
  'ftp://10.0.0.1/',
  '//127.0.0.1/',
  'http://user:pass@127.0.0.1/',
  'not a url',
];

/** A body a route would accept in shape (ids from the pools, so sometimes A's). */
function validBody(ctx: Ctx, key: string): Record<string, unknown> | undefined {
  const { rng, a, b } = ctx;
  const maybe = (p: number, v: () => unknown) => (rng.chance(p) ? v() : undefined);
  const agentId = () => rng.weighted<() => string>([
    [4, () => rng.pick(a.ids.agent)],
    [4, () => rng.pick(b.ids.agent)],
    [2, () => hostileId(ctx)],
  ])();
  // words of A's knowledge (public and private agent alike), so answers quote passages: A's public
  // agent may show its own, never the private agent's
  const question = () =>
    rng.chance(0.35)
      ? rng.pick(['Is the shop open on weekdays?', 'What are the opening hours?', 'Is there a discount code in the price list?', 'pricing internal price list', 'Reference shop open nine five'])
      : rng.string(rng.int(1, 80));
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (key) {
    case 'POST /api/auth/register':
      return { name: rng.string(rng.int(1, 30)), email: rng.chance(0.2) ? a.email : email(rng), password: rng.string(rng.int(6, 40)) };
    case 'POST /api/auth/login':
      // never B's email: B's failures would lock B out of the re-login after a fuzzed logout
      return { email: rng.pick([a.email, a.email.toUpperCase(), ctx.operator.email, email(rng)]), password: rng.pick([rng.string(12), '', PASSWORD.slice(1)]) };
    case 'POST /api/chatbots':
    case 'PUT /api/chatbots/:chatbot_id':
      return strip({
        name: maybe(0.8, () => rng.string(rng.int(1, 40))),
        description: maybe(0.3, () => rng.string(rng.int(0, 100))),
        instructions: maybe(0.3, () => rng.string(rng.int(0, 200))),
        system_message: maybe(0.1, () => rng.string(20)),
        welcome_message: maybe(0.3, () => rng.string(rng.int(0, 60))),
        model: maybe(0.2, () => rng.pick(['gpt-4o', 'gpt-4o-mini', 'claude-3-5-haiku-latest', rng.string(10)])),
        provider: maybe(0.2, () => rng.pick(['openai', 'anthropic', 'google', 'ollama', 'azure'])),
        temperature: maybe(0.2, () => rng.pick([0, 0.5, 1, 1.5, -0.1])),
        max_tokens: maybe(0.2, () => rng.pick([1, 500, 16384, 16385, 0])),
        ...(key.startsWith('PUT')
          ? {
              status: maybe(0.2, () => rng.pick(['active', 'inactive', 'deleted'])),
              public_access: maybe(0.2, () => rng.chance(0.5)),
              primary_color: maybe(0.15, () => rng.pick(['#fff', '#123456', 'red', '#12345g'])),
              widget_position: maybe(0.1, () => rng.pick(['bottom-right', 'top-left', 'middle'])),
              widget_theme: maybe(0.1, () => rng.pick(['light', 'dark', 'auto', 'neon'])),
              widget_size: maybe(0.1, () => rng.pick(['small', 'large', 'huge'])),
              lead_capture_enabled: maybe(0.1, () => rng.chance(0.5)),
              email_alerts_enabled: maybe(0.1, () => rng.chance(0.5)),
              email_alert_address: maybe(0.1, () => rng.pick([email(rng), 'nope', null])),
              rate_limit_enabled: maybe(0.1, () => rng.chance(0.5)),
              messages_per_hour: maybe(0.1, () => rng.pick([1, 60, 0, -5, 1e9])),
              logo_url: maybe(0.1, () => rng.pick(['https://example.com/logo.png', 'javascript:alert(1)', null])),
              font_family: maybe(0.1, () => rng.pick(['Inter, sans-serif', '"Comic Sans"', 'x;}body{display:none'])),
              font_size: maybe(0.1, () => rng.pick([14, 0, 1000, 14.5])),
              bubble_style: maybe(0.1, () => rng.pick(['rounded', 'square', 'round'])),
              auto_expand: maybe(0.1, () => rng.chance(0.5)),
              powered_by_text: maybe(0.1, () => rng.pick(['Acme', null])),
              allowed_domains: maybe(0.05, () => rng.pick([[], ['example.com'], ['*.example.com:8443'], ['https://www.example.com/x'], ['*'], 'example.com', [rng.string(300)]])),
              daily_message_limit: maybe(0.05, () => rng.pick([null, 1, 0, -1, 1e12, '5'])),
            }
          : {}),
      });
    case 'PATCH /api/admin/users/:user_id':
      return strip({
        role: maybe(0.4, () => rng.pick(['user', 'admin', 'root'])),
        status: maybe(0.4, () => rng.pick(['active', 'suspended', 'banned', 'deleted'])),
        plan_id: maybe(0.4, () => rng.pick(['free', 'starter', 'pro', 'enterprise', ''])),
        plan_expires_at: maybe(0.3, () => rng.pick([null, '2020-01-01T00:00:00Z', '2999-01-01T00:00:00+02:00', 'tomorrow'])),
      });
    case 'POST /api/public/chat/:chatbot_id':
      return strip({
        message: question(),
        session_id: maybe(0.9, () => `fz-${rng.string(rng.int(1, 40), 'abcdef0123456789')}`),
        user_name: maybe(0.3, () => rng.string(rng.int(1, 30))),
        user_email: maybe(0.3, () => email(rng)),
      });
    case 'POST /api/chat':
      return strip({
        message: question(),
        chatbot_id: agentId(),
        session_id: maybe(0.6, () => `fz-${rng.string(rng.int(1, 40), 'abcdef0123456789')}`),
        user_name: maybe(0.3, () => rng.string(rng.int(1, 30))),
        user_email: maybe(0.3, () => email(rng)),
      });
    case 'POST /api/sources/chatbot/:chatbot_id/text':
      return { name: rng.string(rng.int(1, 40)), content: rng.string(rng.int(1, 500)) };
    case 'POST /api/sources/chatbot/:chatbot_id/website':
      return strip({
        url: rng.pick(INTERNAL_URLS),
        max_pages: maybe(0.3, () => rng.pick(['1', '500', '501', '0', 'x', '1.5'])),
        include_paths: maybe(0.2, () => rng.pick(['/docs,/blog', '/a', 'no-slash', ['/x', '/y']])),
        exclude_paths: maybe(0.2, () => rng.pick(['/private', ''])),
      });
    case 'POST /api/public/lead/:chatbot_id':
      return strip({
        name: rng.string(rng.int(1, 30)),
        phone: rng.pick(['+31 6 1234 5678', '555-0100', rng.string(rng.int(1, 60), '0123456789 +-()')]),
        session_id: maybe(0.4, () => `fz-${rng.string(10)}`),
      });
    case 'POST /api/leads':
    case 'PUT /api/leads/:lead_id':
      return strip({
        name: maybe(0.9, () => rng.string(rng.int(1, 40))),
        contact: maybe(0.8, () => rng.pick([email(rng), rng.string(12, '0123456789')])),
        notes: maybe(0.4, () => rng.pick([rng.string(rng.int(0, 100)), null])),
        status: maybe(0.4, () => rng.pick(['New', 'Contacted', 'Closed', 'new', 'Lost'])),
      });
    default:
      return undefined;
  }
}

/** The valid body with one or more faults: wrong types, bad values, smuggled fields. */
function mutate(ctx: Ctx, base: Record<string, unknown>): Record<string, unknown> {
  const { rng, a } = ctx;
  const out: Record<string, unknown> = { ...base };
  for (let n = rng.int(1, 3); n > 0; n--) {
    const fields = Object.keys(out);
    const field = fields.length ? rng.pick(fields) : 'name';
    rng.weighted<() => void>([
      [5, () => (out[field] = randomJson(rng))],
      [2, () => delete out[field]],
      [2, () => (out[field] = 'x'.repeat(rng.int(101, 20_000)))],
      [2, () => (out[field] = `${String(out[field] ?? '')}\u0000${rng.string(5)}`)],
      [2, () => (out[field] = unicodeJunk(rng, rng.int(1, 50)))],
      [1, () => (out[field] = [out[field]])],
      [1, () => (out[field] = { value: out[field] })],
      // fields no client may set, pointing at A
      [3, () => Object.assign(out, rng.pick([{ user_id: rng.pick(a.ids.user) }, { id: rng.pick(ctx.aIdList) }, { role: 'admin' }, { chatbot_id: rng.pick(a.ids.agent) }, { messages_count: 1e9, created_at: '1970-01-01' }, { status: 'banned' }, { plan_id: 'pro' }]))],
    ])();
  }
  return out;
}

interface Body {
  label: string;
  payload?: string | Buffer;
  contentType?: string;
}

const BOUNDARY = 'fuzz-boundary-9x8y7z';
const part = (headers: string, value: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${value}\r\n`;
const fieldPart = (name: string, value: string) => part(`Content-Disposition: form-data; name="${name}"`, value);
const filePart = (name: string, filename: string, value: string, type = 'text/plain') =>
  part(`Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}`, value);

async function multipartBody(ctx: Ctx, base: Record<string, unknown> | undefined, fileRoute: boolean): Promise<Body> {
  const { rng } = ctx;
  const fields = Object.entries(base ?? { name: 'x' }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
  const filename = () => rng.pick(['notes.txt', 'data.csv', 'doc.pdf', 'sheet.xlsx', 'x.docx', 'evil.exe', '../../../../tmp/evil.txt', '', 'a'.repeat(300) + '.txt', 'ünï cödé.txt', 'CON.txt', 'x.txt\u0000.pdf', '.txt']);
  const fileContent = () => rng.pick(['Plain text file for the knowledge base.', '%PDF-1.4 not really', 'a,b,c\n1,2,3\n', rng.bytes(rng.int(0, 400)).toString('latin1'), 'PK\u0003\u0004garbage']);
  return rng.weighted<() => Promise<Body>>([
    // well-formed (the platform's own encoder)
    [
      fileRoute ? 5 : 3,
      async () => {
        const form: Record<string, string | { filename: string; content: Uint8Array }> = Object.fromEntries(fields);
        if (fileRoute || rng.chance(0.2)) form[rng.chance(0.85) ? 'file' : rng.pick(['upload', 'content', 'name'])] = { filename: filename(), content: Buffer.from(fileContent(), 'latin1') };
        const f = await multipartForm(form);
        return { label: 'multipart', payload: f.payload, contentType: f.headers['content-type'] };
      },
    ],
    // hand-built, with odd parts
    [
      4,
      async () => {
        const parts = fields.map(([k, v]) => fieldPart(k, v));
        rng.weighted<() => void>([
          [1, () => parts.push(fieldPart(fields[0]?.[0] ?? 'name', 'duplicate'))],
          [1, () => parts.unshift(fieldPart('__proto__', '{"admin":true}'))],
          [1, () => parts.push(part('Content-Disposition: form-data', 'no name'))],
          [1, () => parts.push(part('Content-Disposition: attachment; name="x"', 'wrong disposition'))],
          [1, () => parts.push(part(`Content-Disposition: form-data; name="${'n'.repeat(5000)}"`, 'long name'))],
          [1, () => parts.push(part(`X-Junk: ${'h'.repeat(20_000)}\r\nContent-Disposition: form-data; name="h"`, 'big part header'))],
          [1, () => parts.push(filePart('file', filename(), fileContent()), filePart('file', filename(), fileContent()))],
          [1, () => parts.push(filePart(fields[0]?.[0] ?? 'content', filename(), fileContent()))],
          [1, () => parts.push(...Array.from({ length: 40 }, (_, i) => fieldPart(`f${i}`, 'v')))],
          [1, () => parts.push(part('Content-Disposition: form-data; name="content"\r\nContent-Type: text/plain; charset=utf-16', '\u00ff\u00fe'))],
          [1, () => parts.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cut"\r\n\r\nno end`)],
        ])();
        let payload = parts.join('') + `--${BOUNDARY}--\r\n`;
        payload = rng.weighted<() => string>([
          [5, () => payload],
          [1, () => payload.slice(0, rng.int(0, payload.length))],
          [1, () => payload.replaceAll('\r\n', '\n')],
          [1, () => payload.replace(`--${BOUNDARY}--`, '')],
        ])();
        const contentType = rng.weighted<() => string>([
          [6, () => `multipart/form-data; boundary=${BOUNDARY}`],
          [1, () => 'multipart/form-data'],
          [1, () => 'multipart/form-data; boundary='],
          [1, () => `multipart/form-data; boundary="${BOUNDARY}"`],
          [1, () => `multipart/form-data; boundary=${'b'.repeat(200)}`],
          [1, () => `multipart/mixed; boundary=${BOUNDARY}`],
          [1, () => `multipart/form-data; boundary=${BOUNDARY}; charset=utf-7`],
        ])();
        return { label: 'multipart (hand-built)', payload: Buffer.from(payload, 'latin1'), contentType };
      },
    ],
  ])();
}

async function bodyFor(ctx: Ctx, r: RouteInfo): Promise<Body> {
  const { rng } = ctx;
  const key = routeKey(r);
  const takesBody = BODY_METHODS.includes(r.method);
  if (!takesBody && rng.chance(0.9)) return { label: 'none' };
  if (takesBody && validBody(ctx, key) === undefined && rng.chance(0.3)) return { label: 'none' };
  const base = validBody(ctx, key);
  const json = (v: unknown, label: string): Body => ({ label, payload: JSON.stringify(v) ?? 'null', contentType: 'application/json' });
  const fileRoute = key === 'POST /api/sources/chatbot/:chatbot_id/file';
  if (fileRoute && rng.chance(0.6)) return multipartBody(ctx, undefined, true);
  return rng.weighted<() => Body | Promise<Body>>([
    [base ? 22 : 4, () => json(base ?? {}, 'valid-looking')],
    [base ? 24 : 6, () => json(mutate(ctx, base ?? { name: 'x' }), 'mutated')],
    [8, () => json(randomJson(rng), 'random JSON')],
    [2, () => ({ label: 'deep nesting', payload: '['.repeat(rng.int(100, 20_000)) + ']'.repeat(rng.int(0, 20_000)), contentType: 'application/json' })],
    [1, () => ({ label: 'deep object', payload: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), contentType: 'application/json' })],
    [
      5,
      () => ({
        label: '__proto__/constructor',
        payload: rng.pick([
          `{"__proto__":{"admin":true,"role":"admin"},${JSON.stringify(base ?? {}).slice(1)}`,
          `{"constructor":{"prototype":{"isAdmin":true}},"name":"x"}`,
          `${JSON.stringify(base ?? {}).slice(0, -1)}${base && Object.keys(base).length ? ',' : ''}"__proto__":{"user_id":"${ctx.a.userId}"}}`,
          '{"name":{"__proto__":{"polluted":1}}}',
          '[{"__proto__":{}}]',
        ]),
        contentType: 'application/json',
      }),
    ],
    [
      3,
      () => {
        const big = rng.chance(0.12) ? 1_100_000 : rng.int(300, 100_000);
        const field = base && Object.keys(base).length ? rng.pick(Object.keys(base)) : 'name';
        return json({ ...(base ?? {}), [field]: rng.string(big > 1000 ? 1 : 8).repeat(big) }, `long string (${big})`);
      },
    ],
    [4, () => json(Object.fromEntries(Object.entries(base ?? { name: 'x' }).map(([k, v]) => [k, typeof v === 'string' ? `${v}\u0000\u0000${v}` : v])), 'null bytes')],
    [
      4,
      () => {
        const text = JSON.stringify(base ?? { name: 'x' });
        const cut = rng.int(1, Math.max(1, text.length - 1));
        const bad = Buffer.concat([Buffer.from(text.slice(0, cut)), rng.pick([Buffer.from([0xc0, 0xaf]), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x28, 0xa1]), rng.bytes(8)]), Buffer.from(text.slice(cut))]);
        return { label: 'invalid UTF-8', payload: bad, contentType: 'application/json' };
      },
    ],
    [5, () => ({ label: 'truncated JSON', payload: JSON.stringify(base ?? { name: 'x' }).slice(0, rng.int(0, 20)), contentType: 'application/json' })],
    [7, () => multipartBody(ctx, base, fileRoute)],
    [
      4,
      () => ({
        label: 'form-urlencoded',
        payload: new URLSearchParams(Object.entries(base ?? { name: 'x' }).map(([k, v]) => [k, String(v)] as [string, string])).toString() + rng.pick(['', '&role=admin', '&__proto__[x]=1', '&&=%zz']),
        contentType: 'application/x-www-form-urlencoded',
      }),
    ],
    [3, () => ({ label: 'text/plain', payload: rng.chance(0.5) ? JSON.stringify(base ?? {}) : rng.string(rng.int(0, 200)), contentType: rng.pick(['text/plain', 'text/plain; charset=utf-8', 'text/html']) })],
    [4, () => ({ label: 'empty JSON body', payload: rng.pick(['', ' ', '\n\r\n']), contentType: 'application/json' })],
    [1, () => ({ label: 'BOM + JSON', payload: `\ufeff${JSON.stringify(base ?? {})}`, contentType: 'application/json' })],
    [1, () => ({ label: 'JSON with comments', payload: `{/* c */"name": "x" // x\n}`, contentType: 'application/json' })],
    [1, () => ({ label: 'no content-type', payload: JSON.stringify(base ?? {}) })],
  ])();
}

const ODD_CONTENT_TYPES = [
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/problem+json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'image/png',
  'application/octet-stream',
  'multipart/form-data',
  '*/*',
  '',
  'json',
  `application/json; boundary=${'x'.repeat(2000)}`,
];

const SITES = ['https://evil.example', 'http://localhost:3000', 'null', 'https://attacker.test', 'file://', `https://${'a'.repeat(500)}.example`, 'https://example.com.evil.example'];

function headersFor(ctx: Ctx, r: RouteInfo, body: Body, authorization: string | undefined): Record<string, string> {
  const { rng } = ctx;
  const h: Record<string, string> = {};
  if (authorization !== undefined) h.authorization = authorization;
  if (body.contentType !== undefined) h['content-type'] = body.contentType;
  if (rng.chance(0.1)) h['content-type'] = rng.pick(ODD_CONTENT_TYPES);
  const chat = r.url.includes('/chat') && r.method === 'POST';
  if (rng.chance(chat ? 0.5 : 0.12)) h.accept = 'text/event-stream';
  else if (rng.chance(0.05)) h.accept = rng.pick(['application/xml', 'text/csv', '*/*;q=0', 'text/event-stream, application/json;q=0.1', 'x'.repeat(3000)]);
  if (rng.chance(0.2)) h.origin = rng.pick(SITES);
  if (rng.chance(0.2)) {
    const ip = () => `${rng.int(1, 254)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
    h['x-forwarded-for'] = rng.pick([ip(), `${ip()}, ${ip()}, 127.0.0.1`, 'unknown', '::1', '127.0.0.1', Array.from({ length: 200 }, ip).join(', '), 'not-an-ip']);
    if (rng.chance(0.3)) h['x-real-ip'] = ip();
    if (rng.chance(0.3)) h.forwarded = `for=${ip()};proto=https;host=evil.example`;
  }
  if (rng.chance(r.method === 'OPTIONS' ? 0.7 : 0.03)) {
    h['access-control-request-method'] = rng.pick(['POST', 'GET', 'DELETE', 'PUT', 'TRACE', 'x'.repeat(500)]);
    if (rng.chance(0.5)) h['access-control-request-headers'] = rng.pick(['content-type', 'authorization, content-type', 'x-evil', '*', ',,,']);
  }
  if (rng.chance(0.05)) h[rng.pick(['x-junk', 'user-agent', 'cookie', 'referer', 'accept-language'])] = 'h'.repeat(rng.int(8_000, 64_000));
  if (rng.chance(0.04)) Object.assign(h, rng.pick([{ 'x-http-method-override': 'DELETE' }, { 'x-original-url': '/api/admin/users' }, { 'x-rewrite-url': '/api/admin/users' }, { 'x-user-id': ctx.a.userId }, { 'accept-encoding': 'gzip, br, zstd, identity;q=0' }, { 'transfer-encoding': 'chunked' }, { 'content-encoding': 'gzip' }, { expect: '100-continue' }]));
  return h;
}

/**
 * Who sends a request. B sends most, with its own valid token; the rest carry no valid token:
 * none, garbage, another scheme, B's token without the scheme, `alg: none`, B's claims signed
 * with another key, an expired token signed with the real key, and (signed with the real key, so
 * only the server-side session check stands between it and A's data) A's `sub` with B's `sid`.
 * The operator (the first account, admin) only calls the user admin routes, on itself and a
 * throwaway account: an admin legitimately reads and changes every account, so its answers are
 * checked for 5xx only, and it never targets A or B (A's data must stay unchanged, B must keep its
 * rights). Other admin-only routes (whole-server operations) get B and callers without a token.
 */
type Caller = 'B' | 'anonymous' | 'garbage' | 'basic' | 'bare-token' | 'alg-none' | 'wrong-key' | 'expired' | 'cross-sub' | 'operator';
const NO_VALID_TOKEN: Caller[] = ['anonymous', 'garbage', 'basic', 'bare-token', 'alg-none', 'wrong-key', 'expired', 'cross-sub'];

async function authorizationFor(ctx: Ctx, caller: Caller): Promise<string | undefined> {
  const { rng, b, a, t } = ctx;
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>, key: Uint8Array, iat: number, exp: number) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(iat).setExpirationTime(exp).sign(key);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  switch (caller) {
    case 'B':
      // mostly the canonical form; sometimes a variant a server may accept or refuse (either is
      // fine: it is B's own valid token)
      return rng.chance(0.9) ? `Bearer ${b.token}` : rng.pick([`bearer ${b.token}`, `BEARER ${b.token}`, `Bearer  ${b.token}`, `Bearer ${b.token} `]);
    case 'operator':
      return `Bearer ${ctx.operator.token}`;
    case 'anonymous':
      return undefined;
    case 'garbage':
      return rng.pick(['Bearer ', 'Bearer', 'Bearer not.a.jwt', `Bearer ${rng.string(40)}`, `Bearer ${'x'.repeat(rng.int(1000, 20_000))}`, 'Bearer a.b.c.d', `Bearer ${b.token}x`, `Bearer ${b.token.slice(0, -2)}`, `Bearer ${b.token.split('.').slice(0, 2).join('.')}.`, `Bearer ${b.token},${b.token}`, 'Bearer null', 'Token abc', '']);
    case 'basic':
      return `Basic ${Buffer.from(`${a.email}:${PASSWORD}`).toString('base64')}`;
    case 'bare-token':
      return b.token;
    case 'alg-none':
      return `Bearer ${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: rng.pick([a.userId, b.userId]), sid: rng.pick([a.sessionId, b.sessionId]), iat: now, exp: now + 3600 })}.`;
    case 'wrong-key':
      return `Bearer ${await sign({ sub: rng.pick([a.userId, b.userId]), sid: rng.pick([a.sessionId, b.sessionId]) }, randomBytes(48), now, now + 3600)}`;
    case 'expired':
      return `Bearer ${await sign({ sub: b.userId, sid: b.sessionId }, t.config.jwtSecret, now - 7200, now - 3600)}`;
    case 'cross-sub':
      return `Bearer ${await sign({ sub: a.userId, sid: b.sessionId }, t.config.jwtSecret, now, now + 3600)}`;
  }
}

// ------------------------------------------------------------------------------------------------
// what counts as a leak

interface Sent {
  caller: Caller;
  route: RouteInfo;
  method: Method;
  url: string;
  /** path parameter values as put in the URL (before the router decodes them) */
  params: Record<string, string>;
  headers: Record<string, string>;
  body: Body;
}

interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Everything the caller put in the request, lower-cased: what the caller already knew. */
function requestText(s: Sent): string {
  const body = s.body.payload === undefined ? '' : Buffer.isBuffer(s.body.payload) ? s.body.payload.toString('latin1') : s.body.payload;
  const url = `${s.url} ${safeDecode(s.url)} ${safeDecode(safeDecode(s.url))}`;
  return `${url} ${JSON.stringify(s.headers)} ${body}`.toLowerCase();
}

/**
 * The leak rule. For every request by B or by a caller without a valid token:
 *
 * 1. No marker of A's may appear in the response (body or headers, compared lower-cased). Markers
 *    are never sent by the fuzzer, so a marker in an answer can only come from A's stored data.
 *    The one exception is what A made public on purpose, and only on the public route that shows
 *    it, for the agent in the URL:
 *    - public agent info (GET/HEAD /api/public/chatbot/{id}) and the share page (GET/HEAD
 *      /chat/{id}) of A's public or inactive agent (both have public_access on): that agent's name
 *      and welcome message;
 *    - public chat (POST /api/public/chat/{id}) with A's public agent: its name and welcome
 *      message (the answer when nothing matches) and its knowledge: source names, contents, ids
 *      (with no provider key the answer quotes the best passages and lists their sources).
 *    Never: description, instructions, private agents' anything, conversations, messages,
 *    visitors' names, leads, the user's name.
 * 2. No id of A's (user, session, agent, conversation, message, source, lead, A's email) may
 *    appear unless the caller itself sent it (in the URL, query, headers or body): an id B typed
 *    echoed back in a 404 detail tells B nothing. Any id B did not send is A's data (for example
 *    a 404 for A's agent that names A's source, or a list with A's conversation in it). Public
 *    chat with A's public agent may name that agent's sources (rule 1).
 * 3. A guarded route never answers 2xx to a caller without a valid token, and never answers 2xx to
 *    B when its target is one of A's ids, as sent or disguised (a path parameter or the chat
 *    body's `chatbot_id` whose decoded, lower-cased value contains the id): even a body that shows
 *    nothing (204, a HEAD) means B reached or changed A's object. The final read-back catches
 *    changes that slip past this (an A id smuggled in a body field).
 */
/** Routes that show an agent's public face (the widget's info, the share page). */
const PUBLIC_INFO_ROUTES = ['GET /api/public/chatbot/:chatbot_id', 'HEAD /api/public/chatbot/:chatbot_id', 'GET /chat/:chatbot_id', 'HEAD /chat/:chatbot_id'];

function leaksIn(ctx: Ctx, s: Sent, res: Answer): { leaks: string[]; shownPublicly: boolean } {
  if (s.caller === 'operator') return { leaks: [], shownPublicly: false };
  const { a } = ctx;
  const found: string[] = [];
  const key = routeKey(s.route);
  const target = safeDecode(s.params.chatbot_id ?? '');
  const allowedMarkers = new Set<string>();
  const allowedIds = new Set<string>();
  if (PUBLIC_INFO_ROUTES.includes(key) && a.publicInfo.has(target)) {
    for (const m of a.publicInfo.get(target)!) allowedMarkers.add(m);
  }
  if (key === 'POST /api/public/chat/:chatbot_id' && target === a.publicAgent) {
    for (const m of [...a.publicInfo.get(target)!, ...a.publicKnowledge.markers]) allowedMarkers.add(m);
    for (const id of a.publicKnowledge.ids) allowedIds.add(id);
  }
  const answer = `${res.body} ${JSON.stringify(res.headers)}`.toLowerCase();
  let shownPublicly = false;
  for (const [marker, label] of a.markers) {
    if (!answer.includes(marker)) continue;
    if (allowedMarkers.has(marker)) shownPublicly = true;
    else found.push(`A's ${label} (marker ${marker})`);
  }
  const sent = requestText(s);
  for (const [id, label] of ctx.aIdLabels) {
    if (answer.includes(id) && !sent.includes(id) && !allowedIds.has(id)) found.push(`A's ${label} ${id}, which the request did not contain`);
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && !s.route.public) {
    if (NO_VALID_TOKEN.includes(s.caller)) found.push(`2xx from a guarded route without a valid token (${s.caller})`);
    const targets = Object.values(s.params).map((v) => safeDecode(safeDecode(v)).toLowerCase());
    if (key === 'POST /api/chat' && typeof s.body.payload === 'string') {
      try {
        const chatbot = (JSON.parse(s.body.payload) as { chatbot_id?: unknown }).chatbot_id;
        if (typeof chatbot === 'string') targets.push(chatbot.toLowerCase());
      } catch {
        // not JSON: no chatbot_id to check
      }
    }
    for (const [id, label] of ctx.aIdLabels) {
      if (targets.some((v) => v.includes(id))) found.push(`2xx on a guarded route targeting A's ${label} ${id}`);
    }
  }
  return { leaks: found, shownPublicly };
}

// ------------------------------------------------------------------------------------------------

function excerpt(v: string | Buffer | undefined, n = 240): string {
  if (v === undefined) return '(none)';
  const s = Buffer.isBuffer(v) ? v.toString('latin1') : v;
  return JSON.stringify(s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
}

/**
 * The routes fuzzed. Every route of the table is in, HEAD duplicates included (cheap, and HEAD runs
 * the GET handler). The docs and OpenAPI routes take no input but their URL, so they get a small
 * share; the static-file wildcard gets traversal paths aimed at the database and the JWT key.
 * Nothing is left out.
 */
/**
 * Event streams (live handoff) stay open for as long as the client reads, so an injected request
 * that gets in never ends: they are left out here, and test/modules/handoff.test.ts checks their
 * refusals (another account, a wrong session) over a real socket.
 */
const isEventStream = (r: RouteInfo) => r.url.endsWith('/events');

function routeWeight(r: RouteInfo): number {
  if (isEventStream(r)) return 0;
  if (r.url === '/openapi.json' || r.url.startsWith('/docs')) return r.url === '/docs/static/*' ? 0.6 : 0.3;
  return r.method === 'HEAD' ? 0.4 : 1;
}

/**
 * The admin UI and the widget are served from their build output, and answer 503 "... is not built"
 * when a checkout has not built them: a state of the checkout, not an answer to the request. Each
 * bundle's entry is probed once before the run; only if the probe says "not built" is a 503 with
 * exactly that body (or a HEAD whose GET twin gets it) counted apart instead of failing. The URL
 * matters not (`/chat/..` is resolved to `/` before routing). With the bundles built, every 5xx
 * fails.
 */
const BUNDLE_ENTRIES = ['/', '/widget.js'];
const NOT_BUILT = /^\{"detail":"The [\w ]+ is not built"\}$/;

async function notBuiltAnswers(t: TestApp): Promise<Set<string>> {
  const out = new Set<string>();
  for (const url of BUNDLE_ENTRIES) {
    if (!t.app.routeTable.some((r) => r.url === url)) continue;
    const res = await t.app.inject({ method: 'GET', url });
    if (res.statusCode === 503 && NOT_BUILT.test(res.body)) out.add(res.body);
  }
  return out;
}

/** Who sends a request to `r` (see `Caller`). */
function pickCaller(ctx: Ctx, r: RouteInfo): Caller {
  const { rng } = ctx;
  if (r.url.startsWith('/api/admin/users') && rng.chance(0.4)) return 'operator';
  const noToken = rng.weighted<() => Caller>([
    [4, () => 'anonymous'],
    [2, () => 'garbage'],
    [1, () => 'basic'],
    [1, () => 'bare-token'],
    [1, () => 'alg-none'],
    [1, () => 'wrong-key'],
    [1, () => 'expired'],
    [1, () => 'cross-sub'],
  ]);
  return rng.chance(r.public ? 0.45 : 0.7) ? 'B' : noToken();
}

describe('fuzz: every route, random and hostile requests', () => {
  let t: TestApp;
  let ctx: Ctx;
  let before: Awaited<ReturnType<typeof victimSnapshot>>;

  const plansDir = makeDataDir();

  beforeAll(async () => {
    t = await startTestApp({ env: writeGenerousPlans(plansDir) });
    const operator = await account(t, 'Operator');
    const a = await setUpVictim(t);
    const b = await setUpAttacker(t);
    const c = await account(t, 'Throwaway');
    expect((await ok(t, 'GET', '/api/auth/me', operator.token)).role).toBe('admin');
    expect((await ok(t, 'GET', '/api/auth/me', b.token)).role).toBe('user');
    // the key file is A's secret too: a traversal that serves it must be caught
    const secret = readFileSync(path.join(t.dataDir, 'jwt-secret'), 'utf8').trim();
    if (secret.length >= 16) a.markers.set(secret.toLowerCase(), 'JWT signing key');
    const aIdLabels = new Map<string, string>();
    for (const [kind, list] of Object.entries(a.ids)) for (const id of list) aIdLabels.set(id.toLowerCase(), `${kind} id`);
    aIdLabels.set(a.email.toLowerCase(), 'email');
    ctx = { rng: new Rng(SEED), t, a, b, operator, c, aIdList: Object.values(a.ids).flat(), aIdLabels };
    // the fixture really has data of every kind to protect
    for (const kind of ['agent', 'conversation', 'message', 'source', 'widgetLead', 'accountLead'] as const) expect(a.ids[kind].length, kind).toBeGreaterThan(0);
    before = await victimSnapshot(t, a);
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
    rmSync(plansDir, { recursive: true, force: true });
  });

  it(`sends ${REQUESTS} requests: no 5xx, no cross-account data, A's data unchanged`, async () => {
    const { rng } = ctx;
    console.log(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
    const routes = t.app.routeTable.filter((r) => routeWeight(r) > 0);
    expect(routes.length).toBe(t.app.routeTable.filter((r) => !isEventStream(r)).length);
    const weighted = routes.map((r) => [routeWeight(r), r] as const);

    const serverErrors: string[] = [];
    const leaks: string[] = [];
    const byStatus = new Map<number, number>();
    const perRoute = new Map<string, { sent: number; pastAuth: number }>(routes.map((r) => [routeKey(r), { sent: 0, pastAuth: 0 }]));
    let relogins = 0;
    let notBuilt = 0;
    let noAnswer = 0;
    /** answers that showed what A made public (the exception in `leaksIn` is exercised) */
    let shownPublicly = 0;
    const unbuilt = await notBuiltAnswers(t);
    if (unbuilt.size) console.log(`fuzz: a bundle is not built in this checkout, 503s answering ${[...unbuilt].join(' ')} are counted apart`);
    const started = Date.now();

    // every route first, once each in the seed's order, so a route of small weight is never left
    // out by chance as the route table grows; then the weighted draw
    const firstRound = [...routes];
    for (let i = firstRound.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [firstRound[i], firstRound[j]] = [firstRound[j]!, firstRound[i]!];
    }
    for (let i = 0; i < REQUESTS; i++) {
      const route = i < firstRound.length ? firstRound[i]! : rng.weighted(weighted);
      const caller = pickCaller(ctx, route);
      const params: Record<string, string> = {};
      let url = route.url.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => (params[name] = paramValue(ctx, name, caller)));
      if (url.endsWith('*')) url = url.slice(0, -1) + wildcardValue(ctx);
      url += queryString(ctx, route);
      const body = await bodyFor(ctx, route);
      const headers = headersFor(ctx, route, body, await authorizationFor(ctx, caller));
      const sent: Sent = { caller, route, method: route.method as Method, url, params, headers, body };
      const what = () => `#${i} ${sent.method} ${url.length > 300 ? `${url.slice(0, 300)}…` : url} as ${caller}${caller === 'B' || caller === 'anonymous' ? '' : ` (authorization ${excerpt(headers.authorization, 80)})`}, body ${body.label} ${excerpt(body.payload)}, content-type ${JSON.stringify(headers['content-type'] ?? null)}`;

      let watchdog: NodeJS.Timeout | undefined;
      const res = await Promise.race([
        t.app.inject({ method: sent.method, url, headers, ...(body.payload === undefined ? {} : { payload: body.payload }) }),
        new Promise<'hung'>((resolve) => (watchdog = setTimeout(() => resolve('hung'), HANG_MS))),
      ]).finally(() => clearTimeout(watchdog));
      if (res === 'hung') {
        noAnswer++;
        serverErrors.push(`${what()}\n    -> no answer within ${HANG_MS} ms`);
        continue;
      }
      byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
      const stats = perRoute.get(routeKey(route))!;
      stats.sent++;
      if (res.statusCode !== 401) stats.pastAuth++;

      const unbuiltBundle =
        res.statusCode === 503 &&
        unbuilt.size > 0 &&
        (unbuilt.has(res.body) || (sent.method === 'HEAD' && unbuilt.has((await t.app.inject({ method: 'GET', url, headers })).body)));
      if (unbuiltBundle) {
        notBuilt++;
      } else if (res.statusCode >= 500 || res.body.includes('Internal server error')) {
        serverErrors.push(`${what()}\n    -> ${res.statusCode} ${excerpt(res.body)}`);
      }
      const checked = leaksIn(ctx, sent, res);
      if (checked.shownPublicly) shownPublicly++;
      for (const leak of checked.leaks) leaks.push(`${what()}\n    -> ${res.statusCode}: ${leak}; response ${excerpt(res.body)}`);

      // B logged itself out: log in again (from another address, so the login throttle that the
      // fuzzed logins may have tripped for this one does not answer) and carry on with a new token
      if (caller === 'B' && routeKey(route) === 'POST /api/auth/logout' && res.statusCode === 200) {
        const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '198.51.100.7', payload: { email: ctx.b.email, password: PASSWORD } });
        expect(login.statusCode, `re-login of B: ${login.body}`).toBe(200);
        ctx.b.token = login.json().access_token;
        ctx.b.sessionId = jwtClaims(ctx.b.token).sid;
        relogins++;
      }
      // keep B's pools fresh as it creates and deletes its own things
      if (caller === 'B' && res.statusCode >= 200 && res.statusCode < 300 && route.method === 'POST') {
        let created: { id?: unknown; conversation_id?: unknown } | undefined;
        try {
          created = res.json();
        } catch {
          created = undefined;
        }
        const id = typeof created?.id === 'string' ? created.id : undefined;
        const k = routeKey(route);
        if (id && k === 'POST /api/chatbots') ctx.b.ids.agent.push(id);
        else if (id && k.startsWith('POST /api/sources/')) ctx.b.ids.source.push(id);
        else if (id && k === 'POST /api/leads') ctx.b.ids.accountLead.push(id);
        else if (k === 'POST /api/chat' && typeof created?.conversation_id === 'string') ctx.b.ids.conversation.push(created.conversation_id);
      }
    }

    const elapsed = Date.now() - started;
    const classes = new Map<string, number>();
    for (const [status, n] of byStatus) classes.set(`${Math.floor(status / 100)}xx`, (classes.get(`${Math.floor(status / 100)}xx`) ?? 0) + n);
    const total = [...byStatus.values()].reduce((s, n) => s + n, 0) + noAnswer;
    console.log(
      `fuzz: ${total} requests in ${elapsed} ms, seed ${SEED}; ` +
        [...classes].sort().map(([c, n]) => `${c} ${n}`).join(', ') +
        (noAnswer ? `, no answer ${noAnswer}` : '') +
        `; by status ${[...byStatus].sort((x, y) => x[0] - y[0]).map(([s, n]) => `${s}:${n}`).join(' ')}; B re-logins ${relogins}; ${shownPublicly} answers showed A's public agent info or knowledge` +
        (notBuilt ? `; ${notBuilt} of the 503s are "not built" answers of an unbuilt bundle` : ''),
    );

    expect.soft(serverErrors, `${serverErrors.length} requests got a server error (seed ${SEED}):\n${serverErrors.join('\n')}`).toEqual([]);
    expect.soft(leaks, `${leaks.length} responses leaked A's data (seed ${SEED}):\n${leaks.join('\n')}`).toEqual([]);

    // the run reached every route, and got past authentication on each (so it fuzzed the handlers,
    // not just the 401)
    const unreached = [...perRoute].filter(([, s]) => s.sent === 0 || s.pastAuth === 0).map(([k, s]) => `${k} (${s.sent} sent, ${s.pastAuth} past auth)`);
    expect.soft(unreached, 'routes the run never got past authentication on').toEqual([]);
    expect.soft(classes.get('2xx') ?? 0, 'a fair share of accepted requests').toBeGreaterThan(total / 20);

    // A's data, read back with A's token: nothing B did changed or removed any of it. The only
    // growth allowed is what A's public agent takes from visitors: new conversations (with their
    // messages), widget leads and the agent's two counters.
    const after = await victimSnapshot(t, ctx.a);
    expect.soft(after.me).toEqual(before.me);
    expect.soft(after.agentList).toEqual(before.agentList);
    expect.soft(after.accountLeads).toEqual(before.accountLeads);
    for (const id of before.agentList) {
      const was = before.agents[id]!;
      const now = after.agents[id]!;
      expect.soft(now.sources, `sources of ${id}`).toEqual(was.sources);
      for (const [conversation, messages] of Object.entries(was.messages)) expect.soft(now.messages[conversation], `messages of ${conversation}`).toEqual(messages);
      if (id !== ctx.a.publicAgent) {
        expect.soft(now, `agent ${id}, not open to visitors`).toEqual(was);
        continue;
      }
      const { messages_count: mWas, conversations_count: cWas, ...restWas } = was.agent;
      const { messages_count: mNow, conversations_count: cNow, ...restNow } = now.agent;
      expect.soft(restNow, 'the public agent').toEqual(restWas);
      expect.soft(mNow as number).toBeGreaterThanOrEqual(mWas as number);
      expect.soft(cNow as number).toBeGreaterThanOrEqual(cWas as number);
      for (const c of was.conversations) expect.soft(now.conversations, 'an earlier conversation of the public agent').toContainEqual(c);
      for (const l of was.widgetLeads) expect.soft(now.widgetLeads, 'an earlier widget lead').toContainEqual(l);
    }
  }, 180_000);

  // Two requests this fuzz found answered with a 500 and with no answer at all (fixed in the route)
  it('the file-source route refuses multipart/form-data without a boundary with a 400', async () => {
    const { token } = await registerUser(t.app, { name: 'Uploader' });
    const agent = await createAgent(t.app, token, { name: 'Upload target' });
    for (const payload of [undefined, '', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhi\r\n--x--\r\n']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/file`,
        headers: { ...auth(token), 'content-type': 'multipart/form-data' },
        ...(payload === undefined ? {} : { payload }),
      });
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(400);
    }
  });

  it('the file-source route answers an upload cut off inside the file part with a 400', async () => {
    const { token } = await registerUser(t.app, { name: 'Uploader' });
    const agent = await createAgent(t.app, token, { name: 'Upload target' });
    const boundary = 'cut-off-upload';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nhello the`;
    let watchdog: NodeJS.Timeout | undefined;
    const res = await Promise.race([
      t.app.inject({ method: 'POST', url: `/api/sources/chatbot/${agent.id}/file`, headers: { ...auth(token), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload }),
      new Promise<'no answer'>((resolve) => (watchdog = setTimeout(() => resolve('no answer'), HANG_MS))),
    ]).finally(() => clearTimeout(watchdog));
    expect(res === 'no answer' ? res : res.statusCode).toBe(400);
  });
});
