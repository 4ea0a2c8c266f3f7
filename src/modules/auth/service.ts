import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import {
  ApiError,
  badRequest,
  forbidden,
  notFound,
  tooManyRequests,
  unauthorized,
} from '../../platform/http/errors.js';
import { clientBlock } from '../../platform/http/client-address.js';
import { isDiskFull } from '../../platform/db/condition.js';
import { newId } from '../../platform/ids.js';
import {
  hashPassword,
  newPasswordRefusal,
  timingDummyHash,
  verifyPassword,
} from '../../platform/security/passwords.js';
import { createMailer, type Mailer } from '../../platform/mail/index.js';
import { TokenSigner } from '../../platform/security/tokens.js';
import { LoginThrottle } from './login-throttle.js';
import { WindowCounter } from './reset-throttle.js';
import type { AuthRepo, UserPatch } from './repo.js';
import type { SessionRow, UserRow } from './tables.js';

/** Who is calling, attached to every authenticated request. */
export interface AuthUser {
  id: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended' | 'banned';
  plan_id: string;
  plan_expires_at: string | null;
  sessionId: string;
}

export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

/** How long a reset link works. */
export const RESET_TTL_MS = 30 * 60 * 1000;
/** Reset e-mails one account may be sent in an hour; past it requests still answer 202, and send nothing. */
export const RESETS_PER_ACCOUNT_PER_HOUR = 3;
/** Reset requests one client address (an IPv6 /64) may make in an hour, whatever the e-mail; past it 429. */
export const RESET_REQUESTS_PER_ADDRESS_PER_HOUR = 10;
/** The one answer of POST /api/auth/password-reset, whether or not the account exists. */
export const RESET_REQUESTED = 'If an account exists for that address, a reset link has been sent.';
/** The one refusal of a reset token that is unknown, used, voided or expired. */
export const RESET_TOKEN_INVALID = 'token: invalid or expired';
/**
 * Sessions started or renewed while the database took no writes, kept in memory until it does:
 * beyond this many, a login on a full disk is refused with 507 like any other write.
 */
export const MAX_UNSAVED_SESSIONS = 1000;

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
}

/**
 * The one rule of REGISTRATION: why a new account is refused given how many exist, or null when
 * it is accepted. `first-only` is open only while the server has no account (its owner's).
 */
export function registrationRefusal(mode: Config['registration'], existingAccounts: number): string | null {
  if (mode === 'closed') return 'Registration is closed';
  if (mode === 'first-only' && existingAccounts > 0)
    return 'Registration is closed: this server already has its owner account';
  return null;
}

export interface AuthServiceDeps {
  repo: AuthRepo;
  config: Pick<
    Config,
    | 'jwtSecret'
    | 'sessionIdleTimeoutS'
    | 'sessionMaxAgeS'
    | 'registration'
    | 'defaultPlan'
    | 'firstAccountPlan'
    | 'plans'
    | 'smtp'
    | 'publicUrl'
  >;
  clock: Clock;
  /**
   * Sends reset links. They go straight out, not through the lead-alert outbox: a link is
   * worth 30 minutes, so retrying it across restarts buys little, and an outbox row would keep
   * the usable token in the database in clear (only its hash is stored here).
   */
  mailer?: Mailer;
  /**
   * Whether the database takes writes now: false while the disk is known to be full (app.ts:
   * the database condition). Session renewals and logins then stay in memory instead of writing.
   */
  writable?: () => boolean;
  /** a session write that failed and was kept in memory (app.ts: logged, and a full disk noted) */
  onWriteFailed?: (what: string, err: unknown) => void;
}

/**
 * A session whose latest state is not in the database yet: started (`inDb` false) or renewed
 * (`inDb` true) while the database took no writes.
 */
interface UnsavedSession {
  row: SessionRow;
  inDb: boolean;
  /** after a failed write while the disk seemed fine: not tried again before this time (ms) */
  retryAt: number;
}

export class AuthService {
  private readonly signer: TokenSigner;
  private readonly throttle: LoginThrottle;
  private readonly resetRequests: WindowCounter;
  /** renew last_used_at at most this often, so every request is not a write */
  private readonly touchEveryMs: number;

