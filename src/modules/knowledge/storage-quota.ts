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

/**
 * The plan's storage limit (`max_storage_mb`): the text of an account's passages plus its uploads
 * waiting on disk, and the uploads being received right now (counted as they arrive, so five
 * uploads at once cannot each see the room that only one of them fits in).
 */
export class StorageQuota {
  private readonly receiving = new Map<string, number>();

  constructor(
    private readonly repo: KnowledgeRepo,
    private readonly plans: PlanService,
    /** the account by id (its plan): the owner lookup every module shares */
    private readonly accountOf: (accountId: string) => PlanHolder,
  ) {}

  usedBy(accountId: string): number {
    return this.repo.storageUsedBy(accountId) + (this.receiving.get(accountId) ?? 0);
  }

  limitOf(accountId: string): number {
    return this.plans.planOf(this.accountOf(accountId)).max_storage_mb * MB;
  }

  /** 403 with the plan-limit detail when `adding` more bytes would not fit; 0 asks whether any room is left. */
  assertRoom(accountId: string, adding = 0): void {
    const refusal = this.refusal(accountId, adding);
    if (refusal) throw forbidden(refusal);
  }

  /**
   * Counts an upload's bytes as they arrive. `add` answers an error once the upload would not
   * fit; `end` stops counting (call it once the upload is recorded as a source, or given up).
   */
  receive(accountId: string): { add: (bytes: number) => Error | null; end: () => void } {
    this.assertRoom(accountId);
    let counted = 0;
    return {
      add: (bytes) => {
        const refusal = this.refusal(accountId, bytes);
        if (refusal) return forbidden(refusal);
        counted += bytes;
        this.receiving.set(accountId, (this.receiving.get(accountId) ?? 0) + bytes);
        return null;
      },
      end: () => {
        const left = (this.receiving.get(accountId) ?? 0) - counted;
        counted = 0;
        if (left > 0) this.receiving.set(accountId, left);
        else this.receiving.delete(accountId);
      },
    };
  }

  /** For ingestion: throws StorageLimitError when `adding` bytes, less `freed` ones, would not fit. */
  assertIngestRoom(accountId: string, adding: number, freed: number): void {
    const refusal = this.refusal(accountId, adding - freed);
    if (refusal) throw new StorageLimitError(refusal.message);
  }

  private refusal(
    accountId: string,
    adding: number,
  ): { message: string; current: number; max: number; upgrade_required: true } | null {
    const current = this.usedBy(accountId);
    const max = this.limitOf(accountId);
    if (current + adding <= max && (adding > 0 || current < max)) return null;
    const plan = this.accountOf(accountId).plan_id;
    return {
      message: `Storage limit reached: your ${plan} plan allows ${megabytes(max)} of sources and passages, and ${megabytes(current)} are used. Delete sources you no longer need, or upgrade.`,
      current,
      max,
      upgrade_required: true,
    };
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
}
