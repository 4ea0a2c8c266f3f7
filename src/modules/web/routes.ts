import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addVary, compressDynamic } from '../../platform/http/encoding.js';
import { ApiError } from '../../platform/http/errors.js';
import { sendStatic } from '../../platform/http/static-file.js';
import type { AgentsService } from '../agents/index.js';
import { loadWidgetAssets, type WidgetAssets, type WidgetFile } from './assets.js';
import { acceptsHtml, messagePageHtml } from '../../platform/http/html.js';
import { chatPageCsp, chatPageHtml } from './page.js';

/** The loader may change with every release, so caches check back often. */
const LOADER_CACHE = 'public, max-age=300';
/** A hashed bundle never changes under its name. */
const BUNDLE_CACHE = 'public, max-age=31536000, immutable';

export interface WebRoutesOptions {
  agents: AgentsService;
  /** defaults to reading dist/widget on first use */
  assets?: () => WidgetAssets;
}

export const webRoutes: FastifyPluginAsyncZod<WebRoutesOptions> = async (
  app,
  { agents, assets = loadWidgetAssets },
) => {
  let cached: WidgetAssets | null = null;
  const widget = (): WidgetAssets => {
    if (cached) return cached;
    try {
      cached = assets();
      return cached;
    } catch (err) {
      app.log.error({ err }, 'widget bundle missing: run `npm run build`');
      throw new ApiError(503, 'The widget is not built');
    }
  };

  /** Scripts for other sites: they must be loadable cross-origin (helmet's default is same-site). */
  const sendScript = (request: FastifyRequest, reply: FastifyReply, f: WidgetFile, cacheControl: string) => {
    reply
      .header('content-type', 'application/javascript; charset=utf-8')
      .header('cache-control', cacheControl)
      .header('cross-origin-resource-policy', 'cross-origin');
    // brotli or gzip as the build precompressed them, negotiated; ETag and Vary per coding
    return sendStatic(request, reply, f);
  };

  // The scripts are static bytes from memory that every page view of a customer's site asks for
  // (often from one office address); a 429 there would silently remove the widget, so they are
  // not rate limited. The page and the API calls it makes are.
  app.get('/widget.js', {
    config: { public: true, rateLimit: false },
    schema: { tags: ['widget'], summary: 'The embeddable widget loader (the embed snippet names it)' },
    handler: async (req, reply) => sendScript(req, reply, widget().loader, LOADER_CACHE),
  });

  app.get('/widget-:hash.js', {
    config: { public: true, rateLimit: false },
    schema: {
      tags: ['widget'],
      summary: 'The widget bundle, named by its content hash',
      params: z.object({ hash: z.string().max(100) }),
    },
    handler: async (req, reply) => {
      if (!/^[0-9a-f]{8,64}$/.test(req.params.hash)) throw new ApiError(404, 'Not found');
      const { bundle } = widget();
      // A loader cached before an upgrade may still name the old bundle: it gets the current one,
      // cached briefly, rather than a broken widget.
      return sendScript(req, reply, bundle, req.params.hash === bundle.hash ? BUNDLE_CACHE : LOADER_CACHE);
    },
  });

  app.get('/chat/:chatbot_id', {
    config: { public: true },
    schema: {
      tags: ['widget'],
      summary: 'Full-page chat for sharing as a link',
      params: z.object({ chatbot_id: z.string().min(1).max(100) }),
    },
    handler: async (req, reply) => {
      // on every answer: the page below may be compressed, and a dead link answers HTML or JSON by Accept
      addVary(reply, 'Accept-Encoding');
      addVary(reply, 'Accept');
      reply
        .header('cache-control', 'no-cache')
        .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()')
        .header('x-frame-options', 'DENY');
      let info;
      try {
        info = agents.publicInfo(req.params.chatbot_id);
      } catch (err) {
        // a browser following a dead link gets a page; anything else the API's {detail} error
        if (!(err instanceof ApiError) || !acceptsHtml(req)) throw err;
        reply.header(
          'content-security-policy',
          "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        );
        const title = err.statusCode === 404 ? 'This chat does not exist.' : 'This chat is not available.';
        return reply
          .code(err.statusCode)
          .header('content-type', 'text/html; charset=utf-8')
          .send(messagePageHtml(title));
      }
      reply.header('content-type', 'text/html; charset=utf-8');
      const { bundle } = widget();
      reply.header('content-security-policy', chatPageCsp(info));
      // Generated per request, so compressed on the fly, and only from about 1 KB: the page is
      // ~0.6 KB for most agents (one packet either way) and grows with the agent's name. The
      // bundle it loads is the weight, and that is precompressed.
      const page = compressDynamic(Buffer.from(chatPageHtml(info, bundle.fileName)), req.headers['accept-encoding']);
      if (page.coding !== 'identity') reply.header('content-encoding', page.coding);
      return reply.send(page.body);
    },
  });
};
