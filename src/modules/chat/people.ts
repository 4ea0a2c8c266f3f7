import type { AuthRepo, AuthUser } from '../auth/index.js';
import type { ConversationRow } from './tables.js';
import { type HandoffState, handoffState } from './handoff-state.js';

/** Who a conversation is assigned to, as the team's routes give it. */
export interface Assignee {
  user_id: string;
  name: string;
}

/** The handoff state with the assignment: what the team's routes answer (never the visitor's stream). */
export type TeamHandoffState = HandoffState & { assigned_to: Assignee | null };

/** The people of an account (its owner and teammates), read from the auth module's users. */
export class People {
  constructor(private readonly users: AuthRepo) {}

  /** The user if they are the account's owner or one of its teammates; undefined otherwise (unknown too). */
  inAccount(account: AuthUser, userId: string): { id: string; name: string } | undefined {
    const u = this.users.findUserById(userId);
    return u && (u.id === account.id || u.account_id === account.id) ? u : undefined;
  }

  assignee(userId: string | null): Assignee | null {
    if (!userId) return null;
    const u = this.users.findUserById(userId);
    return u ? { user_id: u.id, name: u.name } : null;
  }

  teamState(c: ConversationRow): TeamHandoffState {
    return { ...handoffState(c), assigned_to: this.assignee(c.assigned_to) };
  }
}