  private readonly repo: AuthRepo;
  private readonly config: AuthServiceDeps['config'];
  private readonly clock: Clock;
  private readonly mailer: Mailer;
  private readonly writable: () => boolean;
  private readonly onWriteFailed: (what: string, err: unknown) => void;
  /**
   * Issue 31: renewing a session was a write inside every authenticated read, so after about a
   * minute on a full disk every logged-in route (the status route with the disk-full banner
   * included) answered 507, and nobody could log in. Renewals and new sessions the database does
   * not take are kept here and written once it does (at that session's next request, or the
   * hourly sweep). A restart forgets them: those users log in again.
   */
  private readonly unsaved = new Map<string, UnsavedSession>();

  constructor({
    repo,
    config,
    clock,
    mailer = createMailer(config.smtp),
    writable = () => true,
    onWriteFailed = () => undefined,
  }: AuthServiceDeps) {
    this.repo = repo;
    this.config = config;
    this.clock = clock;
    this.mailer = mailer;
    this.writable = writable;
    this.onWriteFailed = onWriteFailed;
    this.signer = new TokenSigner(config.jwtSecret);
    this.throttle = new LoginThrottle(clock);
    this.resetRequests = new WindowCounter(clock, RESET_REQUESTS_PER_ADDRESS_PER_HOUR, 3600);
    this.touchEveryMs = Math.min(60_000, (config.sessionIdleTimeoutS * 1000) / 20);
  }

  /** Whether sign-up would accept a new account now (GET /api/auth/registration shows it on the login page). */
  registrationOpen(): boolean {
    return registrationRefusal(this.config.registration, this.repo.countUsers()) === null;
  }

  /** Whether any account exists (until one does, the admin UI's first screen creates the owner's). */
  hasAccounts(): boolean {
    return this.repo.countUsers() > 0;
  }

  async register(input: { name: string; email: string; password: string }, client: ClientInfo): Promise<TokenResponse> {
    // refused before the password is hashed when no count could change the answer
    const refusedAnyway = registrationRefusal(this.config.registration, 0);
    if (refusedAnyway) throw forbidden(refusedAnyway);
    const email = input.email.toLowerCase();
    await assertNewPassword('password', input.password, email);
    const passwordHash = await hashPassword(input.password);
    const now = isoNow(this.clock);
    // Count, check and insert in one transaction: two first registrations cannot both win.
    const user = this.repo.transaction(() => {
      const existing = this.repo.countUsers();
      const refused = registrationRefusal(this.config.registration, existing);
      if (refused) throw forbidden(refused);
      if (this.repo.findUserByEmail(email)) throw badRequest('email: already registered');
      return this.repo.insertUser({
        id: newId(),
        name: input.name,
        email,
        password_hash: passwordHash,
        role: existing === 0 ? 'admin' : 'user',
        status: 'active',
        // the first account is the server's owner: not held to the plan resold to others (FIRST_ACCOUNT_PLAN)
        plan_id: existing === 0 ? this.config.firstAccountPlan : this.config.defaultPlan,
        plan_expires_at: null,
        created_at: now,
        last_login: now,
      });
    });
    return this.startSession(user, client);
  }

  async login(input: { email: string; password: string }, client: ClientInfo): Promise<TokenResponse> {
    const email = input.email.toLowerCase();
    // counts this attempt as a failure before verifying, so parallel guesses cannot outrun the limit
    const wait = this.throttle.begin(client.ip, email);
    if (wait > 0) throw tooManyRequests('Too many failed login attempts; try again later', wait);

    const user = this.repo.findUserByEmail(email);
    const ok = await verifyPassword(user?.password_hash ?? (await timingDummyHash()), input.password);
    if (!user || !ok) {
      throw new ApiError(401, 'Incorrect email or password', { 'WWW-Authenticate': 'Bearer' });
    }
    this.throttle.recordSuccess(client.ip, email);
    assertUserMayAct(user.status);
    // a record, not what the login needs: skipped while the database takes no writes
    if (this.writable()) {
      try {
        this.repo.setLastLogin(user.id, isoNow(this.clock));
      } catch (err) {
        this.onWriteFailed('recording the time of a login', err);
      }
    }
    return this.startSession(user, client);
  }

