import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { errors as joseErrors, jwtVerify } from 'jose';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import { ApiError } from '../../platform/http/errors.js';
import type { AuthUser } from '../auth/index.js';
import type { AgentsService } from './service.js';
import { chatbotIdentity } from './tables.js';

/** The longest a visitor token may still be valid when it is shown: a token for longer is refused. */
export const VISITOR_TOKEN_MAX_S = 24 * 3600;

/** A visitor the site vouched for: its own user id, and the name and e-mail it sent beside it. */
export interface VisitorUser {
  id: string;
  name?: string;
  email?: string;
}

/** What the public chat body's `user` carries (checked by the route's schema). */
export interface ClaimedUser extends VisitorUser {
  hash: string;
}

export interface IdentityStatus {
  configured: boolean;
  created_at: string | null;
}

/** A new identity secret: `idsec_` and 32 random bytes, base64url. */
export function newIdentitySecret(): string {
  return `idsec_${randomBytes(32).toString('base64url')}`;
}

/** What the owner's site computes: hex HMAC-SHA256 of the user id, keyed with the whole secret text. */
export function visitorHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId, 'utf8').digest('hex');
}

/**
 * Encryption of a stored secret, `name` its associated data: app.ts makes it from the settings
 * module's key and AES-GCM functions (settings imports this module, so it is handed in).
 */
export interface SecretBox {
  seal(name: string, plaintext: string): string;
  /** throws when the value cannot be read (no key, another key, altered) */
  open(name: string, stored: string): string;
}

const unauthorizedVisitor = (detail: string) => new ApiError(401, detail, { 'WWW-Authenticate': 'Bearer' });

/**
 * Verified visitors (docs/API-NOTES.md "Verified visitors"): an agent's identity secret, with which
 * the owner's site vouches for its signed-in users: a hash of the user id for the chat, a short
 * JWT for reading the user's past conversations. The secret is kept encrypted with the server's
 * settings key (DATA_DIR/settings-key, as webhook secrets are), the agent id as associated data, so
 * a value copied to another agent's row does not decrypt there.
 */
export class IdentityService {
  private readonly box: SecretBox;
  private readonly db: Db;
  private readonly agents: AgentsService;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;

  constructor(deps: { db: Db; agents: AgentsService; box: SecretBox; clock: Clock; log: FastifyBaseLogger }) {
    this.db = deps.db;
    this.agents = deps.agents;
    this.clock = deps.clock;
    this.log = deps.log;
    this.box = deps.box;
  }

  /** A new secret for one of the caller's agents, shown only here; the one before stops at once. */
  rotate(user: AuthUser, chatbotId: string): { secret: string } {
    const agent = this.agents.get(user, chatbotId);
    const secret = newIdentitySecret();
    const row = { chatbot_id: agent.id, secret: this.seal(agent.id, secret), created_at: isoNow(this.clock) };
    this.db
      .insert(chatbotIdentity)
      .values(row)
      .onConflictDoUpdate({
        target: chatbotIdentity.chatbot_id,
        set: { secret: row.secret, created_at: row.created_at },
      })
      .run();
    return { secret };
  }

  status(user: AuthUser, chatbotId: string): IdentityStatus {
    const agent = this.agents.get(user, chatbotId);
    const row = this.row(agent.id);
    return { configured: row !== undefined, created_at: row?.created_at ?? null };
  }

  /** Verification off: every hash and token of the agent stops being accepted. */
  remove(user: AuthUser, chatbotId: string): void {
    const agent = this.agents.get(user, chatbotId);
    this.db.delete(chatbotIdentity).where(eq(chatbotIdentity.chatbot_id, agent.id)).run();
  }

  /**
   * The visitor the site vouched for, when `claimed.hash` is the HMAC of `claimed.id` with this
   * agent's secret; undefined for anything else (no secret, a wrong hash, another agent's secret):
   * the caller then treats the visitor as anonymous, never as an error.
   */
  verify(chatbotId: string, claimed: ClaimedUser | undefined): VisitorUser | undefined {
    if (!claimed) return undefined;
    const secret = this.secretOf(chatbotId);
    if (!secret) return undefined;
    const expected = Buffer.from(visitorHash(secret, claimed.id), 'utf8');
    const given = Buffer.from(claimed.hash.toLowerCase(), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const user: VisitorUser = { id: claimed.id };
    if (claimed.name !== undefined) user.name = claimed.name;
    if (claimed.email !== undefined) user.email = claimed.email;
    return user;
  }

  /**
   * The user id (`sub`) of a visitor token: HS256 signed with the agent's secret, with an `exp`
   * no more than 24 h ahead. 401 with the reason otherwise.
   */
  async tokenSubject(chatbotId: string, authorization: string | undefined): Promise<string> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) throw unauthorizedVisitor('A visitor token is needed: Authorization: Bearer <token>');
    const secret = this.secretOf(chatbotId);
    if (!secret) throw unauthorizedVisitor('This chatbot does not verify visitors (no identity secret)');
    const now = this.clock.now();
    let payload: { sub?: string; exp?: number };
    try {
      ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        currentDate: now,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorizedVisitor('The visitor token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed)
        throw unauthorizedVisitor(`The visitor token is refused: ${err.message} (it needs sub and exp)`);
      throw unauthorizedVisitor('The visitor token is invalid (not an HS256 JWT signed with this identity secret)');
    }
    if (payload.exp! > Math.floor(now.getTime() / 1000) + VISITOR_TOKEN_MAX_S)
      throw unauthorizedVisitor('The visitor token is refused: its exp is more than 24 hours ahead');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 200)
      throw unauthorizedVisitor('The visitor token is refused: sub must be the user id (1-200 characters)');
    return payload.sub;
  }

  private row(chatbotId: string) {
    return this.db.select().from(chatbotIdentity).where(eq(chatbotIdentity.chatbot_id, chatbotId)).get();
  }

  /** The agent's secret, or null when there is none or it cannot be read (settings key gone or replaced). */
  private secretOf(chatbotId: string): string | null {
    const row = this.row(chatbotId);
    if (!row) return null;
    try {
      return this.box.open(`chatbot-identity:${chatbotId}`, row.secret);
    } catch (err) {
      // a database restored without its settings-key file: nobody verifies until the owner rotates
      this.log.warn({ chatbotId, err: (err as Error).message }, 'identity secret unreadable');
      return null;
    }
  }

  private seal(chatbotId: string, secret: string): string {
    return this.box.seal(`chatbot-identity:${chatbotId}`, secret);
  }
}
