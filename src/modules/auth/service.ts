import type { Config } from '../../config/index.js';
import { type Clock } from '../../platform/clock.js';
import { ApiError, badRequest, forbidden, notFound, tooManyRequests, unauthorized } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { hashPassword, timingDummyHash, verifyPassword } from '../../platform/security/passwords.js';
import { TokenSigner } from '../../platform/security/tokens.js';
import { LoginThrottle } from './login-throttle.js';
import { AuthRepo, type UserPatch } from './repo.js';
import type { UserRow } from './tables.js';

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

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
}

export class AuthService {
  private readonly signer: TokenSigner;
  private readonly throttle: LoginThrottle;
  /** renew last_used_at at most this often, so every request is not a write */
  private readonly touchEveryMs: number;

  constructor(
    private readonly repo: AuthRepo,
    private readonly config: Pick<Config, 'jwtSecret' | 'sessionIdleTimeoutS' | 'sessionMaxAgeS' | 'registration' | 'defaultPlan' | 'plans'>,
    private readonly clock: Clock,
  ) {
    this.signer = new TokenSigner(config.jwtSecret);
    this.throttle = new LoginThrottle(clock);
    this.touchEveryMs = Math.min(60_000, (config.sessionIdleTimeoutS * 1000) / 20);
  }

  async register(input: { name: string; email: string; password: string }, client: ClientInfo): Promise<TokenResponse> {
    if (this.config.registration === 'closed') throw forbidden('Registration is closed');
    const email = input.email.toLowerCase();
    const passwordHash = await hashPassword(input.password);
    const now = this.clock.now().toISOString();
    // Count, check and insert in one transaction: two first registrations cannot both win.
    const user = this.repo.transaction(() => {
      const existing = this.repo.countUsers();
      if (this.config.registration === 'first-only' && existing > 0) {
        throw forbidden('Registration is closed: this server already has its owner account');
      }
      if (this.repo.findUserByEmail(email)) throw badRequest('email: already registered');
      return this.repo.insertUser({
        id: newId(),
        name: input.name,
        email,
        password_hash: passwordHash,
        role: existing === 0 ? 'admin' : 'user',
        status: 'active',
        plan_id: this.config.defaultPlan,
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
    this.repo.setLastLogin(user.id, this.clock.now().toISOString());
    return this.startSession(user, client);
  }

  /** Resolves a bearer token to its user, or throws 401 (bad/ended session) or 403 (suspended, banned). */
  async authenticate(token: string | undefined): Promise<AuthUser> {
    if (!token) throw unauthorized();
    const now = this.clock.now();
    const claims = await this.signer.verify(token, now);
    if (!claims) throw unauthorized();
    const session = this.repo.findSession(claims.sessionId);
    if (!session || session.user_id !== claims.userId) throw unauthorized();
    const lastUsed = Date.parse(session.last_used_at);
    if (Date.parse(session.expires_at) <= now.getTime() || lastUsed + this.config.sessionIdleTimeoutS * 1000 <= now.getTime()) {
      this.repo.deleteSession(session.id);
      throw unauthorized();
    }
    const user = this.repo.findUserById(claims.userId);
    if (!user) throw unauthorized();
    assertUserMayAct(user.status);
    if (now.getTime() - lastUsed >= this.touchEveryMs) this.repo.touchSession(session.id, now.toISOString());
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
    this.repo.deleteSession(user.sessionId);
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
      throw badRequest(`plan_id: unknown plan ${JSON.stringify(patch.plan_id)} (plans: ${Object.keys(this.config.plans).join(', ')})`);
    }
    return this.repo.transaction(() => {
      const user = this.getUser(id);
      const losesAdmin =
        user.role === 'admin' && user.status === 'active' &&
        ((patch.role !== undefined && patch.role !== 'admin') || (patch.status !== undefined && patch.status !== 'active'));
      if (losesAdmin && this.repo.countActiveAdmins() <= 1) {
        throw badRequest('role: the last active admin cannot be demoted, suspended or banned');
      }
      return this.repo.updateUser(id, patch)!;
    });
  }

  /** Housekeeping: forget sessions that can no longer be used. */
  purgeExpiredSessions(): number {
    const now = this.clock.now();
    const idleBefore = new Date(now.getTime() - this.config.sessionIdleTimeoutS * 1000).toISOString();
    return this.repo.deleteExpiredSessions(now.toISOString(), idleBefore);
  }

  private async startSession(user: UserRow, client: ClientInfo): Promise<TokenResponse> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.config.sessionMaxAgeS * 1000);
    const sessionId = newId();
    this.repo.insertSession({
      id: sessionId,
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expires.toISOString(),
      last_used_at: now.toISOString(),
      created_ip: client.ip,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
    });
    const access_token = await this.signer.sign({ userId: user.id, sessionId }, now, expires);
    return { access_token, token_type: 'bearer' };
  }
}

function assertUserMayAct(status: UserRow['status']): void {
  if (status === 'suspended') throw forbidden('This account is suspended');
  if (status === 'banned') throw forbidden('This account is banned');
}
