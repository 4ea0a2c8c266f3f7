import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { loadSqliteVec, openSqlite } from '../../platform/db/index.js';

/**
 * Backups of the one SQLite file, and restores. A backup is a self-contained SQLite file
 * (rollback-journal mode, no -wal beside it), written to a temp file next to its target, verified
 * with integrity_check, fsynced and only then renamed into place: a backup file that exists is
 * complete. The database's own -wal/-shm never need copying.
 */

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
  ms: number;
}

/**
 * backups/chat-agent-20260301T120000Z.db (made by `chat-agent backup`) or
 * chat-agent-auto-20260301T120000Z.db (made by the schedule): names sort by time, and the
 * rotation removes only the schedule's own, never a backup someone made by hand.
 */
export function backupFileName(at: Date, kind: BackupKind = 'manual'): string {
  return `${kind === 'scheduled' ? 'chat-agent-auto-' : 'chat-agent-'}${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.db`;
}

export type BackupKind = 'manual' | 'scheduled';

const SCHEDULED_BACKUP_NAME = /^chat-agent-auto-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(-\d+)?\.db$/;

/**
 * Online backup of `source` (an open connection, possibly the server's own, possibly another
 * process's database being written meanwhile) to `target`.
 *
 * SQLite's backup API restarts when another connection writes between steps, so a connection of
 * another process copies everything in one step: one read transaction, one consistent snapshot,
 * and WAL lets the writer go on meanwhile. The server's own connection copies in slices (writes
 * through it update the copy as it goes) so the event loop keeps serving.
 */
