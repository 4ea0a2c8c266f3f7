import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { badRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPublicHttpUrl } from '../../platform/net/safe-fetch.js';
import type { PersonNotice } from '../chat/index.js';
import type { WebPush } from './push.js';
import type { NotificationsRepo } from './repo.js';

/** What happened, as the chat module's live handoff tells it. */
export type Notice = PersonNotice;

/** What a browser shows: the Web Push payload and the open tab's `notification` event. */
export interface NotificationPayload {
  kind: Notice['kind'];
  title: string;
  body: string;
  url: string;
  conversation_id: string;
  chatbot_id: string;
}

export interface Preferences {
  browser: boolean;
  push: boolean;
  email: boolean;
}

/** The person calling (currentActor): preferences and subscriptions are always one's own. */
export interface Person {
  id: string;
  email: string;
  team_role: 'owner' | 'manager' | 'operator';
}

export interface SubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** A person's browsers kept at most; a new one past it replaces the oldest. */
export const MAX_SUBSCRIPTIONS_PER_PERSON = 20;
/** How much of a visitor's message the notification shows. */
const TEXT_CHARS = 200;

export interface NotificationsDeps {
  repo: NotificationsRepo;
  push: WebPush;
  clock: Clock;
  log: FastifyBaseLogger;
  allowPrivateUrls: boolean;
  /** the account's people: the owner first, then the teammates */
  people: (accountId: string) => Person[];
}

type Listener = (n: NotificationPayload) => void;

/**
 * Notifications that reach a person (docs/API-NOTES.md "Notifications"): the open admin tabs (the
 * person's stream), Web Push to the browsers they allowed, and the choice of each per person. The
 * escalation e-mail is queued by the chat module to the addresses `escalationMailTo` gives.
 */
export class NotificationsService {
  private readonly tabs = new Map<string, Set<Listener>>();
  private readonly sending = new Set<Promise<unknown>>();

  constructor(private readonly deps: NotificationsDeps) {}

  /** Defaults: everything on, except e-mail for teammates (the owner gets it, as before teams). */
  preferences(person: Person): Preferences {
    const row = this.deps.repo.preferences(person.id);
    if (row) return { browser: row.browser, push: row.push, email: row.email };
    return { browser: true, push: true, email: person.team_role === 'owner' };
  }

  setPreferences(person: Person, prefs: Preferences): Preferences {
    this.deps.repo.savePreferences({ user_id: person.id, ...prefs, updated_at: isoNow(this.deps.clock) });
    return this.preferences(person);
  }

  vapidPublicKey(): string {
    return this.deps.push.publicKey();
  }

  /** Stores the person's browser subscription (by endpoint: again replaces its keys). */
  subscribe(person: Person, input: SubscriptionInput): { endpoint: string } {
    const { repo, allowPrivateUrls } = this.deps;
    let url: URL;
    try {
      url = assertPublicHttpUrl(input.endpoint, allowPrivateUrls);
    } catch (err) {
      throw badRequest(`endpoint: ${(err as Error).message}`);
    }
    if (url.protocol !== 'https:' && !allowPrivateUrls) throw badRequest('endpoint: must be an https:// URL');
    if (!isKey(input.keys.p256dh, 65) || base64url(input.keys.p256dh)[0] !== 4)
      throw badRequest('keys.p256dh: must be an uncompressed P-256 public key, base64url (65 bytes)');
    if (!isKey(input.keys.auth, 16)) throw badRequest('keys.auth: must be 16 bytes, base64url');
    repo.transaction(() => {
      const mine = repo.subscriptionsOf(person.id);
      if (!mine.some((s) => s.endpoint === input.endpoint) && mine.length >= MAX_SUBSCRIPTIONS_PER_PERSON)
        repo.deleteSubscriptionById(mine[0]!.id);
      repo.upsertSubscription({
        id: newId(),
        user_id: person.id,
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        created_at: isoNow(this.deps.clock),
      });
    });
    return { endpoint: input.endpoint };
  }

  /** Removes the person's subscription of that endpoint (nothing when there is none). */
  unsubscribe(person: Person, endpoint: string): void {
    this.deps.repo.deleteSubscription(person.id, endpoint);
  }

  /** The addresses of the account's people who want the escalation e-mail. */
  escalationMailTo(accountId: string): string[] {
    return this.deps
      .people(accountId)
      .filter((p) => this.preferences(p).email)
      .map((p) => p.email);
  }

  /** An open admin tab of the person: told each notification meant for them (browser on). */
  listen(personId: string, listener: Listener): () => void {
    let set = this.tabs.get(personId);
    if (!set) this.tabs.set(personId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.tabs.get(personId) === set) this.tabs.delete(personId);
    };
  }

  /**
   * After the commit: every person meant (the whole account for an escalation, the person who
   * took the conversation for a visitor's message) is told in their open tabs and by Web Push,
   * as each of them chose. Pushes go out in the background (`idle()` waits for them).
   */
  notify(notice: Notice): void {
    const people = this.deps.people(notice.account_id).filter((p) => !notice.person_id || p.id === notice.person_id);
    const payload = payloadOf(notice);
    for (const person of people) {
      const prefs = this.preferences(person);
      if (prefs.browser) for (const l of [...(this.tabs.get(person.id) ?? [])]) l(payload);
      if (!prefs.push) continue;
      for (const sub of this.deps.repo.subscriptionsOf(person.id)) {
        const sent = this.deps.push.send(sub, payload, notice.conversation_id).catch((err: unknown) => {
          this.deps.log.warn({ err }, 'push message failed');
        });
        this.sending.add(sent);
        void sent.finally(() => this.sending.delete(sent));
      }
    }
  }

  /** Resolves when the pushes under way are done (tests; a clean stop). */
  async idle(): Promise<void> {
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
  }
}

function payloadOf(n: Notice): NotificationPayload {
  const common = { kind: n.kind, url: n.url, conversation_id: n.conversation_id, chatbot_id: n.chatbot_id };
  if (n.kind === 'escalated')
    return { ...common, title: 'A visitor asked for a person', body: `${n.agent_name}: take the conversation over` };
  const text = (n.text ?? '').replace(/\s+/g, ' ').trim();
  return {
    ...common,
    title: `New message on ${n.agent_name}`,
    body: text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text,
  };
}

function base64url(s: string): Buffer {
  return Buffer.from(s, 'base64url');
}

/** base64url (padding allowed) of exactly `bytes` bytes */
function isKey(s: string, bytes: number): boolean {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(s) && base64url(s).length === bytes;
}
