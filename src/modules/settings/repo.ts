import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { appSettings } from './tables.js';

export type SettingRow = typeof appSettings.$inferSelect;

/** The stored server settings' rows (values encrypted; service.ts reads and writes them). */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  all(): SettingRow[] {
    return this.db.select().from(appSettings).all();
  }

  /** Stores the setting, replacing the one stored under its key. */
  upsert(row: SettingRow): void {
    this.db
      .insert(appSettings)
      .values(row)
      .onConflictDoUpdate({
        target: appSettings.key,
        set: { value_encrypted: row.value_encrypted, updated_at: row.updated_at, updated_by: row.updated_by },
      })
      .run();
  }

  delete(key: string): void {
    this.db.delete(appSettings).where(eq(appSettings.key, key)).run();
  }
}
