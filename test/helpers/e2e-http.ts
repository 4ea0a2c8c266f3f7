import { expect } from 'vitest';
import type { TestApp } from './app.js';

/**
 * The app's static files over HTTP (fastify inject), for the tests of the routes that serve them:
 * the widget's scripts, the admin UI's files and its service worker.
 */

/** The response's Vary names Accept-Encoding. */
export const varies = (res: { headers: Record<string, unknown> }): boolean =>
  String(res.headers.vary ?? '')
    .split(',')
    .map((f) => f.trim().toLowerCase())
    .includes('accept-encoding');

/** GETs `url` of the app, which must answer 200 with JavaScript cached as `cacheControl` says; the response. */
export async function getScript(t: TestApp, url: string, cacheControl: string) {
  const res = await t.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  expect(res.headers['content-type'], url).toBe('application/javascript; charset=utf-8');
  expect(res.headers['cache-control'], url).toBe(cacheControl);
  return res;
}
