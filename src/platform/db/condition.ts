import { statfsSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../clock.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** full disk or damage: what health and the admin status report (app.ts creates it) */
    databaseCondition: DatabaseCondition;
  }
}

/** What the database can do right now: `full` takes no writes (reads work), `corrupt` needs a restore. */
export type DatabaseState = 'ok' | 'full' | 'corrupt';

export interface DatabaseConditionReport {
  state: DatabaseState;
  /** a sentence for the operator when the state is not ok */
  detail: string | null;
  /** when the last integrity check (quick_check) ended, ok or not */
  integrity_checked_at: string | null;
}

/** Seen by SQLite (SQLITE_FULL) or by a file write (uploads, backups) when the disk has no room. */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

/** SQLite found pages that are not what it wrote (SQLITE_CORRUPT and its extended codes, SQLITE_NOTADB). */
function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

export const RESTORE_ADVICE =
  'Stop the server and restore the newest good backup with `chat-agent restore <backup file>` (docs/DURABILITY.md).';
const FULL_DETAIL =
  'The disk holding the database is full: nothing new can be saved until space is freed. Reading still works.';

/**
 * A full disk is over once no write has hit it for a while and the file system has this much
 * room: enough for a WAL to grow and a checkpoint to land. Below it the state stays `full` even
 * if a small write got through, so health does not flap while an operator is still clearing.
 */
const ROOM_TO_RECOVER_BYTES = 8 * 1024 * 1024;
/** Below this the disk counts as full before any write has failed (a start on a full disk). */
const NO_ROOM_BYTES = 1024 * 1024;
const QUIET_BEFORE_RECOVERY_MS = 10_000;

/**
 * The one record of what is wrong with the database, fed by whoever meets the error: the HTTP
 * error handler for requests, and every timer and background task (rate-limit flush, job queues,
 * session sweep, checkpoints, space reclaim) through `report`. Health and the admin status read
 * it. Nothing here ever throws: a full disk must not take the process down (issue: the rate-limit
 * flush used to crash it 2 s after the first refused write, and a supervisor restarted it into
 * the same crash).
 */
export class DatabaseCondition {
  private fullSince: number | null = null;
  private lastFullAt = 0;
  private corruption: string | null = null;
  private integrityCheckedAt: string | null = null;
  /** called whenever a request or task meets a damaged page (app.ts: an integrity check soon) */
  onCorruptionNoticed: () => void = () => undefined;

  constructor(
    /** the folder of the database file: its free space says when a full disk is over */
    private readonly dataDir: string,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Learns from an error, if it says something about the database. Returns the state it showed,
   * or null for any other error (the caller handles those as before).
   */
  notice(err: unknown): 'full' | 'corrupt' | null {
    if (isDiskFull(err)) {
      const now = this.clock.now().getTime();
      if (this.fullSince === null) {
        this.fullSince = now;
        this.log.error({ err }, 'the disk is full: writes are refused until space is freed (reads keep working)');
      }
      this.lastFullAt = now;
      return 'full';
    }
    if (isCorruption(err)) {
      this.onCorruptionNoticed();
      if (this.corruption === null) {
        this.corruption = (err as Error).message;
        this.log.error({ err }, `the database is damaged. ${RESTORE_ADVICE}`);
      }
      return 'corrupt';
    }
    return null;
  }

  /**
   * For background work: logs the error once under `what`, and notes a full disk or a damaged
   * file. Never throws, so it is safe in a timer's catch.
   */
  report(what: string, err: unknown): void {
    try {
      // a full disk is logged once when it starts, not by every task every few seconds
      if (this.notice(err) === 'full') this.log.debug({ err }, `${what} failed: the disk is full`);
      else this.log.error({ err }, `${what} failed`);
    } catch {
      // the logger itself failed (its disk is full too): nothing more can be done here
    }
  }

  /** The result of a quick_check: null when it found nothing. */
  integrityChecked(problem: string | null): void {
    this.integrityCheckedAt = isoNow(this.clock);
    if (problem === null) {
      if (this.corruption !== null) this.log.info('the integrity check passes again');
      this.corruption = null;
      return;
    }
    if (this.corruption === null)
      this.log.error({ problem }, `the database failed its integrity check. ${RESTORE_ADVICE}`);
    this.corruption = problem;
  }

  current(): DatabaseConditionReport {
    const report = (state: DatabaseState, detail: string | null) => ({
      state,
      detail,
      integrity_checked_at: this.integrityCheckedAt,
    });
    if (this.corruption !== null)
      return report('corrupt', `SQLite found damage in the database file (${this.corruption}). ${RESTORE_ADVICE}`);
    if (this.fullSince !== null && !this.fullIsOver()) return report('full', FULL_DETAIL);
    if (this.fullSince === null && freeBytes(this.dataDir) < NO_ROOM_BYTES) {
      this.fullSince = this.clock.now().getTime();
      this.lastFullAt = this.fullSince;
      this.log.error('the disk is (nearly) full: writes will be refused until space is freed (reads keep working)');
      return report('full', FULL_DETAIL);
    }
    return report('ok', null);
  }

  private fullIsOver(): boolean {
    if (this.clock.now().getTime() - this.lastFullAt < QUIET_BEFORE_RECOVERY_MS) return false;
    if (freeBytes(this.dataDir) < ROOM_TO_RECOVER_BYTES) return false;
    this.log.info(
      { fullForMs: this.clock.now().getTime() - this.fullSince! },
      'the disk has room again: writes are taken',
    );
    this.fullSince = null;
    return true;
  }
}

/** Bytes this process may still write on the data folder's file system (Infinity if unknown). */
function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    // root may also use the blocks a file system reserves for it (5% on ext4 by default)
    return (process.getuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
