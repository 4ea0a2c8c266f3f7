import { forbidden } from '../../platform/http/errors.js';
import type { PlanHolder, PlanService } from '../limits/index.js';
import type { KnowledgeRepo } from './repo.js';

const MB = 1024 * 1024;

/** Ingestion stops with this when a source would take the account past its storage (the source fails with the message). */
export class StorageLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageLimitError';
  }
}

/** What a refused addition is, for the message: an upload (its declared size when known) or another source. */
type Adding = { kind: 'upload'; received: number; declared: number | null } | { kind: 'source'; bytes: number };

/**
 * The plan's storage limit (`max_storage_mb`): the text of an account's passages plus its uploads
 * waiting on disk, and the uploads being received right now (counted as they arrive, so five
 * uploads at once cannot each see the room that only one of them fits in). A refusal states the
 * real figures: what is stored (`current`), what other uploads are bringing in right now, what
 * this addition is, and the plan's limit (`max`).
 */
export class StorageQuota {
  private readonly receiving = new Map<string, number>();

  constructor(
    private readonly repo: KnowledgeRepo,
    private readonly plans: PlanService,
    /** the account by id (its plan): the owner lookup every module shares */
    private readonly accountOf: (accountId: string) => PlanHolder,
  ) {}

  /** What counts against the limit now: stored, and uploads being received. */
  usedBy(accountId: string): number {
    return this.repo.storageUsedBy(accountId) + (this.receiving.get(accountId) ?? 0);
  }

  limitOf(accountId: string): number {
    return this.plans.planOf(this.accountOf(accountId)).max_storage_mb * MB;
  }

  /** 403 with the plan-limit detail when `adding` more bytes would not fit; 0 asks whether any room is left. */
  assertRoom(accountId: string, adding = 0): void {
    const refusal = this.refusal(accountId, adding, 0, adding > 0 ? { kind: 'source', bytes: adding } : null);
    if (refusal) throw forbidden(refusal);
  }

  /**
   * Counts an upload's bytes as they arrive. `add` answers an error once the upload would not
   * fit, and from then on the upload's bytes no longer count (it is cut off: the room is free for
   * uploads still arriving); `end` stops counting (call it once the upload is recorded as a
   * source, or given up). `declaredBytes`: the request's size, when it said it, for the message.
   */
  receive(
    accountId: string,
    declaredBytes: number | null = null,
  ): { add: (bytes: number) => Error | null; end: () => void } {
    this.assertRoom(accountId);
    let counted = 0;
    const end = () => {
      const left = (this.receiving.get(accountId) ?? 0) - counted;
      counted = 0;
      if (left > 0) this.receiving.set(accountId, left);
      else this.receiving.delete(accountId);
    };
    return {
      add: (bytes) => {
        const refusal = this.refusal(accountId, bytes, counted, {
          kind: 'upload',
          received: counted + bytes,
          declared: declaredBytes,
        });
        if (refusal) {
          end();
          return forbidden(refusal);
        }
        counted += bytes;
        this.receiving.set(accountId, (this.receiving.get(accountId) ?? 0) + bytes);
        return null;
      },
      end,
    };
  }

  /** For ingestion: throws StorageLimitError when `adding` bytes, less `freed` ones, would not fit. */
  assertIngestRoom(accountId: string, adding: number, freed: number): void {
    const refusal = this.refusal(accountId, adding - freed, 0, { kind: 'source', bytes: adding - freed });
    if (refusal) throw new StorageLimitError(refusal.message);
  }

  /**
   * `own`: the bytes of this upload already counted among those being received (so the message
   * tells them apart from other uploads').
   */
  private refusal(
    accountId: string,
    adding: number,
    own: number,
    what: Adding | null,
  ): { message: string; current: number; max: number; upgrade_required: true } | null {
    const stored = this.repo.storageUsedBy(accountId);
    const receiving = this.receiving.get(accountId) ?? 0;
    const current = stored + receiving;
    const max = this.limitOf(accountId);
    if (current + adding <= max && (adding > 0 || current < max)) return null;
    const plan = this.accountOf(accountId).plan_id;
    const figures = [`${megabytes(stored)} are used`];
    const others = receiving - own;
    if (others > 0) figures.push(`${megabytes(others)} are being uploaded right now`);
    if (what?.kind === 'upload')
      figures.push(
        what.declared !== null && what.declared >= what.received
          ? `this upload is ${megabytes(what.declared)}`
          : `this upload is more than ${megabytes(what.received)}`,
      );
    else if (what?.kind === 'source' && what.bytes > 0) figures.push(`this needs ${megabytes(what.bytes)}`);
    const listed = figures.length > 1 ? `${figures.slice(0, -1).join(', ')}, and ${figures.at(-1)}` : figures[0];
    return {
      message: `Storage limit reached: your ${plan} plan allows ${megabytes(max)} of sources and passages; ${listed}. Delete sources you no longer need, or upgrade.`,
      current: stored,
      max,
      upgrade_required: true,
    };
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
}
