import { and, desc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { CachedRowsById } from '../../platform/db/row-cache.js';
import { passwordResets, sessions, users, type PasswordResetRow, type SessionRow, type UserRow } from './tables.js';

export type NewUser = typeof users.$inferInsert;
export type UserPatch = Partial<Pick<UserRow, 'role' | 'status' | 'plan_id' | 'plan_expires_at' | 'display_name'>>;

export class AuthRepo {
  // Read on every authenticated request (and per visitor request, for the agent owner's plan):
  // prepared once and cached by id; every write below forgets the row it touches.
  private readonly userCache: CachedRowsById<UserRow>;
  private readonly sessionById;

  private readonly onlineOfAccount;

  constructor(private readonly db: Db) {
    this.userCache = new CachedRowsById(db, users);
    // read on every widget load (public agent info): prepared once
    this.onlineOfAccount = db
      .select({ id: users.id })
      .from(users)
      .where(
        and(
          or(eq(users.id, sql.placeholder('account')), eq(users.account_id, sql.placeholder('account'))),
          eq(users.availability, 'online'),
          eq(users.status, 'active'),
        ),
      )
      .limit(1)
      .prepare();
    this.sessionById = db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sql.placeholder('id')))
      .prepare();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  countUsers(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(users).get()!.n;
  }

  countActiveAdmins(): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(users)
      .where(and(eq(users.role, 'admin'), eq(users.status, 'active')))
      .get()!.n;
  }

  findUserByEmail(email: string): UserRow | undefined {
    return this.db.select().from(users).where(eq(users.email, email)).get();
  }

  findUserById(id: string): Readonly<UserRow> | undefined {
    return this.userCache.get(id);
  }

  listUsers(): UserRow[] {
    return this.db.select().from(users).orderBy(desc(users.created_at), desc(users.id)).all();
  }

  insertUser(user: NewUser): UserRow {
    if (user.id) this.userCache.forget(user.id);
    return this.db.insert(users).values(user).returning().get();
  }

  /** Removes a user (a teammate); their sessions and reset links go with the row. */
  deleteUser(id: string): boolean {
    this.userCache.forget(id);
    return this.db.delete(users).where(eq(users.id, id)).run().changes === 1;
  }

  /** The account's teammates (not its owner), oldest first. */
  listMembers(accountId: string): UserRow[] {
    return this.db
      .select()
      .from(users)
      .where(eq(users.account_id, accountId))
      .orderBy(users.created_at, users.id)
      .all();
  }

  updateUser(id: string, patch: UserPatch): UserRow | undefined {
    if (Object.keys(patch).length === 0) return this.findUserById(id);
    this.userCache.forget(id);
    return this.db.update(users).set(patch).where(eq(users.id, id)).returning().get();
  }

  /** Whether the account's owner or one of its teammates is online (and not suspended). */
  anyoneOnline(accountId: string): boolean {
    return this.onlineOfAccount.get({ account: accountId }) !== undefined;
  }

  setAvailability(id: string, availability: UserRow['availability']): void {
    this.userCache.forget(id);
    this.db.update(users).set({ availability }).where(eq(users.id, id)).run();
  }

  setLastLogin(id: string, at: string): void {
    this.userCache.forget(id);
    this.db.update(users).set({ last_login: at }).where(eq(users.id, id)).run();
  }

  setPasswordHash(id: string, passwordHash: string): void {
    this.userCache.forget(id);
    this.db.update(users).set({ password_hash: passwordHash }).where(eq(users.id, id)).run();
  }

  insertSession(session: SessionRow): void {
    this.db.insert(sessions).values(session).run();
  }

  findSession(id: string): SessionRow | undefined {
    return this.sessionById.get({ id });
  }

  touchSession(id: string, at: string): void {
    this.db.update(sessions).set({ last_used_at: at }).where(eq(sessions.id, id)).run();
  }

  deleteSession(id: string): void {
    this.db.delete(sessions).where(eq(sessions.id, id)).run();
  }

  /** Ends every session of the account except `keep` (the caller's own, when it changed the password). */
  deleteSessionsOfUser(userId: string, keep?: string): number {
    const where =
      keep === undefined ? eq(sessions.user_id, userId) : and(eq(sessions.user_id, userId), ne(sessions.id, keep));
    return this.db.delete(sessions).where(where).run().changes;
  }

  /** Drops sessions past their absolute end or idle since before `idleBefore`. */
  deleteExpiredSessions(now: string, idleBefore: string): number {
    return this.db
      .delete(sessions)
      .where(or(lt(sessions.expires_at, now), lt(sessions.last_used_at, idleBefore)))
      .run().changes;
  }

  // --- password resets ---------------------------------------------------------------------------

  insertPasswordReset(row: PasswordResetRow): void {
    this.db.insert(passwordResets).values(row).run();
  }

  findPasswordReset(tokenHash: string): PasswordResetRow | undefined {
    return this.db.select().from(passwordResets).where(eq(passwordResets.token_hash, tokenHash)).get();
  }

  /** Reset links the account was sent since `since` (used, voided or not): the per-account cap. */
  countPasswordResetsSince(userId: string, since: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(passwordResets)
      .where(and(eq(passwordResets.user_id, userId), gt(passwordResets.created_at, since)))
      .get()!.n;
  }

  /** Voids every usable link of the account; returns how many. */
  voidPasswordResets(userId: string, at: string): number {
    return this.db
      .update(passwordResets)
      .set({ used_at: at })
      .where(and(eq(passwordResets.user_id, userId), isNull(passwordResets.used_at)))
      .run().changes;
  }

  /** Uses one link: true only for the caller that turned it from usable to used (a race has one winner). */
  usePasswordReset(id: string, at: string): boolean {
    return (
      this.db
        .update(passwordResets)
        .set({ used_at: at })
        .where(and(eq(passwordResets.id, id), isNull(passwordResets.used_at), gt(passwordResets.expires_at, at)))
        .run().changes === 1
    );
  }

  /** Forgets links that expired before `before`. */
  deletePasswordResetsExpiredBefore(before: string): number {
    return this.db.delete(passwordResets).where(lt(passwordResets.expires_at, before)).run().changes;
  }
}
