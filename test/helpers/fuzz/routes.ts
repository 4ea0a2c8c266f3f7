import type { RouteInfo } from '../../../src/platform/http/index.js';
import type { TestApp } from '../app.js';

/** The route catalogue of the fuzz run: which routes it sends to, how often, and what is not an answer. */

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
export const BODY_METHODS = ['POST', 'PUT', 'PATCH'];
export const routeKey = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

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
export const isEventStream = (r: RouteInfo) => r.url.endsWith('/events');

export function routeWeight(r: RouteInfo): number {
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
export const BUNDLE_ENTRIES = ['/', '/widget.js'];
export const NOT_BUILT = /^\{"detail":"The [\w ]+ is not built"\}$/;

export async function notBuiltAnswers(t: TestApp): Promise<Set<string>> {
  const out = new Set<string>();
  for (const url of BUNDLE_ENTRIES) {
    if (!t.app.routeTable.some((r) => r.url === url)) continue;
    const res = await t.app.inject({ method: 'GET', url });
    if (res.statusCode === 503 && NOT_BUILT.test(res.body)) out.add(res.body);
  }
  return out;
}
