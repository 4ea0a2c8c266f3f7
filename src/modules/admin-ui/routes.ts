import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../platform/http/errors.js';
import { sendStatic } from '../../platform/http/static-file.js';
import { loadAdminAssets, type AdminAssets, type StaticFile } from './assets.js';

/** index.html names the current hashed bundles, so it is revalidated on every load. */
const INDEX_CACHE = 'no-cache';
/** A hashed asset never changes under its name. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The admin UI's Content-Security-Policy: only our own scripts and styles (no inline code, no
 * eval), API calls only to this origin. Images may come from https hosts because the widget
 * preview shows the agent's logo and avatar, which live on the owner's own site.
 */
export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "manifest-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export interface AdminUiRoutesOptions {
  /** defaults to reading dist/admin on first use */
  assets?: () => AdminAssets;
}

/**
 * Serves the built single-page app at `/` and its hashed files at `/assets/<file>`. Routing inside
 * the app is by URL hash (`#/agents/<id>/leads`), so no other path needs the page. The files are
 * static bytes from memory: they are not rate limited (the API calls the page makes are).
 */
export const adminUiRoutes: FastifyPluginAsyncZod<AdminUiRoutesOptions> = async (app, { assets = loadAdminAssets }) => {
  let cached: AdminAssets | null = null;
  const ui = (): AdminAssets => {
    if (cached) return cached;
    try {
      cached = assets();
      return cached;
    } catch (err) {
      app.log.error({ err }, 'admin UI bundle missing: run `npm run build`');
      throw new ApiError(503, 'The admin UI is not built');
    }
  };

  const send = (request: FastifyRequest, reply: FastifyReply, f: StaticFile, cacheControl: string) => {
    reply.header('content-type', f.contentType).header('cache-control', cacheControl);
    // brotli or gzip as the build precompressed them, negotiated; ETag and Vary per coding
    return sendStatic(request, reply, f);
  };

  app.get('/', {
    config: { public: true, rateLimit: false },
    schema: { hide: true },
    handler: async (req, reply) => {
      reply.header('content-security-policy', ADMIN_CSP).header('referrer-policy', 'no-referrer');
      return send(req, reply, ui().index, INDEX_CACHE);
    },
  });

  // The service worker (Web Push notifications, docs/ADMIN-UI.md): at the root, so its scope is the
  // whole admin; revalidated like index.html so a new build replaces it. It loads nothing itself.
  app.get('/sw.js', {
    config: { public: true, rateLimit: false },
    schema: { hide: true },
    handler: async (req, reply) => {
      reply.header('content-security-policy', "default-src 'none'").header('referrer-policy', 'no-referrer');
      return send(req, reply, ui().sw, INDEX_CACHE);
    },
  });

  app.get('/assets/:file', {
    config: { public: true, rateLimit: false },
    schema: { hide: true, params: z.object({ file: z.string().max(200) }) },
    handler: async (req, reply) => {
      const f = ui().files.get(req.params.file);
      if (!f) throw new ApiError(404, 'Not found');
      return send(req, reply, f, ASSET_CACHE);
    },
  });
};
