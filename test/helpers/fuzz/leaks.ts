import type { RouteInfo } from '../../../src/platform/http/index.js';
import { NO_VALID_TOKEN, type Body, type Caller, type Ctx } from './generators.js';
import { routeKey, type Method } from './routes.js';

/** What counts as a leak of A's data in an answer, and how a request is shown in the report. */

export interface Sent {
  caller: Caller;
  route: RouteInfo;
  method: Method;
  url: string;
  /** path parameter values as put in the URL (before the router decodes them) */
  params: Record<string, string>;
  headers: Record<string, string>;
  body: Body;
}

export interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Everything the caller put in the request, lower-cased: what the caller already knew. */
export function requestText(s: Sent): string {
  const body =
    s.body.payload === undefined
      ? ''
      : Buffer.isBuffer(s.body.payload)
        ? s.body.payload.toString('latin1')
        : s.body.payload;
  const url = `${s.url} ${safeDecode(s.url)} ${safeDecode(safeDecode(s.url))}`;
  return `${url} ${JSON.stringify(s.headers)} ${body}`.toLowerCase();
}

/**
 * The leak rule. For every request by B or by a caller without a valid token:
 *
 * 1. No marker of A's may appear in the response (body or headers, compared lower-cased). Markers
 *    are never sent by the fuzzer, so a marker in an answer can only come from A's stored data.
 *    The one exception is what A made public on purpose, and only on the public route that shows
 *    it, for the agent in the URL:
 *    - public agent info (GET/HEAD /api/public/chatbot/{id}) and the share page (GET/HEAD
 *      /chat/{id}) of A's public or inactive agent (both have public_access on): that agent's name
 *      and welcome message;
 *    - public chat (POST /api/public/chat/{id}) with A's public agent: its name and welcome
 *      message (the answer when nothing matches) and its knowledge: source names, contents, ids
 *      (with no provider key the answer quotes the best passages and lists their sources).
 *    Never: description, instructions, private agents' anything, conversations, messages,
 *    visitors' names, leads, the user's name.
 * 2. No id of A's (user, session, agent, conversation, message, source, lead, A's email) may
 *    appear unless the caller itself sent it (in the URL, query, headers or body): an id B typed
 *    echoed back in a 404 detail tells B nothing. Any id B did not send is A's data (for example
 *    a 404 for A's agent that names A's source, or a list with A's conversation in it). Public
 *    chat with A's public agent may name that agent's sources (rule 1).
 * 3. A guarded route never answers 2xx to a caller without a valid token, and never answers 2xx to
 *    B when its target is one of A's ids, as sent or disguised (a path parameter or the chat
 *    body's `chatbot_id` whose decoded, lower-cased value contains the id): even a body that shows
 *    nothing (204, a HEAD) means B reached or changed A's object. The final read-back catches
 *    changes that slip past this (an A id smuggled in a body field).
 */
/** Routes that show an agent's public face (the widget's info, the share page). */
export const PUBLIC_INFO_ROUTES = [
  'GET /api/public/chatbot/:chatbot_id',
  'HEAD /api/public/chatbot/:chatbot_id',
  'GET /chat/:chatbot_id',
  'HEAD /chat/:chatbot_id',
];

export function leaksIn(ctx: Ctx, s: Sent, res: Answer): { leaks: string[]; shownPublicly: boolean } {
  if (s.caller === 'operator') return { leaks: [], shownPublicly: false };
  const { a } = ctx;
  const found: string[] = [];
  const key = routeKey(s.route);
  const target = safeDecode(s.params.chatbot_id ?? '');
  const allowedMarkers = new Set<string>();
  const allowedIds = new Set<string>();
  if (PUBLIC_INFO_ROUTES.includes(key) && a.publicInfo.has(target)) {
    for (const m of a.publicInfo.get(target)!) allowedMarkers.add(m);
  }
  if (key === 'POST /api/public/chat/:chatbot_id' && target === a.publicAgent) {
    for (const m of [...a.publicInfo.get(target)!, ...a.publicKnowledge.markers]) allowedMarkers.add(m);
    for (const id of a.publicKnowledge.ids) allowedIds.add(id);
  }
  const answer = `${res.body} ${JSON.stringify(res.headers)}`.toLowerCase();
  let shownPublicly = false;
  for (const [marker, label] of a.markers) {
    if (!answer.includes(marker)) continue;
    if (allowedMarkers.has(marker)) shownPublicly = true;
    else found.push(`A's ${label} (marker ${marker})`);
  }
  const sent = requestText(s);
  for (const [id, label] of ctx.aIdLabels) {
    if (answer.includes(id) && !sent.includes(id) && !allowedIds.has(id))
      found.push(`A's ${label} ${id}, which the request did not contain`);
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && !s.route.public) {
    if (NO_VALID_TOKEN.includes(s.caller)) found.push(`2xx from a guarded route without a valid token (${s.caller})`);
    const targets = Object.values(s.params).map((v) => safeDecode(safeDecode(v)).toLowerCase());
    if (key === 'POST /api/chat' && typeof s.body.payload === 'string') {
      try {
        const chatbot = (JSON.parse(s.body.payload) as { chatbot_id?: unknown }).chatbot_id;
        if (typeof chatbot === 'string') targets.push(chatbot.toLowerCase());
      } catch {
        // not JSON: no chatbot_id to check
      }
    }
    for (const [id, label] of ctx.aIdLabels) {
      if (targets.some((v) => v.includes(id))) found.push(`2xx on a guarded route targeting A's ${label} ${id}`);
    }
  }
  return { leaks: found, shownPublicly };
}

export function excerpt(v: string | Buffer | undefined, n = 240): string {
  if (v === undefined) return '(none)';
  const s = Buffer.isBuffer(v) ? v.toString('latin1') : v;
  return JSON.stringify(s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
}