export async function backupDatabase(
  source: Database.Database,
  target: string,
  opts: { sameConnectionAsWriter?: boolean } = {},
): Promise<BackupResult> {
  const started = Date.now();
  const absolute = path.resolve(target);
  const dir = path.dirname(absolute);
  if (!existsSync(dir)) throw new BackupError(`cannot write the backup: folder ${dir} does not exist`);
  if (existsSync(absolute) && statSync(absolute).isDirectory())
    throw new BackupError(`cannot write the backup: ${absolute} is a folder`);
  removeAbandonedTempFiles(dir);
  const tmp = `${absolute}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  try {
    const pagesPerStep = opts.sameConnectionAsWriter ? 1024 : 0x7fffffff;
    await source.backup(tmp, { progress: () => pagesPerStep });
    verifyDatabaseFile(tmp, { makeSelfContained: true, label: `the backup ${absolute}` });
    // a copy of every account's data: its owner's alone, like the database
    chmodSync(tmp, 0o600);
    fsyncFile(tmp);
    renameSync(tmp, absolute);
    fsyncFile(dir);
  } catch (err) {
    removeWithCompanions(tmp);
    if (err instanceof BackupError) throw err;
    throw new BackupError(`backup to ${absolute} failed: ${(err as Error).message}`);
  }
  return { file: absolute, bytes: statSync(absolute).size, ms: Date.now() - started };
}

/**
 * Opens the file, runs integrity_check and checks it is this app's database (it has the
 * migrations table and users). `makeSelfContained` switches it to rollback-journal mode, so the
 * file carries everything and opening it later leaves no -wal behind.
 */
export function verifyDatabaseFile(file: string, opts: { makeSelfContained?: boolean; label?: string } = {}): void {
  const name = opts.label ?? file;
  let conn: Database.Database;
  try {
    conn = openSqlite(file, { fileMustExist: true, readonly: !opts.makeSelfContained, timeout: 0 });
  } catch (err) {
    throw new BackupError(`${name} cannot be opened as a database: ${(err as Error).message}`);
  }
  try {
    loadSqliteVec(conn);
    let result: string[];
    try {
      result = (conn.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    } catch (err) {
      throw new BackupError(`${name} is not a usable database: ${(err as Error).message}`);
    }
    if (result.length !== 1 || result[0] !== 'ok')
      throw new BackupError(`${name} fails integrity_check: ${result.slice(0, 3).join('; ')}`);
    const tables = new Set(
      (conn.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map(
        (r) => r.name,
      ),
    );
    if (!tables.has('__drizzle_migrations') || !tables.has('users'))
      throw new BackupError(`${name} is a SQLite file but not a chat-agent database`);
    if (opts.makeSelfContained) conn.pragma('journal_mode = DELETE');
  } finally {
    conn.close();
  }
}

/**
 * Keeps the newest `keep` scheduled backups in `dir` (by name, which sorts by time); returns the
 * removed ones. Manual backups in the same folder are not counted and never removed.
 */
export function pruneScheduledBackups(dir: string, keep: number): string[] {
  const backups = scheduledBackups(dir);
  const removed = backups.slice(0, Math.max(0, backups.length - keep)).map((f) => path.join(dir, f));
  for (const file of removed) rmSync(file, { force: true });
  return removed;
}

/** When the newest scheduled backup in `dir` was made (from its name), or null. */
export function newestScheduledBackupAt(dir: string): Date | null {
  const newest = scheduledBackups(dir).at(-1);
  const m = newest ? SCHEDULED_BACKUP_NAME.exec(newest) : null;
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}

function scheduledBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => SCHEDULED_BACKUP_NAME.test(f))
    .sort();
}

/** What SQLite keeps beside a database file while a connection writes it. */
const COMPANIONS = ['-journal', '-wal', '-shm'] as const;

/** A temp file and the journal, WAL and shared-memory files SQLite may have left beside it. */
function removeWithCompanions(file: string): void {
  rmSync(file, { force: true });
  for (const suffix of COMPANIONS) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * Removes the temp files of backups (`<target>.tmp-<pid>`) and restores (`<db>.restore-<pid>.tmp`)
 * whose process is gone, with their `-journal`, `-wal` and `-shm`: a backup killed mid-copy left
 * them forever (the copy's rollback journal is a 512-byte `<target>.tmp-<pid>-journal`). Only
 * files that look like SQLite's (or are empty) are touched, and only when no process has that
 * pid, so nobody's unrelated file goes.
 */
export function removeAbandonedTempFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /\.tmp-(\d+)(-journal|-wal|-shm)?$/.exec(name) ?? /\.restore-(\d+)\.tmp(-journal|-wal|-shm)?$/.exec(name);
    if (!m || processIsAlive(Number(m[1]))) continue;
    const file = path.join(dir, name);
    try {
      if (!looksLikeSqliteOrEmpty(file, m[2] as (typeof COMPANIONS)[number] | undefined)) continue;
      rmSync(file, { force: true });
      removed.push(file);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return false; // this process has no backup running under that name yet
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** how a rollback journal begins; zeros there until its first sync, and once its transaction ended */
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
/** how a WAL file begins: 0x377f0682 or 0x377f0683, big-endian */
const WAL_MAGIC = [Buffer.from([0x37, 0x7f, 0x06, 0x82]), Buffer.from([0x37, 0x7f, 0x06, 0x83])];

/**
 * The file is what its name says: a SQLite database, a rollback journal or a WAL by its first
 * bytes, or empty. A `-shm` holds no data of its own (SQLite rebuilds it), so its name suffices.
 */
function looksLikeSqliteOrEmpty(file: string, companion?: (typeof COMPANIONS)[number]): boolean {
  const stat = statSync(file);
  if (!stat.isFile()) return false;
  if (stat.size === 0 || companion === '-shm') return true;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (companion === '-journal')
      return read >= 8 && (head.subarray(0, 8).equals(JOURNAL_MAGIC) || head.subarray(0, 8).every((b) => b === 0));
    if (companion === '-wal') return WAL_MAGIC.some((magic) => head.subarray(0, 4).equals(magic));
    return head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

/** A target in `dir` named by time that does not exist yet (two backups in one second get -2, -3, ...). */
export function nextBackupPath(dir: string, at: Date, kind: BackupKind = 'manual'): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = backupFileName(at, kind);
  let candidate = path.join(dir, base);
  for (let n = 2; existsSync(candidate); n++) candidate = path.join(dir, base.replace(/\.db$/, `-${n}.db`));
  return candidate;
}

export class DatabaseInUseError extends BackupError {}

export interface RestoreResult {
  restoredFrom: string;
  database: string;
  /** the database that was replaced, kept beside it; null when there was none */
  previous: string | null;
}

/**
 * Replaces DATA_DIR's database with a verified copy of `source`. Refuses while any process has
 * the database open: it must get SQLite's exclusive lock on the file, which the operating system
 * holds for every open connection and releases when a process dies (even by SIGKILL), so there is
 * no stale pid file to go wrong. The replaced database is checkpointed and kept as
 * `chat-agent.db.pre-restore-<time>`; stale -wal/-shm files are removed before the new file takes
 * the name (SQLite would otherwise replay another database's log into it).
 */
export function restoreDatabase(source: string, databaseFile: string, at: Date): RestoreResult {
  const from = path.resolve(source);
  const target = path.resolve(databaseFile);
  if (!existsSync(from)) throw new BackupError(`${from} does not exist`);
  if (!statSync(from).isFile()) throw new BackupError(`${from} is not a file`);
  if (from === target) throw new BackupError(`${from} is the live database itself; restore from a backup file`);

  removeAbandonedTempFiles(path.dirname(target));
  const tmp = `${target}.restore-${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  try {
    // verify a private copy: the source may sit on removable media, and we never half-read it twice
    copyFileSync(from, tmp);
    verifyDatabaseFile(tmp, { makeSelfContained: true, label: from });
    fsyncFile(tmp);

    let previous: string | null = null;
    if (existsSync(target)) {
      assertNotInUse(target);
      previous = `${target}.pre-restore-${at
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}`;
      renameSync(target, previous);
    }
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
    renameSync(tmp, target);
    fsyncFile(path.dirname(target));
    return { restoredFrom: from, database: target, previous };
  } finally {
    removeWithCompanions(tmp);
  }
}

/**
 * Takes the exclusive lock (no waiting), folds the WAL into the file so the database kept aside is
 * complete on its own, and lets go. SQLITE_BUSY means another process has it open.
 */
function assertNotInUse(databaseFile: string): void {
  let conn: Database.Database;
  try {
    conn = openSqlite(databaseFile, { fileMustExist: true, timeout: 0 });
  } catch {
    return; // unreadable: it is replaced anyway and kept aside as it is
  }
  try {
    conn.pragma('locking_mode = EXCLUSIVE');
    try {
      conn.exec('BEGIN EXCLUSIVE');
      conn.exec('COMMIT');
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY' || (err as { code?: string }).code === 'SQLITE_LOCKED') {
        throw new DatabaseInUseError(`${databaseFile} is in use (is the server running?): stop it before restoring`);
      }
      return;
    }
    conn.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    conn.close();
  }
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