  /** Resolves a bearer token to its user, or throws 401 (bad/ended session) or 403 (suspended, banned). */
  async authenticate(token: string | undefined): Promise<AuthUser> {
    if (!token) throw unauthorized();
    const now = this.clock.now();
    const claims = await this.signer.verify(token, now);
    if (!claims) throw unauthorized();
    const session = this.findSession(claims.sessionId);
    if (!session || session.user_id !== claims.userId) throw unauthorized();
    const lastUsed = Date.parse(session.last_used_at);
    if (
      Date.parse(session.expires_at) <= now.getTime() ||
      lastUsed + this.config.sessionIdleTimeoutS * 1000 <= now.getTime()
    ) {
      this.endSession(session.id);
      throw unauthorized();
    }
    const user = this.repo.findUserById(claims.userId);
    if (!user) throw unauthorized();
    assertUserMayAct(user.status);
    // Renewal: never a reason for a read to fail (kept in memory when the database takes no writes)
    const pending = this.unsaved.get(session.id);
    if (now.getTime() - lastUsed >= this.touchEveryMs) {
      this.saveSession({ ...session, last_used_at: now.toISOString() }, pending?.inDb ?? true, now.getTime());
    } else if (pending && now.getTime() >= pending.retryAt) {
      this.saveSession(session, pending.inDb, now.getTime());
    }
    return {
      id: user.id,
      role: user.role,
      status: user.status,
      plan_id: user.plan_id,
      plan_expires_at: user.plan_expires_at,
      sessionId: session.id,
    };
  }

  logout(user: AuthUser): void {
    // a full disk refuses this like any write (507): the session then stays, as it says
    this.repo.deleteSession(user.sessionId);
    this.unsaved.delete(user.sessionId);
  }

  getUser(id: string): UserRow {
    const user = this.repo.findUserById(id);
    if (!user) throw notFound('User');
    return user;
  }

  listUsers(): UserRow[] {
    return this.repo.listUsers();
  }

  /** Admin changes to role, status, plan. The last active admin cannot demote or disable themselves out of the system. */
  updateUser(id: string, patch: UserPatch): UserRow {
    if (patch.plan_id !== undefined && !Object.hasOwn(this.config.plans, patch.plan_id)) {
      throw badRequest(
        `plan_id: unknown plan ${JSON.stringify(patch.plan_id)} (plans: ${Object.keys(this.config.plans).join(', ')})`,
      );
    }
    return this.repo.transaction(() => {
      const user = this.getUser(id);
      const losesAdmin =
        user.role === 'admin' &&
        user.status === 'active' &&
        ((patch.role !== undefined && patch.role !== 'admin') ||
          (patch.status !== undefined && patch.status !== 'active'));
      if (losesAdmin && this.repo.countActiveAdmins() <= 1) {
        throw badRequest('role: the last active admin cannot be demoted, suspended or banned');
      }
      return this.repo.updateUser(id, patch)!;
    });
  }

  /**
   * The signed-in user changes their password: the current one is required (a wrong one is 400,
   * not 401, so the client stays logged in; it counts as a failed login for the login throttle,
   * so a stolen token cannot be used to guess the password faster than the login form allows).
   * Every other session of the account ends, and unused reset links are voided; the caller's
   * own session stays. Returns how many sessions ended.
   */
  async changePassword(
    caller: AuthUser,
    input: { current_password: string; new_password: string },
    client: ClientInfo,
  ): Promise<number> {
    const user = this.getUser(caller.id);
    const wait = this.throttle.begin(client.ip, user.email);
    if (wait > 0) throw tooManyRequests('Too many wrong passwords; try again later', wait);
    if (!(await verifyPassword(user.password_hash, input.current_password)))
      throw badRequest('current_password: is not correct');
    this.throttle.recordSuccess(client.ip, user.email);
    await assertNewPassword('new_password', input.new_password, user.email);
    return this.replacePassword(user.id, await hashPassword(input.new_password), caller.sessionId);
  }

  /** The operator's reset (CLI): sets the password and ends every session of the account. */
  async setPassword(userId: string, newPassword: string): Promise<number> {
    const user = this.getUser(userId);
    await assertNewPassword('password', newPassword, user.email);
    return this.replacePassword(userId, await hashPassword(newPassword));
  }

  /** Whether reset links can be sent (SMTP_URL is set); the login page shows "Forgot password?" only then. */
  get passwordResetAvailable(): boolean {
    return this.mailer.configured;
  }

