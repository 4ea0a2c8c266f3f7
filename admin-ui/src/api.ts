/**
 * The only way the UI talks to the server: the public JSON API, with the bearer token.
 *
 * The token is kept in localStorage, not sessionStorage: the lead-alert e-mail links into the UI
 * (`#/agents/<id>/leads`), which opens a new tab, and a per-tab token would ask the owner to log
 * in every time. The risk that trade buys is bounded: the page runs under a strict CSP (our own
 * scripts only, nothing inline, no eval), API text is never rendered as HTML, and the server
 * expires idle sessions and revokes the token on logout.
 */

import { readEventStream } from '../../widget/src/shared/sse.js';
import type { paths } from './api-types.js';

/** The HTTP methods the UI sends. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A route's path with each `{param}` open to any text: `/api/chatbots/{chatbot_id}` → `/api/chatbots/${string}`. */
type Filled<P extends string> = P extends `${infer Head}{${string}}${infer Rest}`
  ? `${Head}${string}${Filled<Rest>}`
  : P;
/** The routes of the generated API types (api-types.ts) that answer `M`. */
type RouteOf<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in Lowercase<M>]: object } ? P : never;
}[keyof paths];
/**
 * A path the server answers with method `M`, a query string allowed: a path or method the API
 * does not have is a type error here rather than a 404 or 405 at run time.
 */
export type ApiPath<M extends Method> = Filled<RouteOf<M>> | `${Filled<RouteOf<M>>}?${string}`;

export const TOKEN_KEY = 'chat-agent.token';
const RETURN_KEY = 'chat-agent.return-to';

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  localStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage disabled: nothing to clear */
  }
}

/** Pages reached without logging in: never a page to return to (a reset link's hash holds its token). */
const LOGGED_OUT_PAGES = ['#/login', '#/register', '#/forgot-password', '#/reset-password', '#/join'];

/** Where to go after logging in (the page a 401 or a logged-out visit interrupted). */
export function takeReturnTo(): string | null {
  const to = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  return to?.startsWith('#/') && !LOGGED_OUT_PAGES.some((p) => to.startsWith(p)) ? to : null;
}

export function rememberReturnTo(hash: string): void {
  if (hash.startsWith('#/') && !LOGGED_OUT_PAGES.some((p) => hash.startsWith(p)))
    sessionStorage.setItem(RETURN_KEY, hash);
}

/** A plan-limit detail object (docs/API-NOTES.md "Errors"). */
export interface PlanLimitDetail {
  message: string;
  current: number;
  max: number;
  upgrade_required: boolean;
}

/** A refused or failed request, with a message fit to show the owner. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

function describeDetail(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') {
    // the server's text already says how long to wait ("try again in 12 s")
    if (status === 429) return `Too many requests for now. ${detail.replace(/\.?$/, '.')}`;
    return detail;
  }
  if (detail && typeof detail === 'object' && typeof (detail as PlanLimitDetail).message === 'string') {
    const d = detail as PlanLimitDetail;
    const counts = typeof d.current === 'number' && typeof d.max === 'number' ? ` (${d.current} of ${d.max})` : '';
    return `${d.message}${counts}${d.upgrade_required ? '. Upgrading the plan raises this limit.' : ''}`;
  }
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status >= 500) return 'The server had a problem. Please try again.';
  return `Request failed (${status})`;
}

/** Called on any 401: the token is gone or expired. Set by the app (back to the login page). */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

function unauthorized(): never {
  clearToken();
  onUnauthorized();
  throw new ApiError(401, 'Your session has ended. Please log in again.');
}

function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function failure(res: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: the status alone */
  }
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, describeDetail(res.status, body), Number.isFinite(retry) && retry > 0 ? retry : null);
}

async function send(
  method: Method,
  path: string,
  body?: unknown,
  init: { form?: FormData; accept?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...authHeaders(), accept: init.accept ?? 'application/json' };
  let payload: BodyInit | undefined;
  if (init.form) payload = init.form;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'Cannot reach the server. Check the connection and try again.');
  }
  if (res.status === 401 && headers.authorization) unauthorized();
  if (!res.ok) throw await failure(res);
  return res;
}

export function api<T>(method: 'GET', path: ApiPath<'GET'>): Promise<T>;
export function api<T>(method: 'POST', path: ApiPath<'POST'>, body?: unknown): Promise<T>;
export function api<T>(method: 'PUT', path: ApiPath<'PUT'>, body?: unknown): Promise<T>;
export function api<T>(method: 'PATCH', path: ApiPath<'PATCH'>, body?: unknown): Promise<T>;
export function api<T>(method: 'DELETE', path: ApiPath<'DELETE'>, body?: unknown): Promise<T>;
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T>(path: ApiPath<'GET'>) => api<T>('GET', path);

