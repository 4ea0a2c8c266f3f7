import { createECDH, createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { safePost } from '../../platform/net/safe-post.js';
import { decryptValue, encryptValue, SettingsKey } from '../settings/index.js';
import type { NotificationsRepo } from './repo.js';
import type { PushSubscriptionRow } from './tables.js';

/** How long a push service keeps a message for a browser that is offline (an hour: older news is stale). */
export const PUSH_TTL_S = 3600;
/** How long one push request may take, connect to last byte. */
const PUSH_TIMEOUT_MS = 10_000;
/** the associated data the private key is encrypted with */
const KEY_AAD = 'vapid:private';

export type PushOutcome = 'sent' | 'gone' | 'failed';

export interface WebPushDeps {
  repo: NotificationsRepo;
  dataDir: string;
  /** ALLOW_PRIVATE_URLS: push endpoints on loopback/private addresses (tests) */
  allowPrivateUrls: boolean;
  clock: Clock;
  log: FastifyBaseLogger;
  /** the VAPID subject: the https public URL, or a mailto: of the server's admin */
  subject: () => string;
}

type Library = Pick<typeof import('web-push'), 'generateRequestDetails'>;

/**
 * A VAPID key pair (RFC 8292): P-256, the public key as an uncompressed point (65 bytes) and the
 * private key as its 32-byte scalar, both base64url; what web-push's generateVAPIDKeys makes, here
 * without loading that library (with its ASN.1 and JWS code, ~2 MB of the heap) at the first start.
 */
export function vapidKeyPair(): { publicKey: string; privateKey: string } {
  const curve = createECDH('prime256v1');
  curve.generateKeys();
  // a scalar with leading zero bytes comes back shorter: padded, as the library does
  const privateKey = Buffer.alloc(32);
  const scalar = curve.getPrivateKey();
  scalar.copy(privateKey, 32 - scalar.length);
  return { publicKey: curve.getPublicKey().toString('base64url'), privateKey: privateKey.toString('base64url') };
}

/**
 * Web Push (RFC 8030, encrypted per RFC 8291, VAPID per RFC 8292) with the `web-push` library: it
 * makes each request (headers, encrypted body); the request is sent here through
 * the safe outbound POST (platform/net/safe-post.ts), because an endpoint is a URL a browser handed
 * us: internal addresses are refused unless ALLOW_PRIVATE_URLS, redirects are not followed, and the
 * time and the answer read are capped. The library is loaded on first use.
 */
export class WebPush {
  private keys: { publicKey: string; privateKey: string } | null = null;
  private library: Library | null = null;
  private readonly settingsKey: SettingsKey;

  constructor(private readonly deps: WebPushDeps) {
    this.settingsKey = new SettingsKey(deps.dataDir);
  }

  private async lib(): Promise<Library> {
    this.library ??= (await import('web-push')).default;
    return this.library;
  }

  /**
   * Reads the key pair, or makes it on the first start. A stored private key that cannot be read
   * (the settings key changed) is replaced, and every subscription goes with it: browsers
   * subscribed with the old public key, and push services refuse messages signed with another.
   */
  async start(): Promise<void> {
    const { repo } = this.deps;
    const row = repo.vapidKeys();
    const key = this.settingsKey.read();
    if (row && key) {
      try {
        this.keys = { publicKey: row.public_key, privateKey: decryptValue(key, KEY_AAD, row.private_key_encrypted) };
        return;
      } catch (err) {
        this.deps.log.warn({ err }, 'the VAPID private key cannot be read: new keys, push subscriptions removed');
      }
    }
    const made = vapidKeyPair();
    const sealed = encryptValue(this.settingsKey.readOrCreate(), KEY_AAD, made.privateKey);
    repo.transaction(() => {
      if (row) repo.deleteAllSubscriptions();
      repo.saveVapidKeys({
        public_key: made.publicKey,
        private_key_encrypted: sealed,
        created_at: isoNow(this.deps.clock),
      });
    });
    this.keys = made;
  }

  /** The public key browsers subscribe with (applicationServerKey), base64url. */
  publicKey(): string {
    if (!this.keys) throw new Error('WebPush.start() not run');
    return this.keys.publicKey;
  }

  /**
   * Sends one message. `topic` (a conversation) lets the push service replace a message still
   * waiting for an offline browser by the newer one. A 404 or 410 means the subscription is gone
   * (the browser unsubscribed or expired it): it is removed.
   */
  async send(sub: PushSubscriptionRow, payload: unknown, topic: string): Promise<PushOutcome> {
    const { log } = this.deps;
    const keys = this.keys;
    if (!keys) return 'failed';
    let request: { headers: Record<string, string | number>; body: Buffer | null; endpoint: string };
    try {
      request = (await this.lib()).generateRequestDetails(
        { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
        JSON.stringify(payload),
        {
          vapidDetails: { subject: this.deps.subject(), publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: PUSH_TTL_S,
          urgency: 'high',
          // at most 32 base64url characters
          topic: createHash('sha256').update(topic).digest('base64url').slice(0, 32),
        },
      ) as typeof request;
    } catch (err) {
      log.warn({ err, subscription: sub.id }, 'push message could not be made');
      return 'failed';
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = String(value);
    const result = await safePost(request.endpoint, request.body ?? Buffer.alloc(0), headers, {
      allowPrivate: this.deps.allowPrivateUrls,
      timeoutMs: PUSH_TIMEOUT_MS,
    });
    if (result.status === 404 || result.status === 410) {
      this.deps.repo.deleteSubscriptionById(sub.id);
      log.info({ subscription: sub.id, status: result.status }, 'push subscription gone: removed');
      return 'gone';
    }
    if (result.error !== null) {
      log.warn({ subscription: sub.id, status: result.status, err: result.error }, 'push message not delivered');
      return 'failed';
    }
    return 'sent';
  }
}
