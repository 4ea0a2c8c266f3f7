import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type ChannelClient,
  type ChannelDefinition,
  ChannelError,
  type Credential,
  type InboundMessage,
  type UpdateBatch,
} from './contract.js';

/** the Graph API version every call names (Meta keeps a version for two years at least) */
export const GRAPH_VERSION = 'v21.0';
const DEFAULT_ROOT = 'https://graph.facebook.com';

/** WhatsApp takes up to 4,096 characters in a text message's body */
const MAX_TEXT = 4096;

/** replies are allowed within this long of the person's last message (WhatsApp's customer service window) */
const REPLY_WINDOW_MS = 24 * 3600_000;
const OUTSIDE_WINDOW = "WhatsApp allows replies only within 24 hours of the person's last message";

interface GraphError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

/**
 * The WhatsApp Cloud API (Meta's Graph API) for one business phone number. Messages arrive by
 * webhook only: Meta posts them, signed with the app secret, to the agent's URL; the access token
 * travels in a header, never in a URL, and no error message carries it.
 */
class WhatsAppClient implements ChannelClient {
  private readonly base: string;

  constructor(
    private readonly credential: Credential,
    apiRoot: string | undefined,
  ) {
    this.base = `${(apiRoot ?? DEFAULT_ROOT).replace(/\/+$/, '')}/${GRAPH_VERSION}/${encodeURIComponent(
      credential.phone_number_id ?? '',
    )}`;
  }

  async identify(signal?: AbortSignal) {
    const body = (await this.call('GET', '?fields=display_phone_number,verified_name', undefined, signal, true)) as {
      display_phone_number?: string;
      verified_name?: string;
    };
    const phone = body.display_phone_number ?? this.credential.phone_number_id ?? '';
    return { account_name: phone, display_name: body.verified_name ?? phone };
  }

  async poll(): Promise<UpdateBatch> {
    throw new ChannelError('unavailable', 'WhatsApp posts its messages: there is nothing to poll');
  }

  async setWebhook(): Promise<void> {
    // the owner sets the webhook in Meta's dashboard (docs/DEPLOY.md): nothing to call
  }

  async send(chatId: string, text: string, options: { signal?: AbortSignal } = {}) {
    const body = { messaging_product: 'whatsapp', to: chatId, type: 'text', text: { body: text } };
    await this.call('POST', '/messages', body, options.signal, false);
  }