  /**
   * A reset link was asked for. The answer is the same whatever the e-mail (no account
   * enumeration), and so is its timing: only the per-address limit is checked here; looking the
   * account up, storing the token and sending the e-mail happen after the answer has gone out.
   * Throws 429 past the per-address limit.
   */
  requestPasswordReset(email: string, client: ClientInfo, log: FastifyBaseLogger): void {
    const wait = this.resetRequests.hit(clientBlock(client.ip));
    if (wait > 0) throw tooManyRequests('Too many password reset requests from this address; try again later', wait);
    if (!this.mailer.configured) return;
    const address = email.toLowerCase();
    setImmediate(() => {
      try {
        this.issuePasswordReset(address, log);
      } catch (err) {
        log.error({ err }, 'password reset request failed');
      }
    });
  }

  /**
   * Stores a new token for the account (voiding its older ones) and sends the link, unless the
   * account does not exist, is not active, or was sent RESETS_PER_ACCOUNT_PER_HOUR links in the
   * last hour. The token appears only in the e-mail: never in the database or the log.
   */
  private issuePasswordReset(email: string, log: FastifyBaseLogger): void {
    const user = this.repo.findUserByEmail(email);
    if (user?.status !== 'active') return;
    const now = this.clock.now();
    const token = randomBytes(32).toString('base64url');
    const issued = this.repo.transaction(() => {
      const hourAgo = new Date(now.getTime() - 3600_000).toISOString();
      if (this.repo.countPasswordResetsSince(user.id, hourAgo) >= RESETS_PER_ACCOUNT_PER_HOUR) return false;
      this.repo.voidPasswordResets(user.id, now.toISOString());
      this.repo.insertPasswordReset({
        id: newId(),
        user_id: user.id,
        token_hash: hashToken(token),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + RESET_TTL_MS).toISOString(),
        used_at: null,
      });
      return true;
    });
    if (!issued) {
      log.warn({ userId: user.id }, 'password reset e-mail not sent: the account reached its hourly limit');
      return;
    }
    // the fragment never reaches a server: the token stays out of access logs and Referer headers
    const link = `${this.config.publicUrl}/#/reset-password?token=${token}`;
    const text = [
      `Someone asked to reset the password of the account ${user.email} on ${this.config.publicUrl}.`,
      '',
      `To choose a new password, open this link within 30 minutes. It works once:`,
      link,
      '',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n');
    this.mailer.send({ to: user.email, subject: 'Reset your password', text }).then(
      () => log.info({ userId: user.id }, 'password reset e-mail sent'),
      (err: unknown) =>
        log.warn(
          { userId: user.id, err: err instanceof Error ? err.message : String(err) },
          'password reset e-mail could not be sent',
        ),
    );
  }

  /**
   * Sets a new password with a reset link's token: 400 `token: invalid or expired` for a token
   * unknown, used, voided by a newer one, or past its 30 minutes. Every session of the account ends.
   */
  async confirmPasswordReset(input: { token: string; new_password: string }): Promise<void> {
    const row = this.repo.findPasswordReset(hashToken(input.token));
    const valid = () => row && row.used_at === null && Date.parse(row.expires_at) > this.clock.now().getTime();
    const user = row && valid() ? this.repo.findUserById(row.user_id) : undefined;
    if (!row || !user) throw badRequest(RESET_TOKEN_INVALID);
    // refused before the token is used: the link still works for a better password
    await assertNewPassword('new_password', input.new_password, user.email);
    const passwordHash = await hashPassword(input.new_password);
    this.repo.transaction(() => {
      // checked again after the hash: two uses of one token at once have one winner
      if (!this.repo.usePasswordReset(row.id, isoNow(this.clock))) throw badRequest(RESET_TOKEN_INVALID);
      this.replacePassword(row.user_id, passwordHash);
    });
  }

  /**
   * Housekeeping: forget sessions that can no longer be used, and reset links a day past their
   * end. Sessions kept in memory are written first; while they cannot be, nothing is deleted (a
   * renewal not yet written would make a session in use look idle). Throws what the database did.
   */
  purgeExpiredSessions(): number {
    const now = this.clock.now();
    const idleBefore = new Date(now.getTime() - this.config.sessionIdleTimeoutS * 1000).toISOString();
    for (const [id, { row }] of this.unsaved) {
      if (row.expires_at <= now.toISOString() || row.last_used_at < idleBefore) this.unsaved.delete(id);
    }
    this.repo.transaction(() => {
      for (const { row, inDb } of this.unsaved.values()) {
        if (inDb) this.repo.touchSession(row.id, row.last_used_at);
        else this.repo.insertSession(row);
      }
    });
    this.unsaved.clear();
    this.repo.deletePasswordResetsExpiredBefore(new Date(now.getTime() - 86400_000).toISOString());
    return this.repo.deleteExpiredSessions(now.toISOString(), idleBefore);
  }

