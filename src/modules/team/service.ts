import { linkTokenHash, newLinkToken } from '../../platform/security/link-tokens.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import { badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { Mailer } from '../../platform/mail/index.js';
import { hashPassword } from '../../platform/security/passwords.js';
import type { AuthRepo, AuthService, AuthUser } from '../auth/index.js';
import { assertNewPassword } from '../auth/index.js';
import type { ClientInfo, TokenResponse } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import type { TeamRepo } from './repo.js';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
/** The one refusal of a join token that is unknown, used, voided or expired (400). */
export const INVITATION_INVALID = 'token: invalid, already used or expired';

export type InvitedRole = 'manager' | 'operator';

export interface Invitation {
  id: string;
  email: string;
  role: InvitedRole;
  expires_at: string;
  link: string;
}

export type Availability = 'online' | 'away';

export interface Member {
  user_id: string;
  email: string;
  name: string;
  /** the name visitors see on this person's replies */
  display_name: string;
  role: 'owner' | InvitedRole;
  /** whether visitors asking for a person may count on them now (docs/API-NOTES.md "Office hours and availability") */
  availability: Availability;
}

export interface TeamServiceDeps {
  repo: TeamRepo;
  users: AuthRepo;
  auth: AuthService;
  plans: PlanService;
  mailer: Mailer;
  config: Pick<Config, 'publicUrl'>;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** Teammates: invitations, joining, the member list, removal (docs/API-NOTES.md "Team"). */
export class TeamService {
  constructor(private readonly deps: TeamServiceDeps) {}

  invite(account: AuthUser, input: { email: string; role: InvitedRole }): Invitation {
    const { repo, users, plans, clock } = this.deps;
    const email = input.email.toLowerCase();
    const existing = users.findUserByEmail(email);
    if (existing) {
      throw conflict(
        existing.account_id === account.id || existing.id === account.id
          ? 'email: already a member of this team'
          : 'email: already has an account on this server (one account per e-mail address)',
      );
    }
    const now = clock.now();
    const { token, hash: tokenHash } = newLinkToken();
    const row = {
      id: newId(),
      account_id: account.id,
      email,
      role: input.role,
      token_hash: tokenHash,
      invited_by: account.actor.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      used_at: null,
    };
    repo.transaction(() => {
      // a newer invitation of the same address replaces the older: it does not count twice
      repo.voidInvitations(account.id, email, row.created_at);
      const current = users.listMembers(account.id).length + repo.countPendingInvitations(account.id, row.created_at);
      plans.assertCanAddMember(account, current);
      repo.insertInvitation(row);
    });
    const link = `${this.deps.config.publicUrl}/#/join?token=${token}`;
    this.mail(account, email, input.role, link);
    return { id: row.id, email, role: input.role, expires_at: row.expires_at, link };
  }

  /** Joins the account an invitation names: a new user with the invited team role, logged in. */
  async join(input: { token: string; name: string; password: string }, client: ClientInfo): Promise<TokenResponse> {
    const { repo, users, clock } = this.deps;
    const invitation = repo.findInvitation(linkTokenHash(input.token));
    const usable =
      invitation && invitation.used_at === null && Date.parse(invitation.expires_at) > clock.now().getTime();
    const account = invitation && usable ? users.findUserById(invitation.account_id) : undefined;
    if (!invitation || !account) throw badRequest(INVITATION_INVALID);
    // refused before the token is used: the link still works with a better password
    await assertNewPassword('password', input.password, invitation.email);
    const passwordHash = await hashPassword(input.password);
    const user = repo.transaction(() => {
      const now = isoNow(clock);
      // checked again after the hash: two uses of one token at once have one winner
      if (!repo.useInvitation(invitation.id, now)) throw badRequest(INVITATION_INVALID);
      if (users.findUserByEmail(invitation.email)) {
        throw conflict('email: already has an account on this server (one account per e-mail address)');
      }
      return users.insertUser({
        id: newId(),
        name: input.name,
        email: invitation.email,
        password_hash: passwordHash,
        role: 'user',
        status: 'active',
        plan_id: account.plan_id,
        plan_expires_at: null,
        created_at: now,
        last_login: now,
        account_id: account.id,
        team_role: invitation.role,
      });
    });
    return this.deps.auth.startSession(user, client);
  }

  /** The owner first, then the teammates, oldest first. */
  members(account: AuthUser): Member[] {
    const owner = this.deps.users.findUserById(account.id);
    const rows = [...(owner ? [owner] : []), ...this.deps.users.listMembers(account.id)];
    return rows.map((u) => ({
      user_id: u.id,
      email: u.email,
      name: u.name,
      display_name: u.display_name ?? u.name,
      role: u.account_id ? (u.team_role as InvitedRole) : 'owner',
      availability: u.availability,
    }));
  }

  /** The calling person's own availability (owner or teammate alike). */
  availability(person: { id: string }): { availability: Availability } {
    return { availability: this.deps.users.findUserById(person.id)?.availability ?? 'online' };
  }

  /** Sets the calling person's availability: away, visitors asking for a person are not kept waiting on them. */
  setAvailability(person: { id: string }, availability: Availability): { availability: Availability } {
    this.deps.users.setAvailability(person.id, availability);
    return { availability };
  }

  /** Whether anyone of the account (the owner or a teammate) is online. */
  anyoneOnline(accountId: string): boolean {
    return this.deps.users.anyoneOnline(accountId);
  }

  /** Removes a teammate: their sessions end at once. The owner: 409; anyone outside the account: 404. */
  removeMember(account: AuthUser, userId: string): void {
    const { users } = this.deps;
    if (userId === account.id) throw conflict('user_id: the owner cannot be removed from the team');
    const member = users.findUserById(userId);
    if (!member || member.account_id !== account.id) throw notFound('Member');
    users.transaction(() => {
      this.deps.auth.endSessionsOf(userId);
      this.deps.repo.unassignAll(userId);
      users.deleteUser(userId);
    });
  }

  /**
   * The caller's own display name, the name visitors see on their replies; empty or null goes back
   * to their `name`.
   */
  setDisplayName(account: AuthUser, displayName: string | null): Member {
    const { users } = this.deps;
    const value = displayName?.trim() || null;
    users.updateUser(account.actor.id, { display_name: value });
    return this.me(account);
  }

  /** The caller as a member of the team (the owner too). */
  me(account: AuthUser): Member {
    const me = this.members(account).find((m) => m.user_id === account.actor.id);
    if (!me) throw notFound('User');
    return me;
  }

  private mail(account: AuthUser, to: string, role: InvitedRole, link: string): void {
    const { mailer, log, config } = this.deps;
    if (!mailer.configured) return;
    const text = [
      `${account.actor.name} (${account.actor.email}) invites you to join their team on ${config.publicUrl} as ${role}.`,
      '',
      'To accept, open this link within 7 days and choose your name and password. It works once:',
      link,
      '',
      'If you did not expect this, ignore this message.',
    ].join('\n');
    mailer.send({ to, subject: 'You are invited to a team', text }).then(
      () => log.info({ accountId: account.id }, 'team invitation e-mail sent'),
      (err: unknown) =>
        log.warn(
          { accountId: account.id, err: err instanceof Error ? err.message : String(err) },
          'team invitation e-mail could not be sent',
        ),
    );
  }
}
