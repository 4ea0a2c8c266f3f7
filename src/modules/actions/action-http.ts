import { safeFetch } from '../../platform/net/safe-fetch.js';
import { FetchFailedError, UnsafeUrlError } from '../../platform/net/types.js';
import { signatureHeader } from '../webhooks/index.js';

/** the whole call, connect to last byte */
export const ACTION_TIMEOUT_MS = 10_000;
/** the endpoint's answer is cut off (a failure) past this */
export const ACTION_MAX_RESPONSE_BYTES = 256 * 1024;
/** a string value shown to the model is cut to this many characters */
const MAX_FIELD_CHARS = 500;

export interface ActionCall {
  method: 'GET' | 'POST';
  url: URL;
  /** POST: the JSON body */
  body?: string;
  actionName: string;
  secret: string;
  allowPrivateUrls: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type ActionHttpResult =
  | { ok: true; status: number; json: unknown }
  | { ok: false; status: number | null; reason: string };

/**
 * Calls the owner's endpoint: signed (the webhooks' scheme, `Chat-Agent-Signature`: for a POST the
 * signed text is the body, for a GET the path and query), through the crawler's SSRF-safe fetch
 * (every address checked at connect time, no redirects followed), with a deadline and a size cap.
 * Never throws: a failure is a reason in words for the transcript and the model.
 */
export async function callEndpoint(call: ActionCall): Promise<ActionHttpResult> {
  const signed = call.method === 'POST' ? (call.body ?? '') : `${call.url.pathname}${call.url.search}`;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'chat-agent-action': call.actionName,
    'chat-agent-signature': signatureHeader(call.secret, signed, Math.floor(Date.now() / 1000)),
  };
  if (call.method === 'POST') headers['content-type'] = 'application/json';
  const host = call.url.host;
  try {
    const res = await safeFetch(call.url.href, {
      allowPrivate: call.allowPrivateUrls,
      maxBytes: ACTION_MAX_RESPONSE_BYTES,
      timeoutMs: call.timeoutMs ?? ACTION_TIMEOUT_MS,
      maxRedirects: 0,
      signal: call.signal,
      request: { method: call.method, headers, body: call.body },
    });
    if (res.status < 200 || res.status >= 300)
      return { ok: false, status: res.status, reason: `${host} answered HTTP ${res.status}` };
    const text = res.body.toString('utf8');
    if (!text.trim()) return { ok: true, status: res.status, json: null };
    try {
      return { ok: true, status: res.status, json: JSON.parse(text) };
    } catch {
      return { ok: false, status: res.status, reason: `${host} did not answer JSON` };
    }
  } catch (err) {
    if (err instanceof FetchFailedError || err instanceof UnsafeUrlError)
      return {
        ok: false,
        status: null,
        // the fetch's sentences are the crawler's: said of the endpoint's answer, without their full
        // stop (the reason stands inside the run's sentence)
        reason: err.message
          .replace(/^Too many redirects.*/, `${host} answered a redirect (not followed)`)
          .replace(/^The page /, 'The answer ')
          .replace(/\.$/, ''),
      };
    throw err;
  }
}

/**
 * Only the fields the owner listed (dotted paths: `order.status`, `items.0.name`), strings cut to
 * 500 characters, objects and arrays as JSON no longer than that: nothing else of the answer
 * reaches the model or the visitor.
 */
export function pickFields(json: unknown, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const path of fields) {
    let value: unknown = json;
    for (const key of path.split('.')) {
      if (value === null || typeof value !== 'object') {
        value = undefined;
        break;
      }
      value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined) continue;
    if (typeof value === 'string') picked[path] = value.slice(0, MAX_FIELD_CHARS);
    else if (value !== null && typeof value === 'object')
      picked[path] = JSON.stringify(value).slice(0, MAX_FIELD_CHARS);
    else picked[path] = value;
  }
  return picked;
}
