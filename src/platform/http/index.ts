import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { FastifyInstance } from 'fastify';
import type { DatabaseCondition } from '../db/condition.js';
import { registerErrorHandling } from './error-handler.js';
import { ApiError } from './errors.js';
import { type ConnectionGuardOptions, guardConnections } from './connection-guards.js';
import { endSilentConnectionsOnClose } from './silent-connections.js';
import { registerOpenApiDocs } from './openapi-docs.js';
import { dropUnreadBodies } from './unread-body.js';

export { type ConnectionGuardOptions, DEFAULT_CONNECTION_GUARDS } from './connection-guards.js';
export { clientErrorHandler, frameworkErrorHandler } from './error-handler.js';

export interface RouteInfo {
  method: string;
  url: string;
  public: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** every route as registered, for the public-route test and the docs */
    routeTable: RouteInfo[];
  }
}

/** Platform plugins, in load order: route table, errors, security headers, OpenAPI + docs. */
export async function registerHttpPlatform(
  app: FastifyInstance,
  info: { version: string; connectionGuards: ConnectionGuardOptions; databaseCondition?: DatabaseCondition },
): Promise<void> {
  app.decorate('routeTable', [] as RouteInfo[]);
  // A '/' route under a prefix is served at both `prefix` and `prefix/` (prefixTrailingSlash
  // 'both', the default), but Fastify runs onRoute for the first one only. Candidates for that
  // second URL are kept here and added once the router can say whether they exist.
  const slashVariants: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // read `public` late: a child context's onRoute hook (the docs) may set it after this one ran
      const isPublic = () => route.config?.public === true;
      app.routeTable.push({
        method,
        url: route.url,
        get public() {
          return isPublic();
        },
      });
      if (route.prefix && route.routePath === '') {
        slashVariants.push({
          method,
          url: `${route.url}/`,
          get public() {
            return isPublic();
          },
        });
      }
    }
  });
  app.addHook('onReady', async () => {
    for (const v of slashVariants.splice(0)) {
      const known = app.routeTable.some((r) => r.method === v.method && r.url === v.url);
      if (!known && app.hasRoute({ method: v.method as 'GET', url: v.url })) app.routeTable.push(v);
    }
  });

  registerErrorHandling(app, info.databaseCondition);
  acceptEmptyJsonBodies(app);
  endSilentConnectionsOnClose(app);
  dropUnreadBodies(app);
  guardConnections(app, info.connectionGuards);

  // @fastify/multipart takes multipart/form-data for every route and leaves the body unread, so a
  // route that does not list it in `consumes` would run as if no body had been sent (logout, agent
  // toggle). Those refuse it like any other content type they have no parser for.
  // (callback style: no promise per request on every route)
  // An unknown route is 404 whatever its body (its not-found handler runs these hooks too).
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.is404 || !request.isMultipart?.()) return done();
    const consumes = (request.routeOptions.schema as { consumes?: readonly string[] } | undefined)?.consumes ?? [];
    if (!consumes.includes('multipart/form-data')) return done(new ApiError(415, 'body: unsupported content type'));
    done();
  });

  // Security headers: helmet's, computed once. (@fastify/helmet built a helmet middleware, and
  // parsed the CSP, on every request: ~75 us each, the largest single cost of a public read.)
  const securityHeaders = staticHelmetHeaders({
    // The API answers JSON only; pages (docs, admin UI, widget share page) set their own CSP.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginResourcePolicy: { policy: 'same-site' },
    // consistent with frame-ancestors 'none' above
    frameguard: { action: 'deny' },
  });
  // JSON under /api gets the set a REST API needs (OWASP REST Security cheat sheet): the others
  // (opener policy, DNS prefetch, download options, origin-agent-cluster, XSS auditor, Flash
  // policies) concern documents a browser renders, and the API renders none. Half the headers
  // to write and validate on every answer of the busiest routes.
  const apiHeaders: Record<string, string> = {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': securityHeaders['cross-origin-resource-policy']!,
    'referrer-policy': securityHeaders['referrer-policy']!,
    'strict-transport-security': securityHeaders['strict-transport-security']!,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.url.startsWith('/api/') ? apiHeaders : securityHeaders);
    done();
  });

  registerOpenApiDocs(app, info);
}

/**
 * `Content-Type: application/json` with an empty body (zero bytes, as clients send on DELETE, a
 * toggle or logout) is no body, where Fastify's parser answered 400: routes that take no body run,
 * and routes with a body schema answer 400 `body: required` (error-handler.ts). Anything else goes
 * to Fastify's own JSON parser, with the app's `__proto__`/`constructor` handling, under the
 * app's body limit (1 MiB): whitespace alone is still not valid JSON.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parseJson(request, body as string, done);
  });
}

/** The headers helmet's middleware sets for these options, captured once. */
function staticHelmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
  });
  return headers;
}
