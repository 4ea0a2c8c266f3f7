import { type AnySQLiteColumn, text } from 'drizzle-orm/sqlite-core';

/**
 * A row's owner: a required id of the row it belongs to, deleted with it (ON DELETE CASCADE).
 * Kept free of the database driver: drizzle-kit loads the tables files on their own.
 */
export function ownerId(name: string, owner: () => AnySQLiteColumn) {
  return text(name).notNull().references(owner, { onDelete: 'cascade' });
}
