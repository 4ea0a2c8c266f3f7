import { randomUUID } from 'node:crypto';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { MAX_TEXT_SOURCE_CHARS } from '../../src/modules/knowledge/service.js';
import {
  PASSWORD,
  ROOMY_PLAN,
  auth,
  createAgent,
  makeDataDir,
  registerUser,
  startTestApp,
  type TestApp,
  writePlansFile,
} from '../helpers/app.js';

/**
 * Attack suite: every route that takes a body gets malformed input of every kind, and every
 * route with an id gets hostile ids. Each answer must be a 4xx with a JSON `detail`, never a 5xx,
 * and nothing stored may change. Public routes (agent info, widget chat) are attacked without a
 * token, as a visitor would; the others with the owner's valid token, so only the input is wrong.
 */

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** Routes that take form fields (multipart/form-data, or a JSON object of strings) and their fields. */
const FORM_ROUTES: Record<string, Record<string, 'string'>> = {
  'POST /api/sources/chatbot/:chatbot_id/text': { name: 'string', content: 'string' },
  'POST /api/sources/chatbot/:chatbot_id/website': { url: 'string' },
  'POST /alerts/confirm': { token: 'string' },
};
/** Multipart-only routes whose body is a file stream (covered by test/modules/ingestion tests). */
const FILE_ROUTES = ['POST /api/sources/chatbot/:chatbot_id/file'];
/** The chat routes; they answer Server-Sent Events when asked to. */
const CHAT_ROUTES = ['POST /api/public/chat/:chatbot_id', 'POST /api/chat'];
const TEXT_SOURCE = 'POST /api/sources/chatbot/:chatbot_id/text';
const TEXT_SOURCE_ROUTE: RouteInfo = { method: 'POST', url: '/api/sources/chatbot/:chatbot_id/text', public: false };

/** Plans with room for hundreds of requests per minute, so rate limits never answer for validation. */
function generousPlansEnv(): Record<string, string> {
  return { PLANS_FILE: writePlansFile(makeDataDir(), { free: ROOMY_PLAN }) };
}

interface Ctx {
  app: App;
  token: string;
  adminEmail: string;
  adminId: string;
  /** public and active: only the input can make a request to it fail */
  agentId: string;
  /** public_access false */
  privateAgentId: string;
  /** status inactive */
  inactiveAgentId: string;
  /** a text source of agentId, and a conversation (with messages) of agentId */
  sourceId: string;
  conversationId: string;
}

