/**
 * What the channel layer needs of a messaging network (Telegram, WhatsApp, an e-mail mailbox). An adapter turns the network's updates into `InboundMessage`s and sends
 * text back; everything else (storing, answering, the outbox, handoff) is the channels module's and
 * the same for every network.
 */

/** Who the connected account is on its network: shown back to the owner when they connect it. */
export interface ChannelIdentity {
  /** the handle people write to, e.g. `@acme_help_bot` */
  account_name: string;
  /** the display name */
  display_name: string;
}

/** One message a person sent to the connected account. */
export interface InboundMessage {
  /** the network's id of the message: the same one delivered twice carries the same id */
  externalId: string;
  /** where the answer goes (a Telegram chat) */
  chatId: string;
  /** the sender: the per-visitor key of rate limits where there is no client address */
  userId: string;
  /** the sender's name as the network gives it */
  userName: string;
  /** the text; null for what carries none (a shared contact) */
  text: string | null;
  /**
   * the account it was sent to, as `ChannelDefinition.account` keys it, where the network says
   * (WhatsApp's metadata.phone_number_id: one Meta app posts every number's messages to one URL)
   */
  accountKey?: string;
  /** the phone number the person chose to share (Telegram's contact button) */
  contact?: { phone: string; name: string };
  /** e-mail: what a reply needs to thread under this message in the person's mail program */
  thread?: MailThread;
}

export interface MailThread {
  /** the message's Message-ID, `<...>` included: the reply's In-Reply-To */
  messageId: string;
  /** its References and its own id: the reply's References */
  references: string[];
  /** its subject, without `Re:`: the reply's is `Re: ` and it */
  subject: string;
}

/** A batch of updates and the offset that confirms them (the next poll sends it). */
export interface UpdateBatch {
  messages: InboundMessage[];
  /** confirms every update up to the batch's last, kinds this layer ignores included; null: nothing new */
  nextOffset: number | null;
}

export type ChannelErrorKind =
  /** the credentials stopped working (revoked token): the connection goes to `error` */
  | 'unauthorized'
  /** another receiver holds the account (a second process, a webhook set elsewhere) */
  | 'conflict'
  /** slow down for `retryAfterS` */
  | 'rate-limited'
  /** this message can never be delivered (the person blocked the bot, the chat is gone) */
  | 'undeliverable'
  /** the network could not be reached or failed (5xx, timeouts): try again later */
  | 'unavailable';

/** A failure of the network, with no credential in its message (tokens travel in URLs). */
export class ChannelError extends Error {
  constructor(
    readonly kind: ChannelErrorKind,
    message: string,
    readonly retryAfterS?: number,
    /** the credential field the network refused, when it says which (the owner's 400 names it) */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** A connected account's client: one per connection, holding its credentials. */
export interface ChannelClient {
  /** checks the credentials and says who the account is */
  identify(signal?: AbortSignal): Promise<ChannelIdentity>;
  /** updates after `offset` (null: the first poll), waiting up to `waitS` for one */
  poll(offset: number | null, waitS: number, signal: AbortSignal): Promise<UpdateBatch>;
  /** sends `text` to `chatId`; `askContact`: offers the network's share-your-phone button */
  send(chatId: string, text: string, options?: { askContact?: boolean; signal?: AbortSignal }): Promise<void>;
  /** receive by webhook at `url`, each call carrying `secret` (null: back to polling) */
  setWebhook(webhook: { url: string; secret: string } | null, signal?: AbortSignal): Promise<void>;
  /** a webhook body's signature matches the raw bytes (networks that sign what they post) */
  signatureMatches?(rawBody: Buffer, signature: string | undefined): boolean;
  /** the token the network's webhook verification echoes is the owner's (constant time) */
  verifyTokenMatches?(token: string | undefined): boolean;
  /** ends what the client holds open (an IMAP connection) */
  close?(): Promise<void>;
}

/** What a client is made with besides the credential. */
export interface ClientOptions {
  /** the operator's override of the network's API address (tests, air-gapped installs) */
  apiRoot?: string;
  /** ALLOW_PRIVATE_URLS: servers an owner names may be on loopback or private addresses */
  allowPrivateUrls: boolean;
}

/** The credential the owner pastes: its fields by name (the PUT body), all of them secret. */
export type Credential = Record<string, string>;

export interface ChannelDefinition<Name extends string = string> {
  name: Name;
  /** the credential's fields, as the owner names them (the PUT body's fields); the first is named when the network refuses it */
  fields: readonly string[];
  /** the fields the owner may leave out */
  optionalFields?: readonly string[];
  /**
   * What identifies the account on its network (one agent per account): the field it comes from
   * and its value (kept as a hash only)
   */
  account(credential: Credential): { field: string; key: string };
  /**
   * `webhook`: the network only posts to us (WhatsApp), on a route of its own; `polling-or-webhook`:
   * long polling, or a webhook when PUBLIC_URL is https (Telegram); `polling`: we always fetch (IMAP)
   */
  receiving: 'webhook' | 'polling-or-webhook' | 'polling';
  /** the network has a share-your-phone button (Telegram's): the channel's lead form */
  contactButton: boolean;
  /** replies are taken only this long after the person's last message (WhatsApp's 24 hours); none: always */
  replyWindow?: { ms: number; refusal: string };
  /**
   * E-mail: replies go out through the mail outbox (threaded; ChannelClient.send is not used).
   * Anyone can forge a From, so one sender gets at most `answersPerSenderDaily` answers a day and
   * refusals (too fast, over the cap) are not answered: the agent cannot be made a reflector.
   */
  mail?: { answersPerSenderDaily: number };
  /** a client for one account */
  client(credential: Credential, options: ClientOptions): ChannelClient;
  /** the longest text one message may carry; longer answers are sent in parts */
  maxTextLength: number;
  /** a credential's form, checked before the network is asked: the field that is wrong and what is expected */
  checkCredential(credential: Credential): { field: string; message: string } | null;
  /** `text` without the credential's secrets */
  redact(text: string, credential: Credential): string;
  /** the messages of an update the network POSTed to our webhook */
  parseWebhook(body: unknown): UpdateBatch;
}
