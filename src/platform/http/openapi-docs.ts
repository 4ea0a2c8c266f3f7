import type { FastifyInstance, RouteOptions } from 'fastify';

/** What the OpenAPI document needs of a route, kept as the app registers it. */
interface DocumentedRoute {
  method: RouteOptions['method'];
  url: string;
  schema: RouteOptions['schema'];
  config: RouteOptions['config'];
}

/** the docs app is closed this long after its last request */
const DOCS_APP_IDLE_MS = 120_000;

/**
 * The OpenAPI document (`/openapi.json`) and the docs page (`/docs`), made on their first request.
 *
 * Why not @fastify/swagger and @fastify/swagger-ui registered on the app: loaded at start they
 * held about 3 MB of the idle server (issue 31: idle RSS <= 110 MB on a 1 GB VPS), for pages an
 * owner opens now and then. Here the app only keeps each route's method, URL, schema and config;
 * a request for the document or the page builds a second Fastify instance that registers those
 * routes (with no-op handlers) under the same two plugins, answers through `inject`, and is
 * closed two minutes after its last request. The document is the same as the plugins made on
 * the app itself (test/modules/admin-types.test.ts checks it against the committed types).
 */
export function registerOpenApiDocs(app: FastifyInstance, info: { version: string }): void {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    // HEAD routes Fastify adds beside each GET are not documented (@fastify/swagger's default)
    if (route.method === 'HEAD') return;
    routes.push({ method: route.method, url: route.url, schema: route.schema, config: route.config });
  });

  let docsApp: Promise<FastifyInstance> | null = null;
  let closeTimer: ReturnType<typeof setTimeout> | undefined;
  const closeDocsApp = () => {
    const closing = docsApp;
    docsApp = null;
    clearTimeout(closeTimer);
    return closing?.then((docs) => docs.close()).catch(() => undefined);
  };
  const withDocsApp = async <T>(use: (docs: FastifyInstance) => Promise<T>): Promise<T> => {
    docsApp ??= buildDocsApp(routes, info.version);
    const pending = docsApp;
    clearTimeout(closeTimer);
    closeTimer = setTimeout(closeDocsApp, DOCS_APP_IDLE_MS);
    closeTimer.unref();
    try {
      return await use(await pending);
    } catch (err) {
      if (docsApp === pending) docsApp = null; // a failed build is tried again next time
      throw err;
    }
  };
  app.addHook('onClose', async () => {
    await closeDocsApp();
  });

  const hidden = { config: { public: true }, schema: { hide: true } };
  app.get('/openapi.json', hidden, async () => withDocsApp(async (docs) => docs.swagger()));
  for (const url of ['/docs', '/docs/*']) {
    app.get(url, hidden, async (request, reply) => {
      const res = await withDocsApp((docs) => docs.inject({ method: 'GET', url: request.url }));
      reply.code(res.statusCode);
      for (const name of ['content-type', 'location', 'cache-control', 'etag', 'last-modified']) {
        const value = res.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      return reply.send(res.rawPayload);
    });
  }
}

async function buildDocsApp(routes: DocumentedRoute[], version: string): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }, zodProvider] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
    import('fastify-type-provider-zod'),
  ]);
  const docs = Fastify({ logger: false, exposeHeadRoutes: false });
  docs.setValidatorCompiler(zodProvider.validatorCompiler);
  docs.setSerializerCompiler(zodProvider.serializerCompiler);
  await docs.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Chat agent appliance API', version },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: zodProvider.jsonSchemaTransform,
  });
  const noAnswer = async () => undefined;
  for (const route of routes) {
    // the app's own docs routes are not part of the document, and the page registers its own
    if (route.url === '/openapi.json' || route.url === '/docs' || route.url.startsWith('/docs/')) continue;
    docs.route({ method: route.method, url: route.url, schema: route.schema, config: route.config, handler: noAnswer });
  }
  docs.get('/openapi.json', { schema: { hide: true } }, async () => docs.swagger());
  await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/openapi.json' } as never });
  await docs.ready();
  return docs;
}
