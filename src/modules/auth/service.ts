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
import { newId } from '../../platform/ids.js';
import { hashPassword, timingDummyHash, verifyPassword } from '../../platform/security/passwords.js';
import { createMailer, type Mailer } from '../../platform/mail/index.js';
import { LoginThrottle } from './login-throttle.js';
import { assertNewPassword } from './new-password.js';
import { PasswordResets } from './password-reset.js';
import type { AuthRepo, UserPatch } from './repo.js';
import { type ClientInfo, Sessions, type TokenResponse } from './sessions.js';
import type { UserRow } from './tables.js';

export type TeamRole = UserRow['team_role'];

/** The person behind a request: the user the token was issued to (a teammate or the owner). */
export interface Actor {
  id: string;
  email: string;
  name: string;
  /** the name visitors see on this person's replies: their `display_name`, else `name` */
  display_name: string;
  /** the actor's own server role; a teammate never gets the owner's `admin` */
  role: 'user' | 'admin';
  team_role: TeamRole;
  sessionId: string;
}

/**
 * Who is calling, attached to every authenticated request: the ACCOUNT (for a teammate, the
 * owner's id, plan and status), so every service scopes to the account by `id`; `actor` is the
 * person. `role` is the actor's own server role.
 */
export interface AuthUser {
  id: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended' | 'banned';
  plan_id: string;
  plan_expires_at: string | null;
  sessionId: string;
  actor: Actor;
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
 * Accounts: registration, login, the bearer token's user, the admin's changes, passwords. The
 * sessions behind the tokens are sessions.ts, the reset links password-reset.ts.
 */
export class AuthService {
  private readonly throttle: LoginThrottle;
  private readonly sessions: Sessions;
  private readonly resets: PasswordResets;

  private readonly repo: AuthRepo;
  private readonly config: AuthServiceDeps['config'];
  private readonly clock: Clock;
  private readonly writable: () => boolean;
  private readonly onWriteFailed: (what: string, err: unknown) => void;

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
    this.writable = writable;
    this.onWriteFailed = onWriteFailed;
    this.throttle = new LoginThrottle(clock);
    this.sessions = new Sessions({ repo, config, clock, writable, onWriteFailed });
    this.resets = new PasswordResets({
      repo,
      config,
      clock,
      mailer,
      replacePassword: (userId, passwordHash) => this.replacePassword(userId, passwordHash),
    });
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
    return this.sessions.start(user, client);
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
    return this.sessions.start(user, client);
  }

  /** Resolves a bearer token to its user, or throws 401 (bad/ended session) or 403 (suspended, banned). */
  async authenticate(token: string | undefined): Promise<AuthUser> {
    if (!token) throw unauthorized();
    const now = this.clock.now();
    const session = await this.sessions.resolve(token, now);
    const user = this.repo.findUserById(session.user_id);
    if (!user) throw unauthorized();
    assertUserMayAct(user.status);
    // a teammate acts inside the owner's account: its id, plan and standing
    const account = user.account_id ? this.repo.findUserById(user.account_id) : user;
    if (!account) throw unauthorized();
    assertUserMayAct(account.status);
    this.sessions.renew(session, now);
    return {
      id: account.id,
      role: user.role,
      status: account.status,
      plan_id: account.plan_id,
      plan_expires_at: account.plan_expires_at,
      sessionId: session.id,
      actor: {
        id: user.id,
        email: user.email,
        name: user.name,
        display_name: user.display_name ?? user.name,
        role: user.role,
        team_role: user.team_role,
        sessionId: session.id,
      },
    };
  }

  logout(actor: { sessionId: string }): void {
    this.sessions.logout(actor.sessionId);
  }

  /** A new session for `user` (a teammate who just joined: team module). */
  startSession(user: UserRow, client: ClientInfo): Promise<TokenResponse> {
    return this.sessions.start(user, client);
  }

  /** Ends every session of the user at once, those kept in memory included (a removed teammate). */
  endSessionsOf(userId: string): void {
    this.repo.deleteSessionsOfUser(userId);
    this.sessions.forgetUser(userId);
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
    caller: { id: string; sessionId: string },
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
    return this.resets.available;
  }

  /** A reset link was asked for: password-reset.ts `request` (the same answer whatever the e-mail; 429 past the per-address limit). */
  requestPasswordReset(email: string, client: ClientInfo, log: FastifyBaseLogger): void {
    this.resets.request(email, client, log);
  }

  /** Sets a new password with a reset link's token: password-reset.ts `confirm`. */
  async confirmPasswordReset(input: { token: string; new_password: string }): Promise<void> {
    await this.resets.confirm(input);
  }

  /**
   * Housekeeping: forget sessions that can no longer be used, and reset links a day past their
   * end. Sessions kept in memory are written first; while they cannot be, nothing is deleted (a
   * renewal not yet written would make a session in use look idle). Throws what the database did.
   */
  purgeExpiredSessions(): number {
    const now = this.clock.now();
    this.sessions.writeUnsaved(now);
    this.resets.purgeExpired(now);
    return this.sessions.deleteExpired(now);
  }

  /** New hash, sessions ended (all, or all but `keep`), unused reset links voided: one transaction. */
  private replacePassword(userId: string, passwordHash: string, keep?: string): number {
    const ended = this.repo.transaction(() => {
      this.repo.setPasswordHash(userId, passwordHash);
      this.repo.voidPasswordResets(userId, isoNow(this.clock));
      return this.repo.deleteSessionsOfUser(userId, keep);
    });
    return ended + this.sessions.forgetUser(userId, keep);
  }
}

function assertUserMayAct(status: UserRow['status']): void {
  if (status === 'suspended') throw forbidden('This account is suspended');
  if (status === 'banned') throw forbidden('This account is banned');
}
