import { and, eq } from 'drizzle-orm';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AuthUser } from '../auth/index.js';
import { savedReplies, type SavedReplyRow } from './tables.js';

export interface SavedReply {
  id: string;
  shortcut: string;
  content: string;
  created_at: string;
  updated_at: string;
}

const DUPLICATE = 'shortcut: another saved reply of this account already uses it';

/**
 * An account's saved replies (docs/API-NOTES.md "Inbox"): typing `/shortcut` in the admin's reply
 * box inserts the content. The shortcut is unique per account (409); another account's id is 404.
 */
export class SavedReplies {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  list(account: AuthUser): SavedReply[] {
    return this.db
      .select()
      .from(savedReplies)
      .where(eq(savedReplies.account_id, account.id))
      .orderBy(savedReplies.shortcut)
      .all()
      .map(view);
  }

  create(account: AuthUser, input: { shortcut: string; content: string }): SavedReply {
    return this.db.transaction(() => {
      if (this.byShortcut(account.id, input.shortcut)) throw conflict(DUPLICATE);
      const now = isoNow(this.clock);
      const row = { id: newId(), account_id: account.id, ...input, created_at: now, updated_at: now };
      this.db.insert(savedReplies).values(row).run();
      return view(row);
    });
  }

  update(account: AuthUser, id: string, input: { shortcut?: string; content?: string }): SavedReply {
    return this.db.transaction(() => {
      const row = this.owned(account, id);
      if (
        input.shortcut !== undefined &&
        input.shortcut !== row.shortcut &&
        this.byShortcut(account.id, input.shortcut)
      )
        throw conflict(DUPLICATE);
      const updated = this.db
        .update(savedReplies)
        .set({ ...input, updated_at: isoNow(this.clock) })
        .where(eq(savedReplies.id, row.id))
        .returning()
        .get()!;
      return view(updated);
    });
  }

  delete(account: AuthUser, id: string): void {
    const row = this.owned(account, id);
    this.db.delete(savedReplies).where(eq(savedReplies.id, row.id)).run();
  }

  private owned(account: AuthUser, id: string): SavedReplyRow {
    const row = this.db
      .select()
      .from(savedReplies)
      .where(and(eq(savedReplies.id, id), eq(savedReplies.account_id, account.id)))
      .get();
    if (!row) throw notFound('Saved reply');
    return row;
  }

  private byShortcut(accountId: string, shortcut: string): SavedReplyRow | undefined {
    return this.db
      .select()
      .from(savedReplies)
      .where(and(eq(savedReplies.account_id, accountId), eq(savedReplies.shortcut, shortcut)))
      .get();
  }
}

function view(r: SavedReplyRow): SavedReply {
  return { id: r.id, shortcut: r.shortcut, content: r.content, created_at: r.created_at, updated_at: r.updated_at };
}
