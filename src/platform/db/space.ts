import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';

/** pages moved per step of an incremental vacuum (4 MB at SQLite's 4 KB page): a few ms each */
const PAGES_PER_STEP = 1024;
/** free pages worth giving back (1 MB); fewer are reused by the next writes anyway */
const WORTH_RECLAIMING = 256;
const CHECK_EVERY_MS = 60_000;

/**
 * Makes the database able to give space back: `auto_vacuum = INCREMENTAL` on a new file, and on
 * a file created before this (auto_vacuum off) one VACUUM to turn it on, which rewrites the file
 * once and needs as much free disk as the file takes. Runs before the migrations.
 */
export function enableIncrementalVacuum(
  sqlite: Database.Database,
  log: (message: string) => void = () => undefined,
): void {
  if (sqlite.pragma('auto_vacuum', { simple: true }) === 2) return;
  // an empty file takes the setting as is; one with tables needs the rewrite
  const existing = (sqlite.pragma('page_count', { simple: true }) as number) > 0;
  sqlite.pragma('auto_vacuum = INCREMENTAL');
  if (existing) {
    log('Rewriting the database once so that it can give space back after deletions (VACUUM)');
    try {
      sqlite.exec('VACUUM');
    } catch (err) {
      // most likely not enough free disk for the copy: the server still starts, space is kept
      log(
        `VACUUM failed (${err instanceof Error ? err.message : String(err)}); deleted data leaves free pages for reuse instead`,
      );
    }
  }
}

/**
 * Gives the pages freed by deletions (a source's passages, an agent) back to the file system, a
 * step at a time between requests: SQLite otherwise keeps them inside the file for reuse, and a
 * database that once held 800 MB stayed 800 MB. Each step's truncation reaches the file at the
 * next WAL checkpoint.
 */
export class SpaceReclaimer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** a deletion happened while a reclaim was running: run again once it ends */
  private again = false;

  constructor(
    private readonly sqlite: Database.Database,
    log: FastifyBaseLogger,
    /** runs once a reclaim has ended, so the shrunk file reaches the disk (a checkpoint) */
    private readonly afterReclaim: () => Promise<unknown> = async () => undefined,
    private readonly onError: (err: unknown) => void = (err) =>
      log.warn({ err }, 'giving free database pages back failed; will try again'),
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.soon(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** Reclaims now unless a reclaim is already running; resolves when it has ended. */
  soon(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) this.again = true;
    this.running ??= this.reclaim().finally(() => (this.running = null));
    return this.running;
  }

  /** The reclaim in progress, if any (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    await this.running;
  }

  freePages(): number {
    return this.sqlite.pragma('freelist_count', { simple: true }) as number;
  }

  private async reclaim(): Promise<void> {
    try {
      // until no deletion has come in meanwhile (soon() during a run sets `again`)
      do {
        this.again = false;
        if (this.freePages() < WORTH_RECLAIMING) continue;
        while (!this.stopped && this.sqlite.open && this.freePages() > 0) {
          this.sqlite.pragma(`incremental_vacuum(${PAGES_PER_STEP})`);
          // let requests in between steps
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (!this.stopped) await this.afterReclaim();
      } while (this.again && !this.stopped);
    } catch (err) {
      // a full disk or a busy database: the pages stay free for reuse, and the next check tries again
      this.onError(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
