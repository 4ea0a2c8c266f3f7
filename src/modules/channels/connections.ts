import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { ApiError, badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import {
  type ChannelClient,
  ChannelError,
  type ChannelName,
  CHANNELS,
  channelDefinition,
  type Credential,
} from '../../providers/channels/index.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { decryptValue, encryptValue, SettingsKey } from '../settings/index.js';
import type { ChannelsRepo } from './repo.js';
import type { ChannelConnectionRow } from './tables.js';

export interface ChannelView {
  channel: ChannelName;
  /** `not_connected` until a credential is saved; `error` once the network refused it (see `error`) */
  state: 'not_connected' | 'connected' | 'error';
  /** e.g. `@acme_help_bot` */
  account_name: string | null;
  display_name: string | null;
  /** `polling` (any server) or `webhook` (PUBLIC_URL is https) */
  mode: 'polling' | 'webhook' | null;
  error: string | null;
  last_message_at: string | null;
  connected_at: string | null;
}

export interface ConnectionOptions {
  dataDir: string;
  /** where the network posts updates: `${publicUrl}/api/public/channels/...` (webhook mode) */
  publicUrl: string;
  /** PUBLIC_URL is set and https: the network can reach us, so updates come by webhook */
  webhooks: boolean;
  /** TELEGRAM_API_ROOT and the like: the operator's override of a network's API address */
  apiRoots: Partial<Record<ChannelName, string>>;
  /** ALLOW_PRIVATE_URLS: the mail servers an owner names may be on private addresses */
  allowPrivateUrls: boolean;
}

export interface ConnectionsDeps {
  repo: ChannelsRepo;
  agents: AgentsService;
  options: ConnectionOptions;
  clock: Clock;
  log: FastifyBaseLogger;
  /** tells the owner by e-mail (the leads module's outbox) */
  notice: (accountId: string, subject: string, body: string) => void;
  /** the server's SMTP settings are there (an e-mail channel without its own smtp_url answers through them) */
  mailConfigured: () => boolean;
}

/** The path the network posts a connection's updates to (webhook mode). */
export const webhookPath = (channel: ChannelName, connectionId: string) =>
  `/api/public/channels/${channel}/${connectionId}`;

/** what the owner pastes again when the network stopped taking the credential */
const NEW_CREDENTIAL: Record<ChannelName, string> = {
  telegram: 'token',
  whatsapp: 'access token',
  email: 'IMAP URL (with the mailbox password)',
};

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * An agent's accounts on messaging networks: saving a credential (checked with the network, kept
 * encrypted, never returned), the client of each connection, and what happens when the network
 * stops taking it (state `error`, the owner told once, nothing retried until a new credential).
 */
export class ChannelConnections {
  private readonly key: SettingsKey;
  private readonly clients = new Map<string, ChannelClient>();
  /** called when a connection starts or stops receiving (the polling receivers) */
  onChange: (connection: ChannelConnectionRow, connected: boolean) => void = () => undefined;

  constructor(private readonly deps: ConnectionsDeps) {
    this.key = new SettingsKey(deps.options.dataDir);
  }

  list(user: AuthUser, chatbotId: string): ChannelView[] {
    const agent = this.deps.agents.get(user, chatbotId);
    const rows = new Map(this.deps.repo.connectionsOf(agent.id).map((r) => [r.channel, r]));
    return CHANNELS.map((c) => viewOf(c.name, rows.get(c.name)));
  }

