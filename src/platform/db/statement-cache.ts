import type Database from 'better-sqlite3';

/** Distinct statements kept; `IN (?, ?, ...)` lists of every length each count as one. */
const MAX_STATEMENTS = 500;

/**
 * The connection as drizzle should see it: `prepare` keeps the compiled statement of each SQL
 * text and hands it out again. drizzle prepares its SQL on every call (`db.select()...get()`),
 * and compiling costs more than running most of our queries: in the chat profile, preparing was
 * most of the time of the message transaction. Values are always bound parameters, so the SQL
 * text is the same from call to call.
 *
 * A statement can be shared safely because drizzle runs each one to completion synchronously
 * (all/get/run/values; it never iterates), and it is handed out with raw mode off, the state
 * drizzle expects before it decides whether to call `.raw()`. The raw connection, for code that
 * keeps a statement and sets its own modes (pluck), stays uncached: `Db.$client` is the raw one.
 */
export function withStatementCache(sqlite: Database.Database): Database.Database {
  const statements = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    let statement = statements.get(source);
    if (statement) {
      // most recently used last, so the bound drops the least recently used
      statements.delete(source);
    } else {
      statement = sqlite.prepare(source);
      if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    if (statement.reader) statement.raw(false);
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