async function setUp(t: TestApp, adminEmail: string): Promise<Ctx> {
  const { token } = await registerUser(t.app, { email: adminEmail });
  const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
  expect(me.json().role).toBe('admin');
  const agent = await createAgent(t.app, token, { name: 'Target bot', description: 'must not change' });
  expect(agent.public_access).toBe(true);
  expect(agent.status).toBe('active');
  const updated = async (name: string, change: Record<string, unknown>) => {
    const created = await createAgent(t.app, token, { name });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${created.id}`,
      headers: auth(token),
      payload: change,
    });
    expect(res.statusCode, res.body).toBe(200);
    return created.id as string;
  };
  const privateAgentId = await updated('Private bot', { public_access: false });
  const inactiveAgentId = await updated('Paused bot', { status: 'inactive' });
  // stored data for the refused requests to leave alone
  const source = await t.app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${agent.id}/text`,
    headers: auth(token),
    payload: {
      name: 'Opening hours',
      content: 'The shop is open from nine to five on weekdays and closed on Sundays.',
    },
  });
  expect(source.statusCode, source.body).toBe(201);
  const chat = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agent.id}`,
    payload: { message: 'When is the shop open?', session_id: 'seed-session' },
  });
  expect(chat.statusCode, chat.body).toBe(200);
  return {
    app: t.app,
    token,
    adminEmail,
    adminId: me.json().id,
    agentId: agent.id as string,
    privateAgentId,
    inactiveAgentId,
    sourceId: source.json().id,
    conversationId: chat.json().conversation_id,
  };
}

const routeKey = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

/** A concrete URL for a route: known params become the fixtures' ids, others a random id. */
function urlFor(ctx: Ctx, r: RouteInfo): string {
  return r.url
    .replace(':chatbot_id', ctx.agentId)
    .replace(':user_id', ctx.adminId)
    .replace(/:[A-Za-z_]\w*/g, () => randomUUID());
}

/** The owner's token on guarded routes; nothing on public ones (a visitor has no token). */
function credentials(ctx: Ctx, r: RouteInfo): Record<string, string> {
  return r.public ? {} : auth(ctx.token);
}

/** A body each route accepts (checked by the control test), so one bad field is the only fault. */
function validBody(ctx: Pick<Ctx, 'adminEmail' | 'agentId'>, r: RouteInfo): Record<string, unknown> | undefined {
  switch (`${r.method} ${r.url}`) {
    case 'POST /api/auth/register':
      return { name: 'Newcomer', email: 'newcomer@example.com', password: 'another long password' };
    case 'POST /api/auth/login':
      return { email: ctx.adminEmail, password: PASSWORD };
    case 'POST /api/chatbots':
      return { name: 'Second bot' };
    case 'PUT /api/chatbots/:chatbot_id':
      return { name: 'Renamed bot' };
    case 'PATCH /api/admin/users/:user_id':
      return { plan_id: 'free' };
    case 'POST /api/public/chat/:chatbot_id':
      return {
        message: 'When is the shop open?',
        session_id: 'visitor-session',
        user_name: 'Visitor',
        user_email: 'visitor@example.com',
      };
    case 'POST /api/chat':
      return {
        message: 'When is the shop open?',
        chatbot_id: ctx.agentId,
        session_id: 'owner-session',
        user_name: 'Owner',
        user_email: 'tester@example.com',
      };
    case TEXT_SOURCE:
      return { name: 'Returns', content: 'Goods may be returned within thirty days with the receipt.' };
    case 'POST /api/public/lead/:chatbot_id':
      return { name: 'Visitor', phone: '+31 6 1234 5678', session_id: 'visitor-session' };
    case 'POST /api/leads':
      return { name: 'Prospect', contact: 'prospect@example.com', notes: 'met at the fair', status: 'New' };
    default:
      return undefined;
  }
}

function openApiPath(url: string): string {
  // a collection's slash twin (`/api/chatbots/`) is documented without the slash
  return url.replace(/(.)\/$/, '$1').replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

function bodySchema(doc: OpenAPIV3.Document, r: RouteInfo): OpenAPIV3.SchemaObject | undefined {
  const op = doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase() as 'post'];
  const body = op?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  return body?.content['application/json']?.schema as OpenAPIV3.SchemaObject | undefined;
}

/** The body's fields and their schemas: from the OpenAPI JSON body, or the form routes' own list. */
function bodyFields(
  doc: OpenAPIV3.Document,
  r: RouteInfo,
): Record<string, OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject> | undefined {
  const form = FORM_ROUTES[routeKey(r)];
  if (form) return Object.fromEntries(Object.entries(form).map(([field, type]) => [field, { type }]));
  return bodySchema(doc, r)?.properties;
}

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** The JSON types a property schema allows (OpenAPI 3.0: type, nullable, enum, anyOf/oneOf). */
function allowedTypes(schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject): Set<JsonType> | undefined {
  if ('$ref' in schema) return undefined;
  const out = new Set<JsonType>();
  const types = (schema as { type?: string | string[] }).type;
  for (const ty of Array.isArray(types) ? types : types ? [types] : []) out.add(ty as JsonType);
  if (schema.nullable) out.add('null');
  for (const v of schema.enum ?? []) out.add(v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as JsonType));
  for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const inner = allowedTypes(sub);
    if (!inner) return undefined;
    for (const ty of inner) out.add(ty);
  }
  if (out.has('integer')) out.add('number'); // an integer field still takes JSON numbers (1.5 is tried below)
  return out.size > 0 ? out : undefined;
}

/** Values of a JSON type the property does not allow. */
function wrongValues(allowed: Set<JsonType>): Array<[string, unknown]> {
  const candidates: Array<[JsonType, string, unknown]> = [
    ['string', 'a string', 'not-the-right-type'],
    ['string', 'a numeric string', '1'],
    ['number', 'a number', 12345],
    ['boolean', 'a boolean', true],
    ['object', 'an object', { nested: { deeper: 1 } }],
    ['array', 'an array', ['x', 1]],
    ['null', 'null', null],
  ];
  const out = candidates.filter(([ty]) => !allowed.has(ty)).map(([, label, v]) => [label, v] as [string, unknown]);
  if (allowed.has('integer') && !allowed.has('string')) out.push(['a fraction', 1.5]);
  return out;
}

interface Attempt {
  label: string;
  payload: string;
  contentType?: string;
}

/** multipart/form-data bodies built by hand, so they can be broken in every way. */
const BOUNDARY = 'x-test-boundary-7MA4YWxkTrZu0gW';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const field = (name: string, value: string) => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
const filePart = (name: string, content: string) =>
  `Content-Disposition: form-data; name="${name}"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n${content}`;
const openParts = (parts: string[], boundary = BOUNDARY) => parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('');
const multipartBody = (parts: string[], boundary = BOUNDARY) => `${openParts(parts, boundary)}--${boundary}--\r\n`;
const validFormParts = () => [
  field('name', 'Returns'),
  field('content', 'Goods may be returned within thirty days with the receipt.'),
];

interface FormAttempt extends Attempt {
  /** the statuses allowed; the detail must mention `mentions` when given */
  status: number[];
  mentions?: string;
}

/** Malformed multipart bodies for the text-source route; each has exactly one fault. */
function formAttempts(): FormAttempt[] {
  const fieldLimit = MAX_TEXT_SOURCE_CHARS * 4; // the route's per-field byte limit (form.ts)
  const [name, content] = validFormParts() as [string, string];
  return [
    // missing or empty fields
    { label: 'no parts at all', payload: multipartBody([]), status: [400], mentions: 'name' },
    { label: 'name missing', payload: multipartBody([content]), status: [400], mentions: 'name' },
    { label: 'content missing', payload: multipartBody([name]), status: [400], mentions: 'content' },
    {
      label: 'only unknown fields',
      payload: multipartBody([field('title', 'Returns'), field('text', 'Some text')]),
      status: [400],
    },
    { label: 'empty name', payload: multipartBody([field('name', ''), content]), status: [400], mentions: 'name' },
    {
      label: 'whitespace-only name',
      payload: multipartBody([field('name', ' \t '), content]),
      status: [400],
      mentions: 'name',
    },
    {
      label: 'name over 200 characters',
      payload: multipartBody([field('name', 'n'.repeat(201)), content]),
      status: [400],
      mentions: 'name',
    },
    {
      label: 'empty content',
      payload: multipartBody([name, field('content', '')]),
      status: [400],
      mentions: 'content',
    },
    {
      label: 'content of whitespace only',
      payload: multipartBody([name, field('content', ' \r\n\t ')]),
      status: [400],
      mentions: 'content',
    },
    // files where fields are expected
    {
      label: 'content sent as a file part',
      payload: multipartBody([name, filePart('content', 'Some text')]),
      status: [400],
      mentions: 'content',
    },
    {
      label: 'name sent as a file part (first)',
      payload: multipartBody([filePart('name', 'Returns'), content]),
      status: [400],
      mentions: 'name',
    },
    {
      label: 'an extra file part next to both fields',
      payload: multipartBody([name, content, filePart('attachment', 'x')]),
      status: [400],
    },
    {
      label: 'two file parts',
      payload: multipartBody([filePart('a', 'x'), filePart('b', 'y'), name, content]),
      status: [400, 413],
    },
    // limits
    {
      label: 'too many parts (30 fields)',
      payload: multipartBody([name, content, ...Array.from({ length: 28 }, (_, i) => field(`extra${i}`, 'v'))]),
      status: [400, 413],
    },
    {
      label: 'content over the field size limit',
      payload: multipartBody([name, field('content', 'a'.repeat(fieldLimit + 1))]),
      status: [413, 400],
    },
    {
      label: 'content over the character cap',
      payload: multipartBody([name, field('content', 'ab '.repeat(Math.ceil(MAX_TEXT_SOURCE_CHARS / 3) + 1))]),
      status: [400, 413],
    },
    {
      label: '__proto__ as a field name',
      payload: multipartBody([field('__proto__', 'x'), name, content]),
      status: [400],
    },
    // broken framing
    { label: 'an empty body', payload: '', status: [400] },
    {
      label: 'framed with another boundary',
      payload: multipartBody(validFormParts(), 'some-other-boundary'),
      status: [400],
    },
    {
      label: 'no boundary in the content type',
      payload: multipartBody(validFormParts()),
      contentType: 'multipart/form-data',
      status: [400],
    },
    {
      label: 'an empty boundary in the content type',
      payload: multipartBody(validFormParts()),
      contentType: 'multipart/form-data; boundary=',
      status: [400],
    },
    { label: 'no closing delimiter', payload: openParts(validFormParts()), status: [400] },
    {
      label: 'closing delimiter without its final dashes',
      payload: `${openParts(validFormParts())}--${BOUNDARY}`,
      status: [400],
    },
    {
      label: 'a new part opened and never finished',
      payload: `${openParts(validFormParts())}--${BOUNDARY}\r\nContent-Disposition: form-da`,
      status: [400],
    },
    {
      label: 'cut off inside the last part',
      payload: `--${BOUNDARY}\r\n${name}\r\n--${BOUNDARY}\r\n${content.slice(0, -10)}`,
      status: [400],
    },
    { label: 'LF line endings only', payload: multipartBody(validFormParts()).replaceAll('\r\n', '\n'), status: [400] },
    {
      label: 'delimiters without the CRLF before them',
      payload: `--${BOUNDARY}\r\n${name}--${BOUNDARY}\r\n${content}--${BOUNDARY}--\r\n`,
      status: [400],
    },
    {
      label: 'multipart/mixed',
      payload: multipartBody(validFormParts()),
      contentType: `multipart/mixed; boundary=${BOUNDARY}`,
      status: [415],
    },
  ];
}

/** Malformed at the transport or parser level: refused before any handler, for every body route. */
function parserAttempts(): Attempt[] {
  const big = 'a'.repeat(2 * 1024 * 1024);
  return [
    { label: 'invalid JSON (truncated)', payload: '{"name": "x",' },
    { label: 'invalid JSON (single quotes)', payload: "{'name': 'x'}" },
    { label: 'invalid JSON (trailing garbage)', payload: '{"name": "x"} trailing' },
    { label: 'invalid JSON (NaN)', payload: '{"name": NaN}' },
    { label: 'empty body with content-type json', payload: '' },
    { label: 'whitespace body with content-type json', payload: '   \n ' },
    { label: 'a 2 MB string field', payload: JSON.stringify({ name: big, email: big, password: big }) },
    { label: '__proto__ key', payload: '{"name":"x","__proto__":{"role":"admin","isAdmin":true}}' },
    { label: 'nested __proto__ key', payload: '{"name":"x","description":{"__proto__":{"polluted":true}}}' },
    { label: 'constructor.prototype', payload: '{"name":"x","constructor":{"prototype":{"role":"admin"}}}' },
    { label: 'form-urlencoded', payload: 'name=x&role=admin', contentType: 'application/x-www-form-urlencoded' },
    {
      label: 'multipart',
      payload: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n',
      contentType: 'multipart/form-data; boundary=b',
    },
    { label: 'xml', payload: '<name>x</name>', contentType: 'application/xml' },
  ];
}

/** Well-formed JSON of the wrong shape: for routes whose body has a schema. */
function shapeAttempts(base: Record<string, unknown> | undefined): Attempt[] {
  const valid = JSON.stringify(base ?? {});
  const deep = '['.repeat(50_000) + ']'.repeat(50_000);
  return [
    { label: 'a JSON array', payload: '[]' },
    { label: 'an array holding the valid body', payload: `[${valid}]` },
    { label: 'JSON null', payload: 'null' },
    { label: 'a number', payload: '42' },
    { label: 'a string', payload: '"just a string"' },
    { label: 'a boolean', payload: 'true' },
    { label: 'deeply nested arrays', payload: deep },
    { label: 'the valid body as text/plain', payload: valid, contentType: 'text/plain' },
    { label: 'the valid body as text/html', payload: valid, contentType: 'text/html' },
  ];
}

async function send(ctx: Ctx, r: RouteInfo, a: Attempt, extraHeaders: Record<string, string> = {}) {
  return ctx.app.inject({
    method: r.method as Method,
    url: urlFor(ctx, r),
    headers: { ...credentials(ctx, r), 'content-type': a.contentType ?? 'application/json', ...extraHeaders },
    payload: a.payload,
  });
}

/**
 * Routes whose body is read as raw bytes and checked against a signature before anything parses it
 * (WhatsApp's webhook: X-Hub-Signature-256): no body schema, and an unsigned body is 401 whatever it holds.
 */
const SIGNED_ROUTES = ['POST /api/channels/whatsapp/:chatbot_id'];

function expectClientError(
  res: { statusCode: number; headers: Record<string, unknown>; body: string; json: () => any },
  what: string,
): void {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
  expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
  const detail = res.json().detail;
  expect(detail === undefined || detail === null, `${what}: has a detail`).toBe(false);
  expect(['string', 'object'], what).toContain(typeof detail);
}

describe('malformed bodies and hostile ids', () => {
  let t: TestApp;
  let ctx: Ctx;
  let doc: OpenAPIV3.Document;
  let bodyRoutes: RouteInfo[];
  let before: unknown;
  /** another account, registered before the snapshot */
  let strangerToken: string;

  async function snapshot(): Promise<unknown> {
    const get = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: auth(ctx.token) });
      expect(res.statusCode, `GET ${url} (snapshot): ${res.body}`).toBe(200);
      return res.json();
    };
    const rows = (sql: string) => t.database.sqlite.prepare(sql).all();
    return {
      me: await get('/api/auth/me'),
      agent: await get(`/api/chatbots/${ctx.agentId}`),
      agents: await get('/api/chatbots'),
      users: await get('/api/admin/users'),
      sources: await get(`/api/sources/chatbot/${ctx.agentId}`),
      // reading the transcript marks it read (owner_read_at, unread): that is the snapshot's own doing
      conversations: ((await get(`/api/chat/conversations/${ctx.agentId}`)) as Array<Record<string, unknown>>).map(
        ({ unread: _, ...c }) => c,
      ),
      messages: await get(`/api/chat/messages/${ctx.conversationId}`),
      db: {
        users: rows('SELECT * FROM users ORDER BY id'),
        chatbots: rows('SELECT * FROM chatbots ORDER BY id'),
        // last_used_at is renewed by use; everything else about a session must stay put
        sessions: rows('SELECT id, user_id, created_at, expires_at FROM sessions ORDER BY id'),
        sources: rows('SELECT * FROM sources ORDER BY id'),
        chunks: rows('SELECT * FROM chunks ORDER BY id'),
        conversations: rows('SELECT * FROM conversations ORDER BY id').map((c) => ({
          ...(c as object),
          owner_read_at: undefined,
        })),
        messages: rows('SELECT * FROM messages ORDER BY id'),
      },
    };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: generousPlansEnv() });
    ctx = await setUp(t, 'owner@example.com');
    strangerToken = (await registerUser(t.app, { email: 'stranger@example.com' })).token;
    await createAgent(t.app, strangerToken, { name: "Stranger's bot" });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    bodyRoutes = t.app.routeTable.filter((r) => BODY_METHODS.includes(r.method));
    before = await snapshot();
    // the snapshot covers stored knowledge and chat, not just empty tables
    const db = (before as { db: Record<string, unknown[]> }).db;
    for (const table of ['sources', 'chunks', 'conversations', 'messages'])
      expect(db[table]!.length, table).toBeGreaterThan(0);
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  it('finds the body routes, and the ones with a body schema', () => {
    const withSchema = bodyRoutes.filter((r) => bodySchema(doc, r)).map(routeKey);
    expect(withSchema).toEqual(
      expect.arrayContaining([
        'POST /api/auth/register',
        'POST /api/auth/login',
        'POST /api/chatbots',
        'PUT /api/chatbots/:chatbot_id',
        'PATCH /api/admin/users/:user_id',
        'POST /api/public/lead/:chatbot_id',
        'POST /api/leads',
        'PUT /api/leads/:lead_id',
        ...CHAT_ROUTES,
      ]),
    );
    // the form route has no JSON body schema: its fields come from FORM_ROUTES and it gets the
    // multipart attacks below
    expect(bodyRoutes.map(routeKey)).toEqual(expect.arrayContaining(Object.keys(FORM_ROUTES)));
    for (const r of bodyRoutes) {
      if (bodySchema(doc, r) || FORM_ROUTES[routeKey(r)]) continue;
      // routes that take no body at all
      expect(
        [
          'POST /api/auth/logout',
          'PATCH /api/chatbots/:chatbot_id/toggle',
          'POST /api/sources/:source_id/recrawl',
          'POST /api/chatbots/:chatbot_id/alert-address/confirmation',
          'POST /api/webhooks/:id/rotate-secret',
          'POST /api/chatbots/:chatbot_id/identity-secret',
          'POST /api/webhooks/:id/deliveries/:delivery_id/retry',
          'POST /api/webhooks/:id/test',
          'POST /api/chat/conversations/:chatbot_id/:conversation_id/take',
          'POST /api/chat/conversations/:chatbot_id/:conversation_id/hand-back',
          'POST /api/chat/conversations/:chatbot_id/:conversation_id/draft-reply',
          'POST /api/chatbots/:chatbot_id/gaps/:gap_id/dismiss',
          'POST /api/chatbots/:chatbot_id/tests/run',
          ...FILE_ROUTES,
          ...SIGNED_ROUTES,
        ],
        routeKey(r),
      ).toContain(routeKey(r));
    }
    expect(
      bodyRoutes
        .filter((r) => r.public)
        .map(routeKey)
        .sort(),
    ).toEqual([
      'POST /alerts/confirm',
      'POST /api/auth/login',
      'POST /api/auth/password-reset',
      'POST /api/auth/password-reset/confirm',
      'POST /api/auth/register',
      'POST /api/channels/whatsapp/:chatbot_id',
      'POST /api/public/channels/telegram/:connection_id',
      'POST /api/public/chat/:chatbot_id',
      'POST /api/public/chat/:chatbot_id/action-runs/:run_id/cancel',
      'POST /api/public/chat/:chatbot_id/action-runs/:run_id/confirm',
      'POST /api/public/chat/:chatbot_id/actions/:action_id/start',
      'POST /api/public/chat/:chatbot_id/escalate',
      'POST /api/public/chat/:chatbot_id/feedback',
      'POST /api/public/lead/:chatbot_id',
      'POST /api/team/join',
    ]);
  });

  it('parser-level garbage is refused with 4xx + detail on every body route', async () => {
    for (const r of bodyRoutes) {
      for (const a of parserAttempts()) {
        // zero bytes are no body (docs/API-NOTES.md "Errors"): a route that takes none runs (api-compat.test.ts)
        if (a.payload === '' && !bodyFields(doc, r) && !FILE_ROUTES.includes(routeKey(r))) continue;
        const res = await send(ctx, r, a);
        expectClientError(res, `${r.method} ${r.url} with ${a.label}`);
        if (a.label === 'a 2 MB string field') expect([400, 413], `${r.method} ${r.url}`).toContain(res.statusCode);
        if (
          a.label.startsWith('invalid JSON') ||
          a.label.includes('__proto__') ||
          a.label === 'constructor.prototype'
        ) {
          // a signed route checks the signature of the raw bytes before it reads them: unsigned is 401
          const refused = SIGNED_ROUTES.includes(routeKey(r)) ? 401 : 400;
          expect(res.statusCode, `${r.method} ${r.url} with ${a.label}`).toBe(refused);
        }
      }
    }
    expect(await snapshot()).toEqual(before);
    // nothing got polluted in this process either
    expect(({} as Record<string, unknown>).role).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('JSON of the wrong shape is refused with 400 + detail on every route with a body schema or form fields', async () => {
    for (const r of bodyRoutes.filter((x) => bodyFields(doc, x))) {
      for (const a of shapeAttempts(validBody(ctx, r))) {
        const res = await send(ctx, r, a);
        expectClientError(res, `${r.method} ${r.url} with ${a.label}`);
        if (!a.contentType) expect(res.statusCode, `${r.method} ${r.url} with ${a.label}`).toBe(400);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a wrong type in any one field is refused with 400 and a detail naming the field', async () => {
    let tried = 0;
    const covered = new Set<string>();
    for (const r of bodyRoutes) {
      const fields = bodyFields(doc, r);
      if (!fields) continue;
      const base = validBody(ctx, r);
      for (const [field, propSchema] of Object.entries(fields)) {
        const allowed = allowedTypes(propSchema);
        if (!allowed) continue;
        for (const [label, value] of wrongValues(allowed)) {
          tried += 1;
          covered.add(`${routeKey(r)} ${field}`);
          const what = `${r.method} ${r.url} with ${field} = ${label}`;
          const res = await send(ctx, r, { label, payload: JSON.stringify({ ...base, [field]: value }) });
          expectClientError(res, what);
          expect(res.statusCode, what).toBe(400);
          if (base) expect(JSON.stringify(res.json().detail), what).toContain(field);
        }
      }
    }
    // register, login, create, update, patch-user, chat and text-source fields: well over a hundred cases
    expect(tried).toBeGreaterThan(150);
    expect([...covered]).toEqual(
      expect.arrayContaining([
        ...['message', 'session_id', 'user_name', 'user_email'].map((f) => `POST /api/public/chat/:chatbot_id ${f}`),
        ...['message', 'chatbot_id', 'session_id', 'user_name', 'user_email'].map((f) => `POST /api/chat ${f}`),
        `${TEXT_SOURCE} name`,
        `${TEXT_SOURCE} content`,
      ]),
    );
    expect(await snapshot()).toEqual(before);
  });

  it('the text-source route refuses malformed multipart forms with 4xx + detail', async () => {
    const r = t.app.routeTable.find((x) => routeKey(x) === TEXT_SOURCE)!;
    for (const a of formAttempts()) {
      const res = await send(ctx, r, { ...a, contentType: a.contentType ?? MULTIPART });
      const what = `${TEXT_SOURCE} with ${a.label}`;
      expectClientError(res, what);
      expect(a.status, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
      if (a.mentions) expect(JSON.stringify(res.json().detail), what).toContain(a.mentions);
    }
    // a well-formed form for an agent that does not exist is a 404, not a new source
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${randomUUID()}/text`,
      headers: { ...auth(ctx.token), 'content-type': MULTIPART },
      payload: multipartBody(validFormParts()),
    });
    expect(res.statusCode, res.body).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('routes that take no form refuse a multipart body instead of ignoring it', async () => {
    // @fastify/multipart accepts the type on every route; a route that reads no form must not run
    // as if the request had no body (logout would end the session, toggle would flip the agent)
    for (const r of bodyRoutes.filter((x) => !FORM_ROUTES[routeKey(x)])) {
      const res = await send(ctx, r, {
        label: 'multipart',
        payload: multipartBody(validFormParts()),
        contentType: MULTIPART,
      });
      expectClientError(res, `${routeKey(r)} with a multipart body`);
      expect([400, 415], `${routeKey(r)}: ${res.body}`).toContain(res.statusCode);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refused chat requests answer JSON errors even when an event stream is asked for', async () => {
    const accept = { accept: 'text/event-stream' };
    for (const r of bodyRoutes.filter((x) => CHAT_ROUTES.includes(routeKey(x)))) {
      const base = validBody(ctx, r)!;
      const attempts: Array<Attempt & { status: number }> = [
        { label: 'invalid JSON', payload: '{"message": ', status: 400 },
        { label: 'a JSON array', payload: '[]', status: 400 },
        { label: 'message missing', payload: JSON.stringify({ ...base, message: undefined }), status: 400 },
        { label: 'message a number', payload: JSON.stringify({ ...base, message: 42 }), status: 400 },
        { label: 'an empty message', payload: JSON.stringify({ ...base, message: '' }), status: 400 },
        { label: 'a whitespace-only message', payload: JSON.stringify({ ...base, message: ' \n\t ' }), status: 400 },
        {
          label: 'a message over 4000 characters',
          payload: JSON.stringify({ ...base, message: 'why '.repeat(1001) }),
          status: 413,
        },
        { label: 'a 900 kB message', payload: JSON.stringify({ ...base, message: 'x'.repeat(900_000) }), status: 413 },
        {
          label: 'a body over 1 MB',
          payload: JSON.stringify({ ...base, message: 'x'.repeat(1_100_000) }),
          status: 413,
        },
        {
          label: 'a too-long session_id',
          payload: JSON.stringify({ ...base, session_id: 's'.repeat(201) }),
          status: 400,
        },
        { label: 'a blank session_id', payload: JSON.stringify({ ...base, session_id: '   ' }), status: 400 },
        {
          label: 'an invalid user_email',
          payload: JSON.stringify({ ...base, user_email: 'not an email' }),
          status: 400,
        },
        {
          label: 'a too-long user_name',
          payload: JSON.stringify({ ...base, user_name: 'n'.repeat(101) }),
          status: 400,
        },
        {
          label: 'form-urlencoded',
          payload: 'message=hi&session_id=s',
          contentType: 'application/x-www-form-urlencoded',
          status: 415,
        },
        {
          label: 'multipart',
          payload: multipartBody([field('message', 'hi'), field('session_id', 's')]),
          contentType: MULTIPART,
          status: 415,
        },
      ];
      for (const a of attempts) {
        for (const headers of [accept, {}]) {
          const what = `${routeKey(r)} with ${a.label}${'accept' in headers ? ' (event stream asked for)' : ''}`;
          const res = await send(ctx, r, a, headers);
          expectClientError(res, what);
          expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(a.status);
        }
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('public chat and agent info refuse agents a visitor may not use, and store nothing', async () => {
    const body = validBody(ctx, { method: 'POST', url: '/api/public/chat/:chatbot_id', public: true })!;
    const cases: Array<[string, string, number]> = [
      ['an unknown agent', randomUUID(), 404],
      ['an agent without public access', ctx.privateAgentId, 403],
      ['an inactive agent', ctx.inactiveAgentId, 400],
    ];
    for (const [label, id, status] of cases) {
      for (const headers of [{ accept: 'text/event-stream' }, {}]) {
        const res = await ctx.app.inject({ method: 'POST', url: `/api/public/chat/${id}`, headers, payload: body });
        expectClientError(res, `public chat to ${label}`);
        expect(res.statusCode, `public chat to ${label}: ${res.body}`).toBe(status);
      }
    }
    for (const id of [randomUUID(), ctx.privateAgentId]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/public/chatbot/${id}` });
      expectClientError(res, `public info of ${id}`);
      expect(JSON.stringify(res.json()), 'no agent fields leak').not.toContain('instructions');
    }
    expect(await snapshot()).toEqual(before);
  });

  it("another account's agent, conversation and source are refused like unknown ones, and change nothing", async () => {
    const stranger = auth(strangerToken);
    const attempts: Array<{ method: Method; url: string; payload?: unknown; headers?: Record<string, string> }> = [
      {
        method: 'POST',
        url: '/api/chat',
        payload: validBody(ctx, { method: 'POST', url: '/api/chat', public: false }),
      },
      { method: 'GET', url: `/api/chat/conversations/${ctx.agentId}` },
      { method: 'GET', url: `/api/chat/messages/${ctx.conversationId}` },
      { method: 'GET', url: `/api/sources/chatbot/${ctx.agentId}` },
      { method: 'POST', url: `/api/sources/chatbot/${ctx.agentId}/text`, payload: validBody(ctx, TEXT_SOURCE_ROUTE) },
      {
        method: 'POST',
        url: `/api/sources/chatbot/${ctx.agentId}/text`,
        payload: multipartBody(validFormParts()),
        headers: { 'content-type': MULTIPART },
      },
      { method: 'DELETE', url: `/api/sources/${ctx.sourceId}` },
    ];
    for (const a of attempts) {
      const res = await t.app.inject({
        method: a.method,
        url: a.url,
        headers: { ...stranger, ...a.headers },
        ...(a.payload ? { payload: a.payload as string } : {}),
      });
      expectClientError(res, `stranger: ${a.method} ${a.url}`);
      expect(res.statusCode, `stranger: ${a.method} ${a.url}: ${res.body}`).toBe(404);
    }
    expect(await snapshot()).toEqual(before);
  });

  describe('hostile ids', () => {
    /**
     * A dot-dot id in a one-segment route (`/chat/..`, `/assets/%2e%2e`) is resolved away by URL
     * rules before routing: the request is for `/`, the admin UI's page, which rightly answers 200.
     */
    const resolvesToRoot = (url: string) => new URL(url, 'http://x').pathname === '/';

    const ids: Array<[string, string]> = [
      ['300 characters', 'a'.repeat(300)],
      ['150 characters', 'b'.repeat(150)],
      ['bad percent-encoding', '%zz'],
      ['percent sign alone', '%'],
      ['encoded NUL', '%00'],
      ['encoded ../', '..%2F..%2Fetc%2Fpasswd'],
      ['encoded ..', '%2e%2e'],
      ['dot-dot segment', '..'],
      ['SQL', encodeURIComponent("' OR '1'='1' --")],
      ['markup', encodeURIComponent('<script>alert(1)</script>')],
      ['emoji', '%F0%9F%92%A9'],
      ['overlong UTF-8', '%C0%AF'],
      ['lone surrogate', '%ED%A0%80'],
      ['RTL override', '%E2%80%AE'],
      ['encoded space', '%20'],
      ['__proto__', '__proto__'],
      ['constructor', 'constructor'],
      ['a number', '-1'],
      ['huge number', '1e309'],
      ['null', 'null'],
    ];

    /**
     * Bodies sent with a hostile id: an empty object (validation may answer first) and the route's
     * valid body (so the id is the only fault). Public routes get them without a token.
     */
    const payloadsFor = (r: RouteInfo): Array<Record<string, unknown> | undefined> =>
      BODY_METHODS.includes(r.method) ? [{}, ...(validBody(ctx, r) ? [validBody(ctx, r)] : [])] : [undefined];

    it('give 4xx, never 5xx, on every route with a parameter', async () => {
      const paramRoutes = t.app.routeTable.filter((r) => /:[A-Za-z_]/.test(r.url));
      expect(paramRoutes.length).toBeGreaterThan(3);
      expect(paramRoutes.map(routeKey)).toEqual(
        expect.arrayContaining([
          'GET /api/public/chatbot/:chatbot_id',
          'POST /api/public/chat/:chatbot_id',
          'GET /api/chat/conversations/:chatbot_id',
          'GET /api/chat/messages/:conversation_id',
          'GET /api/sources/chatbot/:chatbot_id',
          TEXT_SOURCE,
          'DELETE /api/sources/:source_id',
        ]),
      );
      for (const r of paramRoutes) {
        for (const [label, id] of ids) {
          for (const payload of payloadsFor(r)) {
            const url = r.url.replace(/:[A-Za-z_]\w*/g, id);
            if (resolvesToRoot(url)) continue;
            const res = await t.app.inject({
              method: r.method as Method,
              url,
              headers: credentials(ctx, r),
              ...(payload ? { payload } : {}),
            });
            const what = `${r.method} ${r.url} with ${label} (${payload ? 'body' : 'no body'}): ${res.statusCode} ${res.body.slice(0, 160)}`;
            expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
            expect(res.statusCode, what).toBeLessThan(500);
          }
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    it('answer JSON with a detail (ids the router itself accepts)', async () => {
      // bad percent-encoding (invalid UTF-8 included) and over-long params are answered by Fastify
      // before any hook: see the known bug below
      const refusedByRouter = [
        '300 characters',
        'bad percent-encoding',
        'percent sign alone',
        'overlong UTF-8',
        'lone surrogate',
      ];
      const routed = ids.filter(([label]) => !refusedByRouter.includes(label));
      for (const r of t.app.routeTable.filter((x) => /:[A-Za-z_]/.test(x.url) && x.method !== 'HEAD')) {
        for (const [label, id] of routed) {
          for (const payload of payloadsFor(r)) {
            if (resolvesToRoot(r.url.replace(/:[A-Za-z_]\w*/g, id))) continue;
            const res = await t.app.inject({
              method: r.method as Method,
              url: r.url.replace(/:[A-Za-z_]\w*/g, id),
              headers: credentials(ctx, r),
              ...(payload ? { payload } : {}),
            });
            expectClientError(res, `${r.method} ${r.url} with ${label} (${payload ? 'body' : 'no body'})`);
          }
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    // KNOWN BUG: Fastify answers bad percent-encoding (FST_ERR_BAD_URL, 400) and params over
    // maxParamLength (FST_ERR_MAX_PARAM_LENGTH, 414) itself, with {error, code, message,
    // statusCode} and no security headers, unless the `frameworkErrors` server option (app.ts)
    // routes them to the error handler. When one of these starts passing, drop its `.fails`.
    // [method, url, with the owner's token]; the public ones are tried as a visitor, without one
    const refusedUrls: Array<[Method, string, boolean]> = [
      ['GET', '/api/chatbots/%zz', true],
      ['GET', '/api/chatbots/%C0%AF', true],
      ['GET', `/api/chatbots/${'a'.repeat(300)}`, true],
      ['GET', '/api/public/chatbot/%zz', false],
      ['GET', `/api/public/chatbot/${'a'.repeat(300)}`, false],
      ['POST', '/api/public/chat/%ED%A0%80', false],
      ['POST', `/api/public/chat/${'a'.repeat(300)}`, false],
      ['GET', '/api/chat/messages/%zz', true],
      ['POST', `/api/sources/chatbot/${'a'.repeat(300)}/text`, true],
      ['DELETE', '/api/sources/%C0%AF', true],
    ];
    const sendRefused = (method: Method, url: string, withToken: boolean) =>
      t.app.inject({
        method,
        url,
        headers: withToken ? auth(ctx.token) : {},
        ...(method === 'POST' ? { payload: {} } : {}),
      });
    it('answer JSON with a detail even when the router refuses the URL', async () => {
      for (const [method, url, withToken] of refusedUrls) {
        const res = await sendRefused(method, url, withToken);
        expectClientError(res, `${method} ${url}`);
      }
    });
    it('carry the security headers even when the router refuses the URL', async () => {
      for (const [method, url, withToken] of refusedUrls) {
        const res = await sendRefused(method, url, withToken);
        expect(res.headers['x-content-type-options'], `${method} ${url}`).toBe('nosniff');
      }
    });
  });
});

describe('control: the valid bodies used above are accepted', () => {
  let t: TestApp;
  let ctx: Ctx;
  beforeAll(async () => {
    t = await startTestApp({ env: generousPlansEnv() });
    ctx = await setUp(t, 'control-owner@example.com');
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  it('each base body gives 2xx, so the refusals above come from the one bad field', async () => {
    const routes = t.app.routeTable.filter((r) => BODY_METHODS.includes(r.method) && validBody(ctx, r));
    // register, login, create agent, update agent, patch user, public chat, chat, text source
    expect(routes.length).toBe(10);
    for (const r of routes) {
      // public routes as a visitor (no token), the others as the owner; chat has no provider key
      // here, so it answers from the knowledge base (200)
      const res = await t.app.inject({
        method: r.method as Method,
        url: urlFor(ctx, r),
        headers: credentials(ctx, r),
        payload: validBody(ctx, r),
      });
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeGreaterThanOrEqual(200);
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeLessThan(300);
    }
  });

  it('the base multipart form gives 201, so the form refusals above come from the one fault', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${ctx.agentId}/text`,
      headers: { ...auth(ctx.token), 'content-type': MULTIPART },
      payload: multipartBody(validFormParts()),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Returns', type: 'text', status: 'completed' });
  });

  it('the base chat bodies also stream when an event stream is asked for', async () => {
    for (const r of t.app.routeTable.filter((x) => CHAT_ROUTES.includes(routeKey(x)))) {
      const res = await t.app.inject({
        method: 'POST',
        url: urlFor(ctx, r),
        headers: { ...credentials(ctx, r), accept: 'text/event-stream' },
        payload: validBody(ctx, r),
      });
      expect(res.statusCode, `${routeKey(r)}: ${res.body}`).toBe(200);
      expect(String(res.headers['content-type']), routeKey(r)).toMatch(/^text\/event-stream/);
      expect(res.body, routeKey(r)).toContain('event: done');
    }
  });
});
