import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEventMap, AppEventName, AppEvents } from '../../platform/events.js';
import { ApiError, badRequest, conflict, notFound, tooManyRequests } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import { assertPublicHttpUrl } from '../../platform/net/safe-fetch.js';
import type { AuthUser } from '../auth/index.js';
import { decryptValue, encryptValue, SettingsKey } from '../settings/index.js';
import { safePost, type PostResult } from '../../platform/net/safe-post.js';
import type { DeliveryRow, WebhookRow, WebhooksRepo } from './repo.js';
import { newWebhookSecret, signatureHeader } from './signing.js';

export const WEBHOOK_JOB = 'webhook';
export const WEBHOOK_EVENTS = [
  'lead.created',
  'conversation.escalated',
  'conversation.resolved',
  'message.created',
  'action.run',
  'booking.created',
  'tests.regressed',
] as const satisfies readonly AppEventName[];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_WEBHOOKS = 10;
/** tries of one delivery before it is failed (a manual retry starts the count again) */
export const MAX_ATTEMPTS = 8;
/** wait after the n-th failed try: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h (about 21 h in all) */
export const RETRY_SCHEDULE_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000];
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'chat-agent-webhooks';

export type { DeliveryRow, WebhookRow } from './repo.js';
/** a webhook as the API shows it: never its secret */
export type WebhookView = Omit<WebhookRow, 'secret' | 'user_id'>;

export interface WebhooksOptions {
  dataDir: string;
  allowPrivateUrls: boolean;
  timeoutMs?: number;
}

/** An account's plan and its `webhook_deliveries_per_hour`. */
export interface WebhookAllowance {
  plan: string;
  perHour: number;
}

const HOUR_MS = 3600_000;

export interface WebhooksServiceDeps {
  repo: WebhooksRepo;
  /** the account's hourly allowance of POSTs, from its plan */
  allowance: (accountId: string) => WebhookAllowance;
  /** the webhook-delivery queue (its job kind is registered here) */
  queue: JobQueue;
  events: AppEvents;
  options: WebhooksOptions;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Signed webhooks per account (docs/API-NOTES.md "Webhooks"). An event inserts one delivery per active
 * subscribed webhook of the account, in the emitter's transaction, and queues its job; the job
 * POSTs the signed body and retries on its own schedule. The secret is kept encrypted with the
 * server's settings key (DATA_DIR/settings-key), the webhook's id as the associated data.
 */
export class WebhooksService {
  private readonly key: SettingsKey;
  private readonly repo: WebhooksRepo;
  private readonly allowance: (accountId: string) => WebhookAllowance;
  private readonly queue: JobQueue;
  private readonly options: WebhooksOptions;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;

  constructor({ repo, allowance, queue, events, options, clock, log }: WebhooksServiceDeps) {
    this.repo = repo;
    this.allowance = allowance;
    this.queue = queue;
    this.options = options;
    this.clock = clock;
    this.log = log;
    this.key = new SettingsKey(options.dataDir);
    queue.register(WEBHOOK_JOB, (job, ctx) => this.deliver(job.subject_id, ctx.signal));
    for (const event of WEBHOOK_EVENTS) events.on(event, (data) => this.onEvent(event, data));
    // erasure (docs/API-NOTES.md "Erasure"): a delivery whose body carried the visitor's conversation or lead
    // goes with it, sent or not (a job still queued for it finds nothing and ends)
    events.on('conversation.erased', (erased) =>
      this.repo.deleteDeliveriesNaming(erased.account_id, erased.conversation_id),
    );
    events.on('lead.erased', (erased) => this.repo.deleteDeliveriesNaming(erased.account_id, erased.lead_id));
  }

  list(user: AuthUser): WebhookView[] {
    return this.repo.listByUser(user.id).map(view);
  }

  create(user: AuthUser, input: { url: string; events: string[] }): WebhookView & { secret: string } {
    const url = this.checkUrl(input.url);
    const events = checkEvents(input.events);
    const now = isoNow(this.clock);
    const id = newId();
    const secret = newWebhookSecret();
    const stored = this.seal(id, secret);
    return this.repo.transaction(() => {
      if (this.repo.countByUser(user.id) >= MAX_WEBHOOKS)
        throw new ApiError(403, `An account may have at most ${MAX_WEBHOOKS} webhooks; delete one first`);
      const row = this.repo.insert({
        id,
        user_id: user.id,
        url,
        secret: stored,
        events,
        active: true,
        created_at: now,
        updated_at: now,
      });
      return { ...view(row), secret };
    });
  }

  update(user: AuthUser, id: string, patch: { url?: string; events?: string[]; active?: boolean }): WebhookView {
    const hook = this.own(user, id);
    const changes: Partial<WebhookRow> = { updated_at: isoNow(this.clock) };
    if (patch.url !== undefined) changes.url = this.checkUrl(patch.url);
    if (patch.events !== undefined) changes.events = checkEvents(patch.events);
    if (patch.active !== undefined) changes.active = patch.active;
    return view(this.repo.update(hook.id, changes));
  }

