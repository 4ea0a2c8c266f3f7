import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/platform/http/index.js';
import { auth, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * The exact set of routes that answer without a bearer token. Adding a public route means adding
 * it here, on purpose, in review.
 */
const PUBLIC_ROUTES = [
  'POST /api/auth/register',
  'POST /api/auth/login',
  'GET /api/health',
  'HEAD /api/health',
  'GET /openapi.json',
  'HEAD /openapi.json',
  'GET /docs',
  'HEAD /docs',
  'GET /docs/',
  'HEAD /docs/',
  'GET /docs/json',
  'HEAD /docs/json',
  'GET /docs/yaml',
  'HEAD /docs/yaml',
  'GET /docs/static/index.html',
  'HEAD /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'HEAD /docs/static/swagger-initializer.js',
  'GET /docs/static/*',
  'HEAD /docs/static/*',
].sort();

const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

/**
 * Every method + path the router serves, read from Fastify's own radix-tree printout, so a route
 * that never reached the route table (no onRoute call) is caught too.
 */
function routerRoutes(printed: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const raw of printed.split('\n')) {
    if (!raw.trim()) continue;
    const m = /^((?:[│ ] {3})*)(?:├── |└── )(.*)$/.exec(raw);
    if (!m) throw new Error(`unparsed printRoutes line: ${JSON.stringify(raw)}`);
    const depth = m[1]!.length / 4;
    const node = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(m[2]!)!;
    stack.length = depth;
    stack.push(node[1]!);
    if (node[2]) for (const method of node[2].split(',')) out.push(`${method.trim()} ${stack.join('')}`);
  }
  return out.sort();
}

/** A concrete URL for a route pattern: params become random ids, a wildcard becomes a path. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]\w*/g, () => randomUUID()).replace(/\*$/, 'some/file.txt');
}

function jwtPayload(token: string): { sub: string; sid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('public routes', () => {
  let t: TestApp;
  let table: RouteInfo[];
  let adminToken: string;
  let loggedOutToken: string;
  beforeAll(async () => {
    t = await startTestApp();
    table = t.app.routeTable;
    adminToken = (await registerUser(t.app)).token;
    loggedOutToken = (await registerUser(t.app)).token;
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(loggedOutToken) });
    expect(out.statusCode).toBe(200);
  });
  afterAll(async () => t.cleanup());

  it('the route table lists every route the router serves, once', () => {
    const fromTable = table.map(key).sort();
    expect(new Set(fromTable).size, 'no duplicates').toBe(fromTable.length);
    expect(fromTable).toEqual(routerRoutes(t.app.printRoutes()));
  });

  it('exactly the pinned set of routes is public', () => {
    const publicRoutes = table.filter((r) => r.public).map(key).sort();
    expect(publicRoutes).toEqual(PUBLIC_ROUTES);
  });

  it('the public routes answer without a token', async () => {
    for (const r of table.filter((x) => x.public)) {
      const res = await t.app.inject({
        method: r.method as 'GET',
        url: concrete(r.url),
        ...(r.method === 'POST' ? { payload: {} } : {}),
      });
      expect(res.statusCode, key(r)).not.toBe(401);
      expect(res.statusCode, key(r)).toBeLessThan(500);
      if (r.method === 'POST') expect(res.statusCode, `${key(r)} with an empty object is a validation error`).toBe(400);
    }
  });

  describe('every other route refuses a request without valid credentials', () => {
    const variants: Array<{ name: string; headers: () => Promise<Record<string, string>> }> = [
      { name: 'no Authorization header', headers: async () => ({}) },
      { name: 'empty Bearer', headers: async () => ({ authorization: 'Bearer ' }) },
      { name: 'Bearer garbage', headers: async () => ({ authorization: 'Bearer not.a.jwt' }) },
      { name: 'Basic credentials', headers: async () => ({ authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }) },
      {
        name: 'the token as a bare value (no scheme)',
        headers: async () => ({ authorization: adminToken }),
      },
      {
        name: 'an unsigned alg:none token for a real session',
        headers: async () => {
          const { sub, sid } = jwtPayload(adminToken);
          const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
          const now = Math.floor(Date.now() / 1000);
          return { authorization: `Bearer ${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub, sid, iat: now, exp: now + 3600 })}.` };
        },
      },
      {
        name: 'an HS256 token for a real session signed with another secret',
        headers: async () => {
          const { sub, sid } = jwtPayload(adminToken);
          const forged = await new SignJWT({ sid })
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setSubject(sub)
            .setIssuedAt()
            .setExpirationTime('1h')
            .sign(randomBytes(48));
          return { authorization: `Bearer ${forged}` };
        },
      },
      { name: 'the token of a logged-out session', headers: async () => auth(loggedOutToken) },
    ];

    for (const v of variants) {
      it(v.name, async () => {
        const guarded = table.filter((r) => !r.public);
        expect(guarded.length).toBeGreaterThan(5);
        const headers = await v.headers();
        for (const r of guarded) {
          const res = await t.app.inject({
            method: r.method as 'GET',
            url: concrete(r.url),
            headers,
            ...(['POST', 'PUT', 'PATCH'].includes(r.method) ? { payload: { name: 'x' } } : {}),
          });
          expect(res.statusCode, `${key(r)} with ${v.name}`).toBe(401);
          expect(res.headers['www-authenticate'], key(r)).toBe('Bearer');
          if (r.method !== 'HEAD') expect(res.json(), key(r)).toEqual({ detail: 'Could not validate credentials' });
        }
      });
    }

    it('a valid token still gets through (the 401s above are not for every caller)', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(adminToken) });
      expect(res.statusCode).toBe(200);
    });
  });

  it('URL variants of guarded routes never answer 2xx without a token', async () => {
    const variants = [
      '/api/chatbots/',
      '/API/chatbots',
      '/api/Chatbots',
      '//api/chatbots',
      '/api//chatbots',
      '/api/chatbots?public=true',
      '/api/chatbots#x',
      '/api/health/../chatbots',
      '/api/health/%2e%2e/chatbots',
      '/api/admin/users/',
      '/docs/../api/admin/users',
      '/docs/static/../../api/admin/users',
      '/docs/static/%2e%2e/%2e%2e/api/admin/users',
      '/openapi.json/../api/auth/me',
    ];
    for (const url of variants) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.app.inject({ method, url, ...(method === 'POST' ? { payload: { name: 'x' } } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    }
  });
});
