import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { PASSWORD, auth, createAgent, makeDataDir, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * Attack suite: every route that takes a body gets malformed input of every kind, and every
 * route with an id gets hostile ids. Each answer must be a 4xx with a JSON `detail`, never a 5xx,
 * and nothing stored may change.
 */

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** Plans with room for hundreds of requests per minute, so rate limits never answer for validation. */
function generousPlansEnv(): Record<string, string> {
  const dir = makeDataDir();
  const plan = { max_agents: 50, max_account_leads: 1000, monthly_messages: 100000, requests_per_minute: 100000, requests_per_hour: 1000000, custom_branding: true };
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify({ free: plan }));
  return { PLANS_FILE: file };
}

interface Ctx {
  app: App;
  token: string;
  adminEmail: string;
  adminId: string;
  agentId: string;
}

async function setUp(t: TestApp, adminEmail: string): Promise<Ctx> {
  const { token } = await registerUser(t.app, { email: adminEmail });
  const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
  expect(me.json().role).toBe('admin');
  const agent = await createAgent(t.app, token, { name: 'Target bot', description: 'must not change' });
  return { app: t.app, token, adminEmail, adminId: me.json().id, agentId: agent.id as string };
}

/** A concrete URL for a route: known params become the fixtures' ids, others a random id. */
function urlFor(ctx: Ctx, r: RouteInfo): string {
  return r.url
    .replace(':chatbot_id', ctx.agentId)
    .replace(':user_id', ctx.adminId)
    .replace(/:[A-Za-z_]\w*/g, () => randomUUID());
}

/** A body each route accepts (checked by the control test), so one bad field is the only fault. */
function validBody(ctx: Pick<Ctx, 'adminEmail'>, r: RouteInfo): Record<string, unknown> | undefined {
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
    default:
      return undefined;
  }
}

function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