  /** Deletes the webhook and its log; its queued deliveries are dropped, a running one aborted. */
  async remove(user: AuthUser, id: string): Promise<void> {
    const hook = this.own(user, id);
    const pending = this.repo.pendingDeliveryIds(hook.id);
    this.repo.delete(hook.id);
    for (const deliveryId of pending) await this.queue.cancelSubject(deliveryId);
  }

  rotateSecret(user: AuthUser, id: string): WebhookView & { secret: string } {
    const hook = this.own(user, id);
    const secret = newWebhookSecret();
    const row = this.repo.update(hook.id, {
      secret: this.seal(hook.id, secret),
      updated_at: isoNow(this.clock),
    });
    return { ...view(row), secret };
  }

  deliveries(user: AuthUser, id: string, limit: number): DeliveryRow[] {
    const hook = this.own(user, id);
    return this.repo.deliveriesOf(hook.id, limit);
  }

  /**
   * A `ping` delivery, queued like any event (also to a disabled webhook: it is asked for); 429
   * with the reason while the account's hourly allowance is used up.
   */
  sendTest(user: AuthUser, id: string): DeliveryRow {
    const hook = this.own(user, id);
    this.assertAllowance(hook.user_id);
    return this.repo.transaction(() =>
      this.insertDelivery(hook, 'ping', { webhook_id: hook.id, message: 'A test event sent from the admin.' }),
    );
  }

  /** Queues a failed delivery again (409 for one not failed); its attempt count starts again. */
  retry(user: AuthUser, id: string, deliveryId: string): DeliveryRow {
    const hook = this.own(user, id);
    const delivery = this.repo.findDeliveryOf(hook.id, deliveryId);
    if (!delivery) throw notFound('Delivery');
    if (delivery.status !== 'failed')
      throw conflict(`Only a failed delivery can be retried; this one is ${delivery.status}`);
    // the hourly allowance is used up: say so now rather than queue a try that cannot be sent
    this.assertAllowance(hook.user_id);
    return this.repo.transaction(() => {
      const row = this.repo.resetDelivery(delivery.id);
      this.queue.enqueue(WEBHOOK_JOB, delivery.id, { owner: hook.user_id });
      return row;
    });
  }

  /** In the emitter's transaction: inserts only. */
  private onEvent<E extends WebhookEvent>(event: E, data: AppEventMap[E]): void {
    const hooks = this.repo.activeByUser(data.account_id);
    const { account_id: _account, ...rest } = data;
    for (const hook of hooks) if (hook.events.includes(event)) this.insertDelivery(hook, event, rest);
  }

  /**
   * A delivery of the event to the webhook, queued; when the account has used its hourly
   * allowance already, it is logged at once as not sent (no job for it).
   */
  private insertDelivery(hook: WebhookRow, event: string, data: unknown): DeliveryRow {
    const id = newId();
    const now = isoNow(this.clock);
    const payload = JSON.stringify({ id, event, created_at: now, data });
    const refusal = this.overAllowance(hook.user_id);
    const row = this.repo.insertDelivery({
      id,
      webhook_id: hook.id,
      event,
      payload,
      status: refusal ? 'failed' : 'pending',
      attempts: 0,
      last_error: refusal,
      created_at: now,
    });
    if (!refusal) this.queue.enqueue(WEBHOOK_JOB, id, { owner: hook.user_id });
    return row;
  }

  /**
   * Why the account may not POST now (its plan's `webhook_deliveries_per_hour` used up in the
   * last hour, retries included), or null when it may.
   */
  private overAllowance(accountId: string): string | null {
    return this.allowanceRefusal(accountId)?.message ?? null;
  }

  /** 429 with the reason and Retry-After while the account's hourly allowance is used up (the owner's own requests). */
  private assertAllowance(accountId: string): void {
    const refusal = this.allowanceRefusal(accountId);
    if (refusal) throw tooManyRequests(refusal.message.replace(/^Not sent: /, ''), refusal.retryAfterS);
  }

  private allowanceRefusal(accountId: string): { message: string; retryAfterS: number } | null {
    const { plan, perHour } = this.allowance(accountId);
    const now = this.clock.now().getTime();
    const { n, first } = this.repo.attemptsSince(accountId, new Date(now - HOUR_MS).toISOString());
    if (n < perHour) return null;
    const until = first ? Date.parse(first) + HOUR_MS : now + HOUR_MS;
    return {
      message: `Not sent: the webhooks of this account made ${n} deliveries in the last hour (retries included), the most the ${plan} plan allows; retry it after ${new Date(until).toISOString().slice(11, 16)} UTC`,
      retryAfterS: (until - now) / 1000,
    };
  }

  /**
   * Takes one POST from the account's hourly allowance (synchronously: two tries at once cannot
   * both take the last one), or answers why it may not.
   */
  private takeAttempt(accountId: string): string | null {
    return this.repo.transaction(() => {
      const refusal = this.overAllowance(accountId);
      if (refusal) return refusal;
      const now = this.clock.now();
      this.repo.recordAttempt(accountId, now.toISOString(), new Date(now.getTime() - HOUR_MS).toISOString());
      return null;
    });
  }

