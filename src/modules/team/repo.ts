import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { conversations } from '../chat/tables.js';
import { auditLog, teamInvitations, type AuditRow, type TeamInvitationRow } from './tables.js';

export class TeamRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  insertInvitation(row: TeamInvitationRow): void {
    this.db.insert(teamInvitations).values(row).run();
  }

  findInvitation(tokenHash: string): TeamInvitationRow | undefined {
    return this.db.select().from(teamInvitations).where(eq(teamInvitations.token_hash, tokenHash)).get();
  }

  /** Invitations of the account still usable at `now` (they count against max_members). */
  countPendingInvitations(accountId: string, now: string): number {
    return this.db
      .select({ n: sql<number>`count(*)` })
      .from(teamInvitations)
      .where(
        and(
          eq(teamInvitations.account_id, accountId),
          isNull(teamInvitations.used_at),
          gt(teamInvitations.expires_at, now),
        ),
      )
      .get()!.n;
  }

  /** Voids the usable invitations of `email` to the account (a newer one replaces them). */
  voidInvitations(accountId: string, email: string, at: string): void {
    this.db
      .update(teamInvitations)
      .set({ used_at: at })
      .where(
        and(
          eq(teamInvitations.account_id, accountId),
          eq(teamInvitations.email, email),
          isNull(teamInvitations.used_at),
        ),
      )
      .run();
  }

  /** Uses one invitation: true only for the caller that turned it from usable to used. */
  useInvitation(id: string, at: string): boolean {
    return (
      this.db
        .update(teamInvitations)
        .set({ used_at: at })
        .where(and(eq(teamInvitations.id, id), isNull(teamInvitations.used_at), gt(teamInvitations.expires_at, at)))
        .run().changes === 1
    );
  }

  /** A removed teammate's conversations become unassigned (the inbox's `assigned_to`). */
  unassignAll(userId: string): void {
    this.db.update(conversations).set({ assigned_to: null }).where(eq(conversations.assigned_to, userId)).run();
  }

  insertAudit(row: Omit<AuditRow, 'id'>): void {
    this.db.insert(auditLog).values(row).run();
  }

  /**
   * Clears the URL parameters of the account's rows that named `value` as parameter `name` (an
   * object deleted, its erasure included): the log keeps who changed what kind of thing, and when.
   */
  forgetInAudit(accountId: string, name: string, value: string): void {
    this.db
      .update(auditLog)
      .set({ params: '{}' })
      .where(and(eq(auditLog.account_id, accountId), sql`json_extract(${auditLog.params}, ${`$.${name}`}) = ${value}`))
      .run();
  }

  listAudit(accountId: string): AuditRow[] {
    return this.db.select().from(auditLog).where(eq(auditLog.account_id, accountId)).orderBy(auditLog.id).all();
  }
}
