import type Database from 'better-sqlite3';
import { closeSync, fdatasync, openSync } from 'node:fs';

/** Flushes one file's data to the disk (the operating system's fdatasync), off the event loop. */
export type SyncFile = (file: string) => Promise<void>;

/**
 * Group commit for the one SQLite file.
 *
 * Transactions commit with synchronous=NORMAL: the commit writes its frames to the WAL file (in
 * the page cache) and returns in microseconds, without an fsync. Before a response acknowledges
 * a write, `barrier()` makes sure the WAL is on disk: one fdatasync of the WAL file, run on
 * libuv's thread pool so the event loop keeps serving, and shared by every request that
 * committed while it was pending. An acknowledged write is therefore on disk before the client
 * hears of it, exactly as with synchronous=FULL, but a burst of 100 writes costs a few fsyncs
 * instead of 100 fsyncs that each stop the whole process (about 4 ms each on this class of
 * machine). WAL with NORMAL never corrupts the database on a crash or power loss; what was not
 * yet synced is simply not there, and nothing unsynced was acknowledged.
 *
 * Progress is measured with SQLite's total_changes() counter: the barrier waits until a sync
 * that started after the counter reached its current value has finished.
 */
export class WalSync {
  private readonly changes: Database.Statement;
  private durableChanges: number;
  private inflight: Promise<void> | null = null;
  /** fsyncs done, for tests and the health of the mechanism */
  syncs = 0;
  private readonly syncFile: SyncFile;
  private walFd: number | null = null;

  constructor(
    sqlite: Database.Database,
    private readonly walFile: string,
    syncFile?: SyncFile,
  ) {
    this.changes = sqlite.prepare('SELECT total_changes()').pluck();
    this.durableChanges = this.totalChanges();
    this.syncFile = syncFile ?? ((file) => this.datasyncKeptOpen(file));
  }

  /** Releases the WAL file descriptor (once a sync in flight has finished); call before closing the database. */
  close(): void {
    const release = () => {
      if (this.walFd !== null) closeSync(this.walFd);
      this.walFd = null;
    };
    if (this.inflight) void this.inflight.then(release, release);
    else release();
  }

  /** Resolves once every transaction committed before the call is on disk. */
  async barrier(): Promise<void> {
    const target = this.totalChanges();
    while (this.durableChanges < target) {
      this.inflight ??= this.syncOnce();
      await this.inflight;
    }
  }

  private totalChanges(): number {
    return Number(this.changes.get());
  }

  /**
   * fdatasync through a descriptor opened at the first sync and kept: one hop to libuv's thread
   * pool per sync instead of three (open, datasync, close): 0.6-1.9 ms less per chat turn (A/B,
   * three runs of 300 sequential turns). It stays valid because SQLite never replaces the -wal
   * file while a connection (ours, for the process's life) has it open: a checkpoint rewinds or
   * truncates it.
   */
  private datasyncKeptOpen(file: string): Promise<void> {
    this.walFd ??= openSync(file, 'r');
    const fd = this.walFd;
    return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  private async syncOnce(): Promise<void> {
    const upTo = this.totalChanges();
    try {
      await this.syncFile(this.walFile);
      this.syncs += 1;
      this.durableChanges = Math.max(this.durableChanges, upTo);
    } finally {
      this.inflight = null;
    }
  }
}