  /** One try. Success and final failures are recorded here; a retry is queued as a new job. */
  private async deliver(deliveryId: string, signal: AbortSignal): Promise<void> {
    const delivery = this.repo.findDelivery(deliveryId);
    if (delivery?.status !== 'pending') return;
    const hook = this.repo.findById(delivery.webhook_id);
    if (!hook) return;
    if (!hook.active && delivery.event !== 'ping') {
      this.record(delivery, { status: null, error: 'The webhook is disabled; enable it and retry' }, true);
      return;
    }
    let secret: string;
    try {
      secret = this.open(hook);
    } catch (err) {
      this.record(
        delivery,
        {
          status: null,
          error: 'The signing secret cannot be read (settings-key changed?); rotate the secret and retry',
        },
        true,
      );
      this.log.error({ webhookId: hook.id, err }, 'webhook secret unreadable');
      return;
    }
    // the account's hourly allowance: this try (a retry too) takes one, or is not sent
    const refusal = this.takeAttempt(hook.user_id);
    if (refusal) {
      this.repo.updateDelivery(delivery.id, { status: 'failed', last_status: null, last_error: refusal });
      this.log.warn({ deliveryId: delivery.id, accountId: hook.user_id }, 'webhook delivery over the hourly allowance');
      return;
    }
    const t = Math.floor(this.clock.now().getTime() / 1000);
    const result = await safePost(
      hook.url,
      delivery.payload,
      {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'chat-agent-event': delivery.event,
        'chat-agent-delivery': delivery.id,
        'chat-agent-signature': signatureHeader(secret, delivery.payload, t),
      },
      { allowPrivate: this.options.allowPrivateUrls, timeoutMs: this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS, signal },
    );
    // shutting down: the job goes back to the queue and this try does not count
    if (signal.aborted) throw new Error('stopped');
    this.record(delivery, result, isFinal(result));
  }

  private record(delivery: DeliveryRow, result: PostResult, final: boolean): void {
    const now = this.clock.now();
    const attempts = delivery.attempts + 1;
    this.repo.transaction(() => {
      if (result.error === null) {
        this.repo.updateDelivery(delivery.id, {
          status: 'delivered',
          attempts,
          last_status: result.status,
          last_error: null,
          delivered_at: now.toISOString(),
        });
        return;
      }
      const failed = final || attempts >= MAX_ATTEMPTS;
      this.repo.updateDelivery(delivery.id, {
        status: failed ? 'failed' : 'pending',
        attempts,
        last_status: result.status,
        last_error: result.error,
      });
      if (!failed) {
        const wait = RETRY_SCHEDULE_MS[Math.min(attempts - 1, RETRY_SCHEDULE_MS.length - 1)]!;
        const owner = this.repo.ownerOf(delivery.webhook_id);
        this.queue.enqueue(WEBHOOK_JOB, delivery.id, { owner, runAfter: new Date(now.getTime() + wait) });
      }
    });
    if (result.error !== null)
      this.log.warn({ deliveryId: delivery.id, status: result.status, err: result.error }, 'webhook delivery failed');
  }

  private own(user: AuthUser, id: string): WebhookRow {
    const hook = this.repo.findOwned(id, user.id);
    if (!hook) throw notFound('Webhook');
    return hook;
  }

  private checkUrl(raw: string): string {
    let url: URL;
    try {
      url = assertPublicHttpUrl(raw, this.options.allowPrivateUrls);
    } catch (err) {
      throw badRequest(`url: ${(err as Error).message}`);
    }
    if (url.protocol !== 'https:' && !this.options.allowPrivateUrls)
      throw badRequest('url: webhooks are sent over https only; use an https:// URL');
    return url.href;
  }

  private seal(id: string, secret: string): string {
    return encryptValue(this.key.readOrCreate(), `webhook:${id}`, secret);
  }

  private open(hook: WebhookRow): string {
    const key = this.key.read();
    if (!key) throw new Error('no settings key');
    return decryptValue(key, `webhook:${hook.id}`, hook.secret);
  }
}

/** Not worth retrying: a refused target, a redirect (not followed), a 4xx other than 408 and 429. */
function isFinal(result: PostResult): boolean {
  if (result.unsafe) return true;
  const s = result.status;
  if (s === null) return false;
  return s >= 300 && s < 500 && s !== 408 && s !== 429;
}

function checkEvents(events: string[]): WebhookEvent[] {
  const unknown = events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0)
    throw badRequest(
      `events: unknown event ${unknown.map((e) => `"${e}"`).join(', ')}; allowed: ${WEBHOOK_EVENTS.join(', ')}`,
    );
  if (events.length === 0) throw badRequest(`events: choose at least one of ${WEBHOOK_EVENTS.join(', ')}`);
  return [...new Set(events)] as WebhookEvent[];
}

function view(row: WebhookRow): WebhookView {
  const { secret: _secret, user_id: _user, ...rest } = row;
  return rest;
}
