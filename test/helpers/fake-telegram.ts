import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Telegram Bot API on 127.0.0.1 speaking the real JSON, for grammY's `new Api(token, { apiRoot:
 * fake.root })`: POST `${root}/bot${token}/${method}` with JSON (query strings and url-encoded forms
 * work too, multipart does not); method names match in any case. An unknown or revoked token: 401.
 * getMe; getUpdates (`offset` confirms every update below it, unconfirmed ones are redelivered,
 * `timeout` holds the request until an update arrives, a second poll or setWebhook ends a held one
 * with 409, 409 while a webhook is set); sendMessage (only to chats the bot heard from, else 400 chat
 * not found; over 4096 characters, HTML tags not counted, 400 message is too long); setWebhook (http
 * URLs accepted, unlike the real API), deleteWebhook, getWebhookInfo; sendChatAction,
 * answerCallbackQuery, setMyCommands, deleteMyCommands answer `true`; anything else 404 Not Found.
 * Updates of a type the bot did not allow (the last `allowed_updates`; by default all but chat_member
 * and the message reactions) are dropped when pushed, as the real API filters them as they happen.
 */

export type FakeBotInfo = { token: string; id?: number; username: string; first_name?: string };
type Names = { first_name: string; last_name?: string; username?: string };
export type FakeUser = Names & { id: number; language_code?: string };
export type FakeContact = { phone_number: string; first_name: string; last_name?: string; user_id?: number };
/** a private-chat message (the chat id of a private chat is the user's id) */
export type FakeIncomingMessage = { chatId: number; from: FakeUser; text?: string; contact?: FakeContact };
/** `retry_after` is sent as `parameters.retry_after` (what a 429 carries) */
export type FakeTelegramError = { error_code: number; description: string; retry_after?: number };
export type FakeWebhook = { url: string; secret_token?: string; allowed_updates?: string[]; max_connections: number };
/** `method` as called (the case is kept); `at` is Date.now() when it arrived */
export type FakeCall = { token: string; method: string; at: number; params: Record<string, unknown> };
/** what sendMessage was given, and the Message the fake answered */
export type SentMessage = SendOptions & { chat_id: number; text: string; message: Record<string, any> };
type SendOptions = { parse_mode?: string; reply_markup?: unknown; reply_parameters?: unknown };

export interface FakeTelegram {
  /** http://127.0.0.1:<port>, for grammY's `apiRoot` */
  root: string;
  /** every request to /bot<token>/<method>, known token or not */
  calls: FakeCall[];
  /** returns the bot's User (what getMe answers) */
  addBot(bot: FakeBotInfo): Record<string, unknown>;
  /** every later call with the token answers 401, and so does a held poll */
  revoke(token: string): void;
  /** queue a private-chat message, or any other update (edited_message, callback_query): its update_id */
  pushMessage(token: string, message: FakeIncomingMessage): number;
  pushUpdate(token: string, update: Record<string, unknown>): number;
  /** the next `n` sendMessage calls of the bot fail with `error` */
  failSends(token: string, n: number, error: FakeTelegramError): void;
  sent(token: string): SentMessage[];
  /** these resolve once the bot sent `count` messages (all of them), was called `count` times with
   * `method`, holds a getUpdates; they reject after `timeoutMs` (default 10 s) */
  waitForSent(token: string, count: number, timeoutMs?: number): Promise<SentMessage[]>;
  waitForCall(token: string, method: string, count?: number, timeoutMs?: number): Promise<void>;
  waitForPoll(token: string, timeoutMs?: number): Promise<void>;
  callsOf(token: string, method: string): number;
  webhook(token: string): FakeWebhook | undefined;
  /**
   * POSTs an update (a message as for pushMessage, or an update object) to the bot's webhook with
   * X-Telegram-Bot-Api-Secret-Token; returns the HTTP status (0 when the connection failed). A JSON
   * answer naming a `method` is carried out, as the real API does with webhook replies.
   */
  deliverWebhook(token: string, update: FakeIncomingMessage | Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

type Json = Record<string, any>;
type Answer = { status: number; body: Json };
type Poll = { limit: number; finish(answer: Answer): void };
type Updates = { nextUpdateId: number; queue: Json[]; allowed?: string[]; poll?: Poll };
type Chats = { chats: Map<number, Json>; messages: Map<string, Json>; nextMessageId: Map<number, number> };
type Hook = { webhook?: FakeWebhook; webhookError?: { date: number; message: string } };
type Bot = { me: Json; revoked: boolean; sent: SentMessage[]; failures: FakeTelegramError[] } & Updates & Chats & Hook;

const POLL_CONFLICT =
  'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';
const WEBHOOK_CONFLICT =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
const NOT_BY_DEFAULT = ['chat_member', 'message_reaction', 'message_reaction_count'];
const TRUE_METHODS = ['sendchataction', 'answercallbackquery', 'setmycommands', 'deletemycommands'];

/** the object without its undefined fields */
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const answer = (status: number, body: Json): Answer => ({ status, body: defined(body) });
const ok = (result: unknown, description?: string) => answer(200, { ok: true, result, description });
const fail = (code: number, description: string, parameters?: Json) =>
  answer(code, { ok: false, error_code: code, description, parameters });
const now = () => Math.floor(Date.now() / 1000);

function int(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}
/** a JSON value that may arrive as a string (query string, form) */
function parsed(v: unknown): any {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}
const bool = (v: unknown) => v === true || v === 'true' || v === '1';

function bodyParams(type: string | undefined, raw: string): Json {
  if (!raw) return {};
  if (type?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  const body = parsed(raw);
  return body && typeof body === 'object' && !Array.isArray(body) ? body : {};
}

/** the length Telegram counts: HTML tags and entities do not count; Markdown is counted as sent */
function visibleLength(text: string, parseMode: unknown): number {
  if (parseMode !== 'HTML') return text.length;
  return text.replace(/<[^>]*>/g, '').replace(/&(lt|gt|amp|quot|#\d+);/g, '_').length;
}

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, Bot>();
  const calls: FakeCall[] = [];
  const waiters = new Set<() => void>();
  const notify = () => [...waiters].forEach((check) => check());

  const callsOf = (token: string, method: string) =>
    calls.filter((c) => c.token === token && c.method.toLowerCase() === method.toLowerCase()).length;

  function bot(token: string): Bot {
    const b = bots.get(token);
    if (!b) throw new Error(`fake telegram: no bot with token ${token} (addBot first)`);
    return b;
  }

  function waitUntil(ready: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!ready() || !waiters.delete(check)) return;
        clearTimeout(timer);
        resolve();
      };
      const fault = () =>
        waiters.delete(check) && reject(new Error(`fake telegram: waited ${timeoutMs} ms for ${what()}`));
      const timer = setTimeout(fault, timeoutMs);
      waiters.add(check);
      check();
    });
  }

  /** message ids count per chat; remember() moves the count past every message it learns */
  const nextMessageId = (b: Bot, chatId: number) => b.nextMessageId.get(chatId) ?? 1;
  function remember(b: Bot, message: Json): void {
    const chatId = message.chat.id as number;
    b.chats.set(chatId, message.chat);
    b.messages.set(`${chatId}:${message.message_id}`, message);
    const next = (int(message.message_id) ?? 0) + 1;
    if (next > (b.nextMessageId.get(chatId) ?? 1)) b.nextMessageId.set(chatId, next);
  }

  function incoming(b: Bot, m: FakeIncomingMessage): Json {
    if (m.text === undefined && !m.contact) throw new Error('fake telegram: a pushed message needs text or contact');
    const { id, first_name, last_name, username, language_code } = m.from;
    const names = defined({ first_name, last_name, username });
    const from = defined({ id, is_bot: false, ...names, language_code });
    const chat = { id: m.chatId, type: 'private', ...names };
    const content = m.text !== undefined ? { text: m.text } : { contact: m.contact };
    return { message_id: nextMessageId(b, m.chatId), from, chat, date: now(), ...content };
  }

  /** numbers the update and learns the chats and messages in it */
  function numbered(b: Bot, update: Json): Json {
    for (const v of Object.values(update)) {
      const message = v?.chat ? v : v?.message?.chat ? v.message : undefined;
      if (typeof message?.chat?.id === 'number') remember(b, message);
    }
    return { update_id: b.nextUpdateId++, ...update };
  }

  function enqueue(token: string, update: Json): number {
    const b = bot(token);
    const numberedUpdate = numbered(b, update);
    const type = Object.keys(update).find((k) => k !== 'update_id') ?? '';
    if (b.allowed ? !b.allowed.includes(type) : NOT_BY_DEFAULT.includes(type)) return numberedUpdate.update_id;
    b.queue.push(numberedUpdate);
    b.poll?.finish(ok(b.queue.slice(0, b.poll.limit)));
    return numberedUpdate.update_id;
  }

  function getUpdates(b: Bot, p: Json, signal?: AbortSignal): Answer | Promise<Answer> {
    if (b.webhook) return fail(409, WEBHOOK_CONFLICT);
    const offset = int(p.offset) ?? 0;
    if (offset > 0) b.queue = b.queue.filter((u) => u.update_id >= offset);
    else if (offset < 0) b.queue = b.queue.slice(offset);
    const limit = Math.min(100, Math.max(1, int(p.limit) || 100));
    const timeout = Math.max(0, int(p.timeout) ?? 0);
    const allowed = parsed(p.allowed_updates);
    if (Array.isArray(allowed)) b.allowed = allowed.length ? allowed : undefined;
    b.poll?.finish(fail(409, POLL_CONFLICT));
    if (b.queue.length || timeout === 0) return ok(b.queue.slice(0, limit));
    return new Promise((resolve) => {
      const finish = (answer: Answer) => {
        if (b.poll !== poll) return;
        b.poll = undefined;
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        resolve(answer);
      };
      const poll: Poll = { limit, finish };
      const timer = setTimeout(() => finish(ok([])), timeout * 1000);
      const gone = () => finish(ok([])); // the client went away
      signal?.addEventListener('abort', gone);
      b.poll = poll;
      notify();
    });
  }

  function sendMessage(b: Bot, p: Json): Answer {
    const failure = b.failures.shift();
    const retry = failure?.retry_after === undefined ? undefined : { retry_after: failure.retry_after };
    if (failure) return fail(failure.error_code, failure.description, retry);
    if (p.chat_id === undefined || p.chat_id === '') return fail(400, 'Bad Request: chat_id is empty');
    const chatId = int(p.chat_id);
    const chat = chatId === undefined ? undefined : b.chats.get(chatId);
    if (!chat || chatId === undefined) return fail(400, 'Bad Request: chat not found');
    const text = typeof p.text === 'string' ? p.text : '';
    if (!text.trim()) return fail(400, 'Bad Request: message text is empty');
    if (visibleLength(text, p.parse_mode) > 4096) return fail(400, 'Bad Request: message is too long');
    const replyParameters = parsed(p.reply_parameters);
    const replyId = int(replyParameters?.message_id ?? p.reply_to_message_id);
    const { reply_to_message: _, ...replyTo } = b.messages.get(`${chatId}:${replyId}`) ?? {};
    const anyway = bool(replyParameters?.allow_sending_without_reply ?? p.allow_sending_without_reply);
    if (replyId !== undefined && !replyTo.message_id && !anyway)
      return fail(400, 'Bad Request: message to be replied not found');
    const markup = parsed(p.reply_markup);
    const { id, is_bot, first_name, username } = b.me;
    const from = { id, is_bot, first_name, username };
    const message: Json = { message_id: nextMessageId(b, chatId), from, chat, date: now(), text };
    if (replyTo.message_id) message.reply_to_message = replyTo;
    if (markup?.inline_keyboard) message.reply_markup = markup;
    remember(b, message);
    const given = defined({ parse_mode: p.parse_mode, reply_markup: markup, reply_parameters: replyParameters });
    b.sent.push({ chat_id: chatId, text, ...given, message });
    return ok(message);
  }

  function setWebhook(b: Bot, p: Json): Answer {
    const url = typeof p.url === 'string' ? p.url : '';
    if (!url) return deleteWebhook(b, p);
    if (!/^https?:\/\/[^/]/.test(url))
      return fail(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    const secret = p.secret_token === undefined ? undefined : String(p.secret_token);
    if (secret !== undefined && !/^[\w-]{1,256}$/.test(secret))
      return fail(400, 'Bad Request: secret token contains unallowed characters');
    const allowed = parsed(p.allowed_updates);
    if (Array.isArray(allowed)) b.allowed = allowed.length ? allowed : undefined;
    if (bool(p.drop_pending_updates)) b.queue = [];
    const already = b.webhook?.url === url;
    const max_connections = int(p.max_connections) ?? 40;
    b.webhook = defined({ url, secret_token: secret, allowed_updates: b.allowed, max_connections }) as FakeWebhook;
    b.poll?.finish(fail(409, WEBHOOK_CONFLICT));
    return ok(true, already ? 'Webhook is already set' : 'Webhook was set');
  }

  function deleteWebhook(b: Bot, p: Json): Answer {
    const had = b.webhook !== undefined;
    b.webhook = undefined;
    b.webhookError = undefined;
    if (bool(p.drop_pending_updates)) b.queue = [];
    return ok(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
  }

  function webhookInfo(b: Bot): Answer {
    const w = b.webhook;
    const { date: last_error_date, message: last_error_message } = b.webhookError ?? {};
    const info = { url: w?.url ?? '', has_custom_certificate: false, pending_update_count: b.queue.length };
    const more = w && {
      ip_address: '127.0.0.1',
      max_connections: w.max_connections,
      allowed_updates: w.allowed_updates,
    };
    return ok(defined({ ...info, ...more, last_error_date, last_error_message }));
  }

  function call(token: string, method: string, params: Json, signal?: AbortSignal): Answer | Promise<Answer> {
    calls.push({ token, method, at: Date.now(), params });
    notify();
    const b = bots.get(token);
    if (!b || b.revoked) return fail(401, 'Unauthorized');
    const name = method.toLowerCase();
    if (TRUE_METHODS.includes(name)) return ok(true);
    const handler = Object.hasOwn(methods, name) ? methods[name]! : () => fail(404, 'Not Found');
    const result = handler(b, params, signal);
    notify();
    return result;
  }
  const methods: Record<string, (b: Bot, p: Json, signal?: AbortSignal) => Answer | Promise<Answer>> = {
    getme: (b) => ok(b.me),
    getupdates: getUpdates,
    sendmessage: sendMessage,
    setwebhook: setWebhook,
    deletewebhook: deleteWebhook,
    getwebhookinfo: webhookInfo,
  };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const route = /^\/bot([^/]+)\/([A-Za-z]\w*)$/.exec(url.pathname);
      const raw = Buffer.concat(parts).toString('utf8');
      const controller = new AbortController();
      res.on('close', () => res.writableFinished || controller.abort());
      const params = { ...Object.fromEntries(url.searchParams), ...bodyParams(req.headers['content-type'], raw) };
      const [, token, method] = route ?? [];
      const signal = controller.signal;
      const reply = token && method ? call(decodeURIComponent(token), method, params, signal) : fail(404, 'Not Found');
      void Promise.resolve(reply).then(({ status, body }) => {
        const json = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    root: `http://127.0.0.1:${port}`,
    calls,
    addBot({ token, id, username, first_name }) {
      const flags = { can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };
      const userId = id ?? int(token.split(':')[0]) ?? 1_000_000 + bots.size;
      const me = { id: userId, is_bot: true, first_name: first_name ?? username, username, ...flags };
      const nextUpdateId = 100_000_000 + Math.floor(Math.random() * 800_000_000);
      // a new token of the same bot (BotFather's revoke) keeps the bot's chats
      const same = [...bots.values()].find((b) => b.me.id === userId);
      const maps = same
        ? { chats: same.chats, messages: same.messages, nextMessageId: same.nextMessageId }
        : { chats: new Map(), messages: new Map(), nextMessageId: new Map() };
      bots.set(token, { me, revoked: false, nextUpdateId, queue: [], ...maps, sent: [], failures: [] });
      return me;
    },
    revoke(token) {
      const b = bot(token);
      b.revoked = true;
      b.poll?.finish(fail(401, 'Unauthorized'));
    },
    pushMessage: (token, message) => enqueue(token, { message: incoming(bot(token), message) }),
    pushUpdate: (token, update) => enqueue(token, update),
    failSends(token, n, error) {
      const b = bot(token);
      for (let i = 0; i < n; i++) b.failures.push(error);
    },
    sent: (token) => [...bot(token).sent],
    async waitForSent(token, count, timeoutMs = 10_000) {
      const b = bot(token);
      const texts = () => JSON.stringify(b.sent.map((m) => m.text));
      await waitUntil(
        () => b.sent.length >= count,
        timeoutMs,
        () => `${count} message(s) sent, got ${texts()}`,
      );
      return [...b.sent];
    },
    waitForCall: (token, method, count = 1, timeoutMs = 10_000) =>
      waitUntil(
        () => callsOf(token, method) >= count,
        timeoutMs,
        () => `${count} ${method} call(s)`,
      ),
    waitForPoll: (token, timeoutMs = 10_000) =>
      waitUntil(
        () => bot(token).poll !== undefined,
        timeoutMs,
        () => `a held getUpdates of ${token}`,
      ),
    callsOf,
    webhook: (token) => bot(token).webhook,
    async deliverWebhook(token, input) {
      const b = bot(token);
      const w = b.webhook;
      if (!w) throw new Error(`fake telegram: bot ${token} has no webhook set`);
      const message = 'chatId' in input ? { message: incoming(b, input as FakeIncomingMessage) } : undefined;
      const update = numbered(b, message ?? input);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (w.secret_token) headers['X-Telegram-Bot-Api-Secret-Token'] = w.secret_token;
      try {
        const res = await fetch(w.url, { method: 'POST', headers, body: JSON.stringify(update) });
        const reply = parsed(await res.text());
        const error = `Wrong response from the webhook: ${res.status} ${res.statusText}`;
        if (!res.ok) b.webhookError = { date: now(), message: error };
        else if (typeof reply?.method === 'string') await call(token, reply.method, reply);
        return res.status;
      } catch {
        b.webhookError = { date: now(), message: 'Connection refused' };
        return 0;
      }
    },
    async close() {
      for (const b of bots.values()) b.poll?.finish(ok([]));
      await new Promise((resolve) => setImmediate(resolve));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