function bodySchema(doc: OpenAPIV3.Document, r: RouteInfo): OpenAPIV3.SchemaObject | undefined {
  const op = doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase() as 'post'];
  const body = op?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  return body?.content['application/json']?.schema as OpenAPIV3.SchemaObject | undefined;
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
    { label: 'multipart', payload: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n', contentType: 'multipart/form-data; boundary=b' },
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

async function send(ctx: Ctx, r: RouteInfo, a: Attempt) {
  return ctx.app.inject({
    method: r.method as Method,
    url: urlFor(ctx, r),
    headers: { ...auth(ctx.token), 'content-type': a.contentType ?? 'application/json' },
    payload: a.payload,
  });
}

function expectClientError(res: { statusCode: number; headers: Record<string, unknown>; body: string; json: () => any }, what: string): void {
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
      db: {
        users: rows('SELECT * FROM users ORDER BY id'),
        chatbots: rows('SELECT * FROM chatbots ORDER BY id'),
        // last_used_at is renewed by use; everything else about a session must stay put
        sessions: rows('SELECT id, user_id, created_at, expires_at FROM sessions ORDER BY id'),
      },
    };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: generousPlansEnv() });
    ctx = await setUp(t, 'owner@example.com');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    bodyRoutes = t.app.routeTable.filter((r) => BODY_METHODS.includes(r.method));
    before = await snapshot();
  });
  afterAll(async () => t.cleanup());

  it('finds the body routes, and the ones with a body schema', () => {
    const withSchema = bodyRoutes.filter((r) => bodySchema(doc, r)).map((r) => `${r.method} ${r.url}`);
    expect(withSchema).toEqual(
      expect.arrayContaining([
        'POST /api/auth/register',
        'POST /api/auth/login',
        'POST /api/chatbots',
        'PUT /api/chatbots/:chatbot_id',
        'PATCH /api/admin/users/:user_id',
      ]),
    );
  });

  it('parser-level garbage is refused with 4xx + detail on every body route', async () => {
    for (const r of bodyRoutes) {
      for (const a of parserAttempts()) {
        const res = await send(ctx, r, a);
        expectClientError(res, `${r.method} ${r.url} with ${a.label}`);
        if (a.label === 'a 2 MB string field') expect([400, 413], `${r.method} ${r.url}`).toContain(res.statusCode);
        if (a.label.startsWith('invalid JSON') || a.label.includes('__proto__') || a.label === 'constructor.prototype') {
          expect(res.statusCode, `${r.method} ${r.url} with ${a.label}`).toBe(400);
        }
      }
    }
    expect(await snapshot()).toEqual(before);
    // nothing got polluted in this process either
    expect(({} as Record<string, unknown>).role).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('JSON of the wrong shape is refused with 400 + detail on every route with a body schema', async () => {
    for (const r of bodyRoutes.filter((x) => bodySchema(doc, x))) {
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
    for (const r of bodyRoutes) {
      const schema = bodySchema(doc, r);
      if (!schema) continue;
      const base = validBody(ctx, r);
      for (const [field, propSchema] of Object.entries(schema.properties ?? {})) {
        const allowed = allowedTypes(propSchema);
        if (!allowed) continue;
        for (const [label, value] of wrongValues(allowed)) {
          tried += 1;
          const what = `${r.method} ${r.url} with ${field} = ${label}`;
          const res = await send(ctx, r, { label, payload: JSON.stringify({ ...base, [field]: value }) });
          expectClientError(res, what);
          expect(res.statusCode, what).toBe(400);
          if (base) expect(JSON.stringify(res.json().detail), what).toContain(field);
        }
      }
    }
    // register, login, create, update and patch-user fields: well over a hundred cases
    expect(tried).toBeGreaterThan(100);
    expect(await snapshot()).toEqual(before);
  });

  describe('hostile ids', () => {
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

    it('give 4xx, never 5xx, on every route with a parameter', async () => {
      const paramRoutes = t.app.routeTable.filter((r) => /:[A-Za-z_]/.test(r.url));
      expect(paramRoutes.length).toBeGreaterThan(3);
      for (const r of paramRoutes) {
        for (const [label, id] of ids) {
          const url = r.url.replace(/:[A-Za-z_]\w*/g, id);
          const res = await t.app.inject({
            method: r.method as Method,
            url,
            headers: auth(ctx.token),
            ...(BODY_METHODS.includes(r.method) ? { payload: {} } : {}),
          });
          const what = `${r.method} ${r.url} with ${label}: ${res.statusCode} ${res.body.slice(0, 160)}`;
          expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, what).toBeLessThan(500);
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    it('answer JSON with a detail (ids the router itself accepts)', async () => {
      // bad percent-encoding (invalid UTF-8 included) and over-long params are answered by Fastify
      // before any hook: see the known bug below
      const refusedByRouter = ['300 characters', 'bad percent-encoding', 'percent sign alone', 'overlong UTF-8', 'lone surrogate'];
      const routed = ids.filter(([label]) => !refusedByRouter.includes(label));
      for (const r of t.app.routeTable.filter((x) => /:[A-Za-z_]/.test(x.url) && x.method !== 'HEAD')) {
        for (const [label, id] of routed) {
          const res = await t.app.inject({
            method: r.method as Method,
            url: r.url.replace(/:[A-Za-z_]\w*/g, id),
            headers: auth(ctx.token),
            ...(BODY_METHODS.includes(r.method) ? { payload: {} } : {}),
          });
          expectClientError(res, `${r.method} ${r.url} with ${label}`);
        }
      }
    });

    // KNOWN BUG: Fastify answers bad percent-encoding (FST_ERR_BAD_URL, 400) and params over
    // maxParamLength (FST_ERR_MAX_PARAM_LENGTH, 414) itself, with {error, code, message,
    // statusCode} and no security headers, unless the `frameworkErrors` server option (app.ts)
    // routes them to the error handler. When one of these starts passing, drop its `.fails`.
    const refusedUrls = ['/api/chatbots/%zz', '/api/chatbots/%C0%AF', `/api/chatbots/${'a'.repeat(300)}`];
    it('answer JSON with a detail even when the router refuses the URL', async () => {
      for (const url of refusedUrls) {
        const res = await t.app.inject({ method: 'GET', url, headers: auth(ctx.token) });
        expectClientError(res, url);
      }
    });
    it('carry the security headers even when the router refuses the URL', async () => {
      for (const url of refusedUrls) {
        const res = await t.app.inject({ method: 'GET', url, headers: auth(ctx.token) });
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
    });
  });
});

describe('control: the valid bodies used above are accepted', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: generousPlansEnv() });
  });
  afterAll(async () => t.cleanup());

  it('each base body gives 2xx, so the refusals above come from the one bad field', async () => {
    const ctx = await setUp(t, 'control-owner@example.com');
    const routes = t.app.routeTable.filter((r) => BODY_METHODS.includes(r.method) && validBody(ctx, r));
    expect(routes.length).toBe(5);
    for (const r of routes) {
      const res = await t.app.inject({ method: r.method as Method, url: urlFor(ctx, r), headers: auth(ctx.token), payload: validBody(ctx, r) });
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeGreaterThanOrEqual(200);
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeLessThan(300);
    }
  });
});