  /** Checks the credential with the network, then keeps it: 400 refused, 409 another agent's account, 502 unreachable. */
  async connect(user: AuthUser, chatbotId: string, channel: ChannelName, credential: Credential): Promise<ChannelView> {
    const agent = this.deps.agents.get(user, chatbotId);
    const definition = channelDefinition(channel);
    const wrongForm = definition.checkCredential(credential);
    if (wrongForm) throw badRequest(`${wrongForm.field}: ${wrongForm.message}`);
    if (definition.mail && !credential.smtp_url && !this.deps.mailConfigured())
      throw badRequest(
        "smtp_url: this server has no SMTP settings to send the answers with; give the mailbox's own SMTP server (smtps://user:password@host)",
      );
    const account = definition.account(credential);
    const hash = sha256(account.key);
    const holder = this.deps.repo.byAccountHash(hash);
    if (holder && holder.chatbot_id !== agent.id)
      throw conflict(
        `${account.field}: this ${{ telegram: 'bot', whatsapp: 'account', email: 'mailbox' }[channel]} already answers for another agent; disconnect it there first`,
      );
    const client = definition.client(credential, this.clientOptions(channel));
    const signal = AbortSignal.timeout(15_000);
    const refused = (err: unknown) =>
      refusal(err, definition.fields[0]!, (text) => definition.redact(text, credential));
    const identity = await client.identify(signal).catch(async (err) => {
      await client.close?.();
      throw refused(err);
    });
    const secret = randomBytes(32).toString('base64url');
    const existing = this.deps.repo.connectionOf(agent.id, channel);
    const id = existing?.id ?? newId();
    const mode =
      definition.receiving === 'webhook' ||
      (definition.receiving === 'polling-or-webhook' && this.deps.options.webhooks)
        ? 'webhook'
        : 'polling';
    if (definition.receiving === 'polling-or-webhook') {
      const webhook =
        mode === 'webhook' ? { url: this.deps.options.publicUrl + webhookPath(channel, id), secret } : null;
      // polling needs any earlier webhook gone (the network refuses getUpdates while one is set)
      await client.setWebhook(webhook, signal).catch((err) => {
        throw refused(err);
      });
    }
    if (existing) {
      this.onChange(existing, false);
      this.forget(existing.id);
    }
    const now = isoNow(this.deps.clock);
    const row = this.deps.repo.saveConnection({
      id,
      chatbot_id: agent.id,
      channel,
      credential: encryptValue(this.key.readOrCreate(), `channel:${id}`, JSON.stringify(credential)),
      account_hash: hash,
      account_name: identity.account_name,
      display_name: identity.display_name,
      mode,
      webhook_secret_hash: mode === 'webhook' && definition.receiving === 'polling-or-webhook' ? sha256(secret) : null,
      state: 'connected',
      error: null,
      // another bot's offsets mean nothing to this one
      update_offset: existing?.account_hash === hash ? existing.update_offset : null,
      last_message_at: existing?.last_message_at ?? null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
    this.clients.set(row.id, client);
    this.onChange(row, true);
    return viewOf(channel, row);
  }

  /** Stops the channel and forgets its credential (its chats' conversations stay). 404 when not connected. */
  async disconnect(user: AuthUser, chatbotId: string, channel: ChannelName): Promise<void> {
    const agent = this.deps.agents.get(user, chatbotId);
    const row = this.deps.repo.connectionOf(agent.id, channel);
    if (!row) throw notFound('Channel');
    this.onChange(row, false);
    if (row.mode === 'webhook' && channelDefinition(row.channel).receiving === 'polling-or-webhook') {
      // best effort: the network stops posting to a path that now answers 404 either way
      await this.client(row)
        .setWebhook(null, AbortSignal.timeout(5000))
        .catch(() => undefined);
    }
    this.forget(row.id);
    this.deps.repo.deleteConnection(row.id);
  }

  /** The connection's client (its credential decrypted once per process). */
  client(row: ChannelConnectionRow): ChannelClient {
    let client = this.clients.get(row.id);
    if (!client) {
      client = channelDefinition(row.channel).client(this.credential(row), this.clientOptions(row.channel));
      this.clients.set(row.id, client);
    }
    return client;
  }

  /** The connection's credential, decrypted (for the mail outbox's SMTP server of an e-mail channel). */
  credential(row: ChannelConnectionRow): Credential {
    const key = this.key.read();
    if (!key) throw new Error('no settings key');
    return JSON.parse(decryptValue(key, `channel:${row.id}`, row.credential)) as Credential;
  }

  clientOptions(channel: ChannelName) {
    return { apiRoot: this.deps.options.apiRoots[channel], allowPrivateUrls: this.deps.options.allowPrivateUrls };
  }

  /** Drops the connection's client and what it holds open (an IMAP connection). */
  forget(id: string): void {
    const client = this.clients.get(id);
    this.clients.delete(id);
    void client?.close?.();
  }

  /** At shutdown: every client's open connection ends. */
  async closeAll(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((c) => c.close?.()));
  }

  /** Whether a webhook call carries the connection's secret (compared in constant time). */
  webhookSecretMatches(row: ChannelConnectionRow, secret: string | undefined): boolean {
    if (row.mode !== 'webhook' || !row.webhook_secret_hash || !secret) return false;
    return timingSafeEqual(Buffer.from(sha256(secret)), Buffer.from(row.webhook_secret_hash));
  }

  /**
   * The network refused the credential: the connection goes to `error` with the reason, stops
   * receiving, and its owner gets one e-mail; later failures of the same connection change nothing.
   */
  fail(row: ChannelConnectionRow, reason: string): void {
    if (!this.deps.repo.markError(row.id, reason, isoNow(this.deps.clock))) return;
    this.onChange(row, false);
    this.forget(row.id);
    this.deps.log.warn({ connectionId: row.id, channel: row.channel, reason }, 'channel stopped');
    const agent = this.deps.agents.findById(row.chatbot_id);
    if (!agent) return;
    this.deps.notice(
      agent.user_id,
      `Your agent "${agent.name}" stopped answering on ${row.channel}`,
      `${row.account_name} (${row.channel}) stopped working for your agent "${agent.name}":\n\n${reason}\n\n` +
        `Messages people send there wait until you connect it again: paste a new ${NEW_CREDENTIAL[row.channel]} in the agent's Channels tab. ` +
        `Replies already queued are sent then.`,
    );
  }
}

function viewOf(channel: ChannelName, row: ChannelConnectionRow | undefined): ChannelView {
  return {
    channel,
    state: row?.state ?? 'not_connected',
    account_name: row?.account_name ?? null,
    display_name: row?.display_name ?? null,
    mode: row?.mode ?? null,
    error: row?.error ?? null,
    last_message_at: row?.last_message_at ?? null,
    connected_at: row?.created_at ?? null,
  };
}

/** A network's refusal while connecting, as the owner's answer: 400 for the credential, 502 for the network. */
function refusal(err: unknown, firstField: string, redact: (text: string) => string): ApiError {
  const said = redact(err instanceof Error ? err.message : String(err));
  const field = (err instanceof ChannelError && err.field) || firstField;
  if (err instanceof ChannelError && err.kind === 'unauthorized')
    return badRequest(`${field}: ${said} (revoked, or not copied whole)`);
  if (err instanceof ChannelError && err.kind === 'undeliverable') return badRequest(`${field}: ${said}`);
  return new ApiError(502, `${said}; try again in a moment`);
}
