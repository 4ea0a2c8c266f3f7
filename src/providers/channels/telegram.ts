import type { Api, GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import { lazy } from '../../platform/lazy.js';
import {
  type ChannelClient,
  type ChannelDefinition,
  ChannelError,
  type InboundMessage,
  type UpdateBatch,
} from './contract.js';

/** loaded at the first use, not at start (platform/lazy.ts): most servers connect no bot */
const sdk = lazy(() => import('grammy'));

/** Telegram refuses longer texts in one message */
const MAX_TEXT = 4096;

/** only messages reach the agent; other kinds are confirmed and dropped */
const ALLOWED_UPDATES = ['message'] as const;

/**
 * Telegram through grammY's `Api` (the raw Bot API, not its `Bot` runner: the channels module keeps
 * the offset in the database, so an update is stored before the poll that confirms it). Private
 * chats only: in a group the bot would answer everyone's messages.
 *
 * The token sits in every request's URL path, so no error or log line carries a URL: grammY's own
 * messages leave it out (`sensitiveLogs` false), ours are built from Telegram's `description`
 * alone, and `redact` removes the token from anything else.
 */
class TelegramClient implements ChannelClient {
  private api: Api | undefined;

  constructor(
    private readonly token: string,
    private readonly apiRoot: string | undefined,
  ) {}

  async identify(signal?: AbortSignal) {
    const me = await this.call((api) => api.getMe(grammySignal(signal)));
    return { account_name: `@${me.username}`, display_name: me.first_name };
  }

  async poll(offset: number | null, waitS: number, signal: AbortSignal): Promise<UpdateBatch> {
    const updates = await this.call((api) =>
      api.getUpdates(
        { ...(offset === null ? {} : { offset }), timeout: waitS, allowed_updates: [...ALLOWED_UPDATES] },
        grammySignal(signal),
      ),
    );
    return batchOf(updates);
  }

  async send(chatId: string, text: string, options: { askContact?: boolean; signal?: AbortSignal } = {}) {
    const markup = options.askContact
      ? {
          reply_markup: {
            keyboard: [[{ text: 'Share my phone number', request_contact: true }]],
            one_time_keyboard: true,
            resize_keyboard: true,
          },
        }
      : {};
    await this.call((api) => api.sendMessage(chatId, text, markup, grammySignal(options.signal)));
  }

  async setWebhook(webhook: { url: string; secret: string } | null, signal?: AbortSignal) {
    await this.call((api) =>
      webhook
        ? api.setWebhook(
            webhook.url,
            { secret_token: webhook.secret, allowed_updates: [...ALLOWED_UPDATES], drop_pending_updates: false },
            grammySignal(signal),
          )
        : api.deleteWebhook({ drop_pending_updates: false }, grammySignal(signal)),
    );
  }

  private async call<T>(fn: (api: Api) => Promise<T>): Promise<T> {
    const grammy = await sdk();
    // grammY's own fetch (node-fetch): its signals are a polyfill's, which Node's fetch refuses.
    // Its network errors name the URL, token and all: they never leave toChannelError.
    this.api ??= new grammy.Api(this.token, this.apiRoot ? { apiRoot: this.apiRoot } : {});
    try {
      return await fn(this.api);
    } catch (err) {
      throw toChannelError(err, grammy.GrammyError, this.token);
    }
  }
}

/** grammY types its signals with a polyfill's AbortSignal; Node's own is what it gets at run time */
function grammySignal(signal: AbortSignal | undefined): Parameters<Api['getMe']>[0] {
  return signal as Parameters<Api['getMe']>[0];
}

function toChannelError(err: unknown, grammyError: typeof GrammyError, token: string): ChannelError {
  if (err instanceof grammyError) {
    const said = redact(`Telegram: ${err.description}`, token);
    const code = err.error_code;
    // 404 on every method: the token's form is wrong (Telegram answers so before checking it)
    if (code === 401 || code === 404) return new ChannelError('unauthorized', said);
    if (code === 409) return new ChannelError('conflict', said);
    if (code === 429) return new ChannelError('rate-limited', said, err.parameters?.retry_after ?? 5);
    if (code === 400 || code === 403) return new ChannelError('undeliverable', said);
    return new ChannelError('unavailable', said);
  }
  if (err instanceof Error && err.name === 'AbortError') return new ChannelError('unavailable', 'Telegram: aborted');
  return new ChannelError('unavailable', 'Telegram could not be reached');
}

/** `text` without `token` (and without its secret half, in case a message quotes only that) */
export function redact(text: string, token: string): string {
  let out = text;
  for (const part of [token, token.split(':')[1]]) if (part && part.length >= 8) out = out.split(part).join('<token>');
  return out;
}

function batchOf(updates: Update[]): UpdateBatch {
  const messages: InboundMessage[] = [];
  let last: number | null = null;
  for (const u of updates) {
    last = Math.max(last ?? u.update_id, u.update_id);
    const m = u.message;
    if (m?.chat.type !== 'private' || !m.from || m.from.is_bot) continue;
    const userName = [m.from.first_name, m.from.last_name].filter(Boolean).join(' ');
    const contact = m.contact
      ? { phone: m.contact.phone_number, name: [m.contact.first_name, m.contact.last_name].filter(Boolean).join(' ') }
      : undefined;
    if (typeof m.text !== 'string' && !contact) continue;
    messages.push({
      externalId: String(u.update_id),
      chatId: String(m.chat.id),
      userId: String(m.from.id),
      userName,
      text: typeof m.text === 'string' ? m.text : null,
      ...(contact ? { contact } : {}),
    });
  }
  return { messages, nextOffset: last === null ? null : last + 1 };
}

export const telegram: ChannelDefinition<'telegram'> = {
  name: 'telegram',
  fields: ['bot_token'],
  // the token itself (hashed): a bot's new token from BotFather is another key, as it always was
  account: (c) => ({ field: 'bot_token', key: c.bot_token ?? '' }),
  receiving: 'polling-or-webhook',
  client: (c, options) => new TelegramClient(c.bot_token ?? '', options.apiRoot),
  maxTextLength: MAX_TEXT,
  contactButton: true,
  checkCredential: (c) =>
    /^\d{3,15}:[A-Za-z0-9_-]{30,60}$/.test(c.bot_token ?? '')
      ? null
      : {
          field: 'bot_token',
          message:
            "not a Telegram bot token (BotFather gives one like 123456789:AAE...; it is the whole line after 'Use this token')",
        },
  redact: (text, c) => redact(text, c.bot_token ?? ''),
  parseWebhook: (body) => {
    const update = body as Update | null;
    if (typeof update?.update_id !== 'number') return { messages: [], nextOffset: null };
    return batchOf([update]);
  },
};
