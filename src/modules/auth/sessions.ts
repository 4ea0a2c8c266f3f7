import type { Config } from '../../config/index.js';
import type { Clock } from '../../platform/clock.js';
import { isDiskFull } from '../../platform/db/condition.js';
import { unauthorized } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { TokenSigner } from '../../platform/security/tokens.js';
import type { AuthRepo } from './repo.js';
import type { SessionRow, UserRow } from './tables.js';

/**
 * Sessions started or renewed while the database took no writes, kept in memory until it does:
 * beyond this many, a login on a full disk is refused with 507 like any other write.
 */
export const MAX_UNSAVED_SESSIONS = 1000;

export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
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

export interface SessionsDeps {
  repo: AuthRepo;
  config: Pick<Config, 'jwtSecret' | 'sessionIdleTimeoutS' | 'sessionMaxAgeS'>;
  clock: Clock;
  /** whether the database takes writes now (AuthServiceDeps `writable`) */
  writable: () => boolean;
  /** a session write that failed and was kept in memory */
  onWriteFailed: (what: string, err: unknown) => void;
}

/**
 * Sessions: the signed token, the row behind it, its renewal, and the rows the database did not
 * take yet (a full disk) kept in memory until it does.
 */
export class Sessions {
  private readonly signer: TokenSigner;
  /** renew last_used_at at most this often, so every request is not a write */
  private readonly touchEveryMs: number;
  /**
   * Issue 31: renewing a session was a write inside every authenticated read, so after about a
   * minute on a full disk every logged-in route (the status route with the disk-full banner
   * included) answered 507, and nobody could log in. Renewals and new sessions the database does
   * not take are kept here and written once it does (at that session's next request, or the
   * hourly sweep). A restart forgets them: those users log in again.
   */
  private readonly unsaved = new Map<string, UnsavedSession>();

  constructor(private readonly deps: SessionsDeps) {
    const { config } = deps;
    this.signer = new TokenSigner(config.jwtSecret);
    this.touchEveryMs = Math.min(60_000, (config.sessionIdleTimeoutS * 1000) / 20);
  }

  async start(user: UserRow, client: ClientInfo): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    const expires = new Date(now.getTime() + this.deps.config.sessionMaxAgeS * 1000);
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
    if (this.deps.writable() || this.unsaved.size >= MAX_UNSAVED_SESSIONS) {
      try {
        this.deps.repo.insertSession(row);
      } catch (err) {
        if (!isDiskFull(err) || this.unsaved.size >= MAX_UNSAVED_SESSIONS) throw err;
        this.deps.onWriteFailed('saving a new session', err);
        this.unsaved.set(sessionId, { row, inDb: false, retryAt: now.getTime() });
      }
    } else {
      this.unsaved.set(sessionId, { row, inDb: false, retryAt: now.getTime() });
    }
    const access_token = await this.signer.sign({ userId: user.id, sessionId }, now, expires);
    return { access_token, token_type: 'bearer' };
  }

  /** The live session a bearer token names, or 401 (bad token, unknown, past its end or idle: ended). */
  async resolve(token: string, now: Date): Promise<SessionRow> {
    const claims = await this.signer.verify(token, now);
    if (!claims) throw unauthorized();
    const session = this.find(claims.sessionId);
    if (!session || session.user_id !== claims.userId) throw unauthorized();
    const lastUsed = Date.parse(session.last_used_at);
    if (
      Date.parse(session.expires_at) <= now.getTime() ||
      lastUsed + this.deps.config.sessionIdleTimeoutS * 1000 <= now.getTime()
    ) {
      this.end(session.id);
      throw unauthorized();
    }
    return session;
  }

  /** Renewal: never a reason for a read to fail (kept in memory when the database takes no writes) */
  renew(session: SessionRow, now: Date): void {
    const lastUsed = Date.parse(session.last_used_at);
    const pending = this.unsaved.get(session.id);
    if (now.getTime() - lastUsed >= this.touchEveryMs) {
      this.save({ ...session, last_used_at: now.toISOString() }, pending?.inDb ?? true, now.getTime());
    } else if (pending && now.getTime() >= pending.retryAt) {
      this.save(session, pending.inDb, now.getTime());
    }
  }

  logout(id: string): void {
    // a full disk refuses this like any write (507): the session then stays, as it says
    this.deps.repo.deleteSession(id);
    this.unsaved.delete(id);
  }

  /**
   * Forgets the account's sessions kept in memory (all, or all but `keep`), once their rows have
   * been deleted; returns how many of them were never written.
   */
  forgetUser(userId: string, keep?: string): number {
    let endedInMemory = 0;
    for (const [id, { row, inDb }] of this.unsaved) {
      if (row.user_id !== userId || id === keep) continue;
      this.unsaved.delete(id);
      if (!inDb) endedInMemory++;
    }
    return endedInMemory;
  }

  /**
   * Housekeeping, first half: the sessions kept in memory are written (those that can no longer
   * be used forgotten). Throws what the database did; nothing should be deleted then (a renewal
   * not yet written would make a session in use look idle).
   */
  writeUnsaved(now: Date): void {
    const idleBefore = this.idleBefore(now);
    for (const [id, { row }] of this.unsaved) {
      if (row.expires_at <= now.toISOString() || row.last_used_at < idleBefore) this.unsaved.delete(id);
    }
    this.deps.repo.transaction(() => {
      for (const { row, inDb } of this.unsaved.values()) {
        if (inDb) this.deps.repo.touchSession(row.id, row.last_used_at);
        else this.deps.repo.insertSession(row);
      }
    });
    this.unsaved.clear();
  }

  /** Housekeeping, second half: the rows of sessions that can no longer be used; returns how many. */
  deleteExpired(now: Date): number {
    return this.deps.repo.deleteExpiredSessions(now.toISOString(), this.idleBefore(now));
  }

  private idleBefore(now: Date): string {
    return new Date(now.getTime() - this.deps.config.sessionIdleTimeoutS * 1000).toISOString();
  }

  /** The session as the database has it, with what is kept in memory on top. */
  private find(id: string): SessionRow | undefined {
    const pending = this.unsaved.get(id);
    const stored = this.deps.repo.findSession(id);
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
  private save(row: SessionRow, inDb: boolean, nowMs: number): void {
    if (!this.deps.writable()) {
      // the disk is known to be full: not even tried; tried at the first request once it is not
      this.unsaved.set(row.id, { row, inDb, retryAt: nowMs });
      return;
    }
    try {
      if (inDb) this.deps.repo.touchSession(row.id, row.last_used_at);
      else this.deps.repo.insertSession(row);
      this.unsaved.delete(row.id);
    } catch (err) {
      // a full disk is waited out by `writable`; anything else is not tried at every request
      this.unsaved.set(row.id, { row, inDb, retryAt: isDiskFull(err) ? nowMs : nowMs + this.touchEveryMs });
      this.deps.onWriteFailed('renewing a session', err);
    }
  }

  /** A session past its end: forgotten; its row goes now, or with the sweep if it cannot now. */
  private end(id: string): void {
    const pending = this.unsaved.get(id);
    this.unsaved.delete(id);
    if (pending && !pending.inDb) return;
    try {
      this.deps.repo.deleteSession(id);
    } catch (err) {
      this.deps.onWriteFailed('removing an ended session', err);
    }
  }
}
