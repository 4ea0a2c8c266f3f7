import { expect } from 'vitest';

/** Requests over a real socket (fetch) for the suites that listen on loopback. */

/**
 * A `method` request to `url` with `body` as JSON (a string is sent as it is, e.g. malformed JSON),
 * as `token` when given; the answer as it came.
 */
export function fetchJson(url: string, method: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The answer to a request without credentials: 401 with a Bearer challenge and the usual detail. */
export async function expectNoCredentials(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(await res.json()).toEqual({ detail: 'Could not validate credentials' });
}