  /** New hash, sessions ended (all, or all but `keep`), unused reset links voided: one transaction. */
  private replacePassword(userId: string, passwordHash: string, keep?: string): number {
    const ended = this.repo.transaction(() => {
      this.repo.setPasswordHash(userId, passwordHash);
      this.repo.voidPasswordResets(userId, isoNow(this.clock));
      return this.repo.deleteSessionsOfUser(userId, keep);
    });
    let endedInMemory = 0;
    for (const [id, { row, inDb }] of this.unsaved) {
      if (row.user_id !== userId || id === keep) continue;
      this.unsaved.delete(id);
      if (!inDb) endedInMemory++;
    }
    return ended + endedInMemory;
  }

  private async startSession(user: UserRow, client: ClientInfo): Promise<TokenResponse> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.config.sessionMaxAgeS * 1000);
    const sessionId = newId();
    const row: SessionRow = {
      id: sessionId,
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expires.toISOString(),
      last_used_at: now.toISOString(),
      created_ip: client.ip,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
    };
    // On a full disk the owner can still log in and see why nothing saves: the session is kept in
    // memory and written once the disk has room. Past MAX_UNSAVED_SESSIONS the write is tried and
    // its failure answered (507).
    if (this.writable() || this.unsaved.size >= MAX_UNSAVED_SESSIONS) {
      try {
        this.repo.insertSession(row);
      } catch (err) {
        if (!isDiskFull(err) || this.unsaved.size >= MAX_UNSAVED_SESSIONS) throw err;
        this.onWriteFailed('saving a new session', err);
        this.unsaved.set(sessionId, { row, inDb: false, retryAt: now.getTime() });
      }
    } else {
      this.unsaved.set(sessionId, { row, inDb: false, retryAt: now.getTime() });
    }
    const access_token = await this.signer.sign({ userId: user.id, sessionId }, now, expires);
    return { access_token, token_type: 'bearer' };
  }

  /** The session as the database has it, with what is kept in memory on top. */
  private findSession(id: string): SessionRow | undefined {
    const pending = this.unsaved.get(id);
    const stored = this.repo.findSession(id);
    if (!pending) return stored;
    if (!pending.inDb) return pending.row;
    if (!stored) {
      // ended meanwhile (an account removed, its sessions with it)
      this.unsaved.delete(id);
      return undefined;
    }
    return pending.row.last_used_at > stored.last_used_at
      ? { ...stored, last_used_at: pending.row.last_used_at }
      : stored;
  }

  /** Writes the session's state, or keeps it in memory while the database takes no writes. */
  private saveSession(row: SessionRow, inDb: boolean, nowMs: number): void {
    if (!this.writable()) {
      // the disk is known to be full: not even tried; tried at the first request once it is not
      this.unsaved.set(row.id, { row, inDb, retryAt: nowMs });
      return;
    }
    try {
      if (inDb) this.repo.touchSession(row.id, row.last_used_at);
      else this.repo.insertSession(row);
      this.unsaved.delete(row.id);
    } catch (err) {
      // a full disk is waited out by `writable`; anything else is not tried at every request
      this.unsaved.set(row.id, { row, inDb, retryAt: isDiskFull(err) ? nowMs : nowMs + this.touchEveryMs });
      this.onWriteFailed('renewing a session', err);
    }
  }

  /** A session past its end: forgotten; its row goes now, or with the sweep if it cannot now. */
  private endSession(id: string): void {
    const pending = this.unsaved.get(id);
    this.unsaved.delete(id);
    if (pending && !pending.inDb) return;
    try {
      this.repo.deleteSession(id);
    } catch (err) {
      this.onWriteFailed('removing an ended session', err);
    }
  }
}

/** 400 naming `field` for a commonly used password or the account's own e-mail (newPasswordRefusal). */
async function assertNewPassword(field: string, password: string, email: string): Promise<void> {
  const refusal = await newPasswordRefusal(field, password, email);
  if (refusal) throw badRequest(refusal);
}

function assertUserMayAct(status: UserRow['status']): void {
  if (status === 'suspended') throw forbidden('This account is suspended');
  if (status === 'banned') throw forbidden('This account is banned');
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