  signatureMatches(rawBody: Buffer, signature: string | undefined): boolean {
    const secret = this.credential.app_secret;
    if (!secret || typeof signature !== 'string' || !signature.startsWith('sha256=')) return false;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    const given = Buffer.from(signature.slice('sha256='.length), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  verifyTokenMatches(token: string | undefined): boolean {
    const own = Buffer.from(this.credential.verify_token ?? '');
    const given = Buffer.from(token ?? '');
    return own.length > 0 && given.length === own.length && timingSafeEqual(given, own);
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    identifying: boolean,
  ): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        headers: {
          authorization: `Bearer ${this.credential.access_token ?? ''}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ?? AbortSignal.timeout(30_000),
      });
    } catch {
      throw new ChannelError('unavailable', 'WhatsApp (the Graph API) could not be reached');
    }
    const text = await res.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // a proxy's HTML page: the status says enough
    }
    if (res.ok) return parsed ?? {};
    const error = ((parsed as { error?: GraphError } | null)?.error ?? {}) as GraphError;
    throw toChannelError(res.status, error, identifying);
  }
}

function toChannelError(status: number, error: GraphError, identifying: boolean): ChannelError {
  const detail = error.error_data?.details ? ` (${error.error_data.details})` : '';
  const said = `WhatsApp: ${error.message ?? `HTTP ${status}`}${detail}`.slice(0, 500);
  const code = error.code;
  if (status === 401 || code === 190) return new ChannelError('unauthorized', said, undefined, 'access_token');
  if (status === 429 || code === 130429 || code === 131056 || code === 80007 || code === 4)
    return new ChannelError('rate-limited', said, 60);
  if (status >= 500 || status === 408) return new ChannelError('unavailable', said);
  // the phone number id names nothing the token can see
  if (identifying && (status === 404 || code === 100))
    return new ChannelError('undeliverable', said, undefined, 'phone_number_id');
  if (code === 131047) return new ChannelError('undeliverable', `${said}: ${OUTSIDE_WINDOW}`);
  if (status === 403 || code === 10 || code === 200)
    return new ChannelError('unauthorized', said, undefined, 'access_token');
  return new ChannelError('undeliverable', said);
}

const accountKey = (phoneNumberId: string) => `whatsapp:${phoneNumberId}`;

interface WebhookValue {
  metadata?: { phone_number_id?: string };
  contacts?: Array<{ wa_id?: string; profile?: { name?: string } }>;
  messages?: Array<{ id?: string; from?: string; type?: string; text?: { body?: string } }>;
}

/** The text messages of a webhook body; statuses and other kinds are acknowledged and dropped. */
function parseWebhook(body: unknown): UpdateBatch {
  const messages: InboundMessage[] = [];
  const entries = (body as { entry?: unknown } | null)?.entry;
  for (const entry of Array.isArray(entries) ? entries : []) {
    const changes = (entry as { changes?: unknown } | null)?.changes;
    for (const change of Array.isArray(changes) ? changes : []) {
      const value = (change as { value?: WebhookValue } | null)?.value;
      if (!value || !Array.isArray(value.messages)) continue;
      const contacts = Array.isArray(value.contacts) ? value.contacts : [];
      for (const m of value.messages) {
        if (m?.type !== 'text' || typeof m.id !== 'string' || typeof m.from !== 'string') continue;
        if (typeof m.text?.body !== 'string') continue;
        const contact = contacts.find((c) => c?.wa_id === m.from) ?? (contacts.length === 1 ? contacts[0] : undefined);
        const to = value.metadata?.phone_number_id;
        messages.push({
          ...(typeof to === 'string' ? { accountKey: accountKey(to) } : {}),
          externalId: m.id.slice(0, 200),
          chatId: m.from.slice(0, 40),
          userId: m.from.slice(0, 40),
          userName: (contact?.profile?.name ?? '').slice(0, 200),
          text: m.text.body,
        });
      }
    }
  }
  return { messages, nextOffset: null };
}

const FORMS: Record<string, { test: RegExp; message: string }> = {
  phone_number_id: {
    test: /^\d{5,25}$/,
    message:
      "not a phone number ID: the digits under 'Phone number ID' in Meta's WhatsApp API Setup (not the phone number)",
  },
  access_token: {
    test: /^[A-Za-z0-9_\-.|]{20,1000}$/,
    message:
      "not an access token: a system user's permanent token (or the temporary one) from Meta's WhatsApp API Setup",
  },
  app_secret: {
    test: /^[0-9a-f]{32}$/i,
    message: "not an app secret: 32 hexadecimal characters, in the Meta app's Settings > Basic > App secret",
  },
  verify_token: {
    test: /^[\x21-\x7e]{8,200}$/,
    message: 'a verify token of your choice: 8 to 200 characters without spaces, pasted in Meta too',
  },
};

export const whatsapp: ChannelDefinition<'whatsapp'> = {
  name: 'whatsapp',
  fields: ['phone_number_id', 'access_token', 'app_secret', 'verify_token'],
  account: (c) => ({ field: 'phone_number_id', key: accountKey(c.phone_number_id ?? '') }),
  receiving: 'webhook',
  replyWindow: { ms: REPLY_WINDOW_MS, refusal: OUTSIDE_WINDOW },
  client: (c, options) => new WhatsAppClient(c, options.apiRoot),
  maxTextLength: MAX_TEXT,
  contactButton: false,
  checkCredential: (c) => {
    for (const [field, form] of Object.entries(FORMS))
      if (!form.test.test(c[field] ?? '')) return { field, message: form.message };
    return null;
  },
  redact: (text, c) => {
    let out = text;
    for (const field of ['access_token', 'app_secret', 'verify_token']) {
      const secret = c[field];
      if (secret && secret.length >= 8) out = out.split(secret).join('<secret>');
    }
    return out;
  },
  parseWebhook,
};