export async function postForm<T>(path: ApiPath<'POST'>, form: FormData): Promise<T> {
  const res = await send('POST', path, undefined, { form });
  return (await res.json()) as T;
}

/** Downloads a bearer-protected file (CSV exports) through a temporary object URL. */
export async function download(path: ApiPath<'GET'>, fileName: string): Promise<void> {
  const res = await send('GET', path, undefined, { accept: 'text/csv' });
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Uploads one file with progress (fetch has no upload progress; XMLHttpRequest does). Resolves
 * with the created source.
 */
export function uploadFile<T>(
  path: ApiPath<'POST'>,
  file: File,
  onProgress: (fraction: number) => void,
): { promise: Promise<T>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<T>((resolve, reject) => {
    xhr.open('POST', path);
    const token = getToken();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status === 401 && token) {
        try {
          unauthorized();
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else {
        const retry = Number(xhr.getResponseHeader('retry-after'));
        reject(
          new ApiError(
            xhr.status,
            describeDetail(xhr.status, body),
            Number.isFinite(retry) && retry > 0 ? retry : null,
          ),
        );
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload failed: the connection was lost.'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload cancelled.'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}

export interface ChatDone {
  message: string;
  conversation_id: string;
  session_id: string;
  /** where the answer comes from: `title` the page's or document's title, `page` a PDF page (absent from older servers) */
  sources: Array<{ source_id: string; name: string; url: string | null; title?: string | null; page?: number | null }>;
}

/**
 * The owner's test chat, streamed: POST /api/chat with Accept: text/event-stream answers
 * `event: delta` ({text}) events then `event: done`; a failure before the stream began is a plain
 * JSON error, one after it an `event: error`.
 */
export async function streamChat(
  body: { message: string; chatbot_id: string; session_id?: string },
  onDelta: (text: string) => void,
  signal?: AbortSignal,
): Promise<ChatDone> {
  const headers: Record<string, string> = {
    ...authHeaders(),
    accept: 'text/event-stream',
    'content-type': 'application/json',
  };
  let res: Response;
  try {
    res = await fetch('/api/chat', {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Cannot reach the server. Check the connection and try again.');
  }
  if (res.status === 401 && headers.authorization) unauthorized();
  if (!res.ok) throw await failure(res);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
    // a proxy that drops the stream: the plain JSON answer
    const done = (await res.json()) as ChatDone;
    onDelta(done.message);
    return done;
  }
  let result: ChatDone | null = null;
  await readEventStream(res, (event, data) => {
    const payload = JSON.parse(data) as Record<string, unknown>;
    if (event === 'delta') onDelta(String(payload.text ?? ''));
    else if (event === 'done') result = payload as unknown as ChatDone;
    else if (event === 'error') throw new ApiError(502, describeDetail(502, payload));
    return result !== null;
  });
  const answer = result as ChatDone | null; // assigned in the callback, which TypeScript does not follow
  if (answer) return answer;
  throw new ApiError(0, 'The answer stopped before it was complete.');
}

/**
 * A bearer-protected Server-Sent Events stream (the owner's live view of an agent), read with
 * fetch streaming because EventSource cannot send the Authorization header (and the token must
 * not go in a URL). Reconnects after a drop, waiting longer each time (2 s up to 30 s), and calls
 * `onConnected` on each connection so the caller can catch up on what it missed. Stops for good on
 * `signal`, or when the stream answers 4xx (a 401 ends the session as everywhere else).
 */
export function followEventStream(
  path: ApiPath<'GET'>,
  handlers: {
    onEvent: (event: string, payload: Record<string, unknown>) => void;
    onConnected: () => void;
    onDisconnected: () => void;
  },
  signal: AbortSignal,
): void {
  let wait = 2000;
  const connect = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        const res = await fetch(path, {
          headers: { ...authHeaders(), accept: 'text/event-stream' },
          credentials: 'omit',
          cache: 'no-store',
          signal,
        });
        if (res.status === 401) return void unauthorized();
        if (res.status >= 400 && res.status < 500) return;
        if (res.ok && res.body) {
          handlers.onConnected();
          wait = 2000;
          await readEventStream(res, (event, data) => {
            handlers.onEvent(event, JSON.parse(data) as Record<string, unknown>);
          });
        }
      } catch {
        if (signal.aborted) return;
      }
      handlers.onDisconnected();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
      wait = Math.min(wait * 2, 30_000);
    }
  };
  void connect().catch(() => undefined);
}
