import { readdir, rename, rm, stat } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import { ApiError, badRequest, conflict, tooManyRequests } from '../../platform/http/errors.js';
import { saveUpload, UploadTooLargeError } from '../../platform/http/upload.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import { assertPublicHttpUrl, isPublicAddress } from '../../platform/net/safe-fetch.js';
import { UnsafeUrlError } from '../../platform/net/types.js';
import { matchesExtension } from '../../platform/workers/extension-check.js';
import type { ParsableType, ParserPool } from '../../platform/workers/types.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { crawlQueued } from './crawl-report.js';
import { IngestJob } from './ingest-job.js';
import type { SyncRepo } from './sync-repo.js';
import { crawlSettings, type WebsiteOptions, websiteOptions } from './website-options.js';
import type { KnowledgeRepo } from './repo.js';
import type { KnowledgeService } from './service.js';
import type { StorageQuota } from './storage-quota.js';
import type { SourceRow } from './tables.js';

export const ALLOWED_FILE_TYPES: readonly ParsableType[] = ['pdf', 'docx', 'txt', 'xlsx', 'csv'];
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** an upload file no source refers to is removed once it is this old (it may still be arriving before) */
export const UPLOAD_SWEEP_MIN_AGE_MS = 60 * 60 * 1000;
export const INGEST_JOB = 'ingest-source';

/**
 * Sources one account may have waiting or being processed: enough for a bulk upload, small
 * enough that no account fills the queue (the queue also shares its slots between accounts).
 */
export const MAX_QUEUED_SOURCES_PER_ACCOUNT = 20;

/** a source still `processing` after this is failed by the watchdog */
export const PROCESSING_CAP_MS = { file: 30 * 60_000, website: 60 * 60_000 } as const;

export interface WebsiteInput {
  url: string;
  maxPages: number;
  includePaths: string[];
  excludePaths: string[];
}

/**
 * File and website sources: accepted at once as `processing`, then ingested by a durable job
 * (parse in a worker or crawl, chunk, store in batches, embed) that survives restarts. Deleting a
 * source cancels its job and removes its file, chunks and vectors whatever its state.
 */
export interface IngestionOptions {
  dataDir: string;
  allowPrivateUrls: boolean;
  storage: StorageQuota;
  /** called after a deletion, so the space goes back to the disk soon */
  freedSpace?: () => void;
}

export interface IngestionDeps {
  repo: KnowledgeRepo;
  knowledge: KnowledgeService;
  agents: AgentsService;
  /** the ingestion queue (its job kind is registered here) */
  jobs: JobQueue;
  parsers: ParserPool;
  options: IngestionOptions;
  clock: Clock;
  log: FastifyBaseLogger;
  syncRepo: SyncRepo;
}

export class IngestionService {
  private readonly uploadDir: string;
  private readonly repo: KnowledgeRepo;
  private readonly knowledge: KnowledgeService;
  private readonly agents: AgentsService;
  private readonly jobs: JobQueue;
  private readonly options: IngestionOptions;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly ingest: IngestJob;

  /** the pages of website sources and the record of their syncs */
  readonly syncRepo: SyncRepo;

  constructor({ repo, knowledge, agents, jobs, parsers, options, clock, log, syncRepo }: IngestionDeps) {
    this.syncRepo = syncRepo;
    this.repo = repo;
    this.knowledge = knowledge;
    this.agents = agents;
    this.jobs = jobs;
    this.options = options;
    this.clock = clock;
    this.log = log;
    this.uploadDir = path.join(options.dataDir, 'uploads');
    mkdirSync(this.uploadDir, { recursive: true, mode: 0o700 });
    const uploadDir = this.uploadDir;
    this.ingest = new IngestJob({ repo, knowledge, agents, parsers, options, clock, log, uploadDir, syncRepo });
    jobs.register(INGEST_JOB, (job, ctx) => this.ingest.run(job, ctx));
  }

  /**
   * 404 unless the agent is the caller's, 429 when the account's queue is full, 403 when its
   * storage is; call before reading an upload.
   */
  assertAgent(user: AuthUser, chatbotId: string): void {
    this.agents.get(user, chatbotId);
    this.assertQueueRoom(user.id);
    this.options.storage.assertRoom(user.id);
  }

  private assertQueueRoom(accountId: string): void {
    if (this.jobs.activeCount(accountId) >= MAX_QUEUED_SOURCES_PER_ACCOUNT) {
      throw tooManyRequests(
        `${MAX_QUEUED_SOURCES_PER_ACCOUNT} sources are waiting to be processed for this account; add more when some have finished`,
        60,
      );
    }
  }

  /**
   * Streams the upload to disk under a generated name (the original name is only metadata), then
   * checks the content against the extension and queues the ingestion.
   */
  async addFile(
    user: AuthUser,
    chatbotId: string,
    upload: {
      filename: string;
      stream: Readable;
      signal?: AbortSignal;
      /** the request's Content-Length, when sent: the size a storage refusal states */
      declaredBytes?: number | null;
    },
  ): Promise<SourceRow> {
    const agent = this.agents.get(user, chatbotId);
    const originalName = path.basename(upload.filename || '').slice(0, 255) || 'upload';
    const ext = path.extname(originalName).slice(1).toLowerCase() as ParsableType;
    if (!ALLOWED_FILE_TYPES.includes(ext)) {
      upload.stream.resume();
      throw badRequest(
        `file: .${ext || '?'} files are not accepted (allowed: ${ALLOWED_FILE_TYPES.map((t) => `.${t}`).join(', ')})`,
      );
    }
    const id = newId();
    const tmp = path.join(this.uploadDir, `${id}.part`);
    // the bytes count against the storage limit as they arrive, until the source row counts them
    const receiving = this.options.storage.receive(agent.user_id, upload.declaredBytes ?? null);
    try {
      return await this.storeUpload(agent, id, originalName, ext, tmp, upload, receiving);
    } finally {
      receiving.end();
    }
  }

  private async storeUpload(
    agent: ChatbotRow,
    id: string,
    originalName: string,
    ext: ParsableType,
    tmp: string,
    upload: { stream: Readable; signal?: AbortSignal },
    receiving: { add: (bytes: number) => Error | null },
  ): Promise<SourceRow> {
    let saved;
    try {
      saved = await saveUpload(upload.stream, tmp, MAX_UPLOAD_BYTES, upload.signal, receiving.add);
    } catch (err) {
      if (err instanceof UploadTooLargeError) throw new ApiError(413, err.message);
      // the caller aborted the upload (a body cut short): its reason is the answer
      if (upload.signal?.aborted) throw upload.signal.reason;
      throw err;
    }
    const finalPath = path.join(this.uploadDir, `${id}.${ext}`);
    try {
      if (!matchesExtension(saved.head, ext)) throw badRequest(`file: the content is not a .${ext} file`);
      await rename(tmp, finalPath);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const now = isoNow(this.clock);
    try {
      return this.repo.transaction(() => {
        const source = this.repo.insertSource({
          id,
          chatbot_id: agent.id,
          type: 'file',
          name: originalName,
          url: null,
          file_type: ext,
          file_size: saved.size,
          status: 'processing',
          error_message: null,
          progress: 0,
          stored_path: path.basename(finalPath),
          created_at: now,
          updated_at: now,
        });
        this.assertQueueRoom(agent.user_id);
        this.jobs.enqueue(INGEST_JOB, source.id, { owner: agent.user_id });
        return source;
      });
    } catch (err) {
      await rm(finalPath, { force: true });
      throw err;
    }
  }

  async addWebsite(user: AuthUser, chatbotId: string, input: WebsiteInput): Promise<SourceRow> {
    const agent = this.agents.get(user, chatbotId);
    let url: URL;
    try {
      url = assertPublicHttpUrl(input.url, this.options.allowPrivateUrls);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw badRequest(`url: ${err.message}`);
      throw err;
    }
    if (!this.options.allowPrivateUrls) await this.assertResolvesPublic(url);
    this.options.storage.assertRoom(agent.user_id);
    const now = isoNow(this.clock);
    return this.repo.transaction(() => {
      const source = this.repo.insertSource({
        id: newId(),
        chatbot_id: agent.id,
        type: 'website',
        name: url.toString(),
        url: url.toString(),
        file_type: null,
        file_size: null,
        ...crawlQueued(),
        options: JSON.stringify({
          maxPages: input.maxPages,
          includePaths: input.includePaths,
          excludePaths: input.excludePaths,
        }),
        created_at: now,
        updated_at: now,
      });
      this.assertQueueRoom(agent.user_id);
      this.jobs.enqueue(INGEST_JOB, source.id, { owner: agent.user_id });
      return source;
    });
  }

  /** Any source of the caller: job cancelled (waits for it to stop), row, chunks, vectors and file removed. */
  async deleteSource(user: AuthUser, sourceId: string): Promise<void> {
    const source = this.knowledge.ownedSource(user, sourceId);
    await this.jobs.cancelSubject(source.id);
    this.repo.transaction(() => {
      this.repo.deleteSource(source.id);
      this.knowledge.sourceChanged(source.chatbot_id, source.id, 'deleted');
    });
    if (source.stored_path) await rm(path.join(this.uploadDir, source.stored_path), { force: true });
    this.options.freedSpace?.();
  }

  /**
   * Syncs a website source now (docs/API-NOTES.md "Website sync"): pages new or changed are read
   * again, the passages of the last crawl keep answering until the sync completes and replaces
   * those of changed and removed pages; if it fails, they all stay (and the source says why). 409
   * while the source is being processed.
   */
  recrawl(user: AuthUser, sourceId: string): SourceRow {
    const source = this.knowledge.ownedSource(user, sourceId);
    if (source.type !== 'website')
      throw badRequest('Only website sources can be crawled again; upload a file again to replace it');
    return this.startSync(source, user.id, 'manual');
  }

  /** Queues a sync of a website source (by hand, or its schedule's). 409 while it is processed, 429 when the queue is full. */
  startSync(source: SourceRow, accountId: string, trigger: 'manual' | 'scheduled'): SourceRow {
    if (source.status === 'processing') throw conflict('The website is being crawled; wait until it has finished');
    const now = isoNow(this.clock);
    return this.repo.transaction(() => {
      const previousReport = {
        pages_done: source.pages_done,
        pages_found: source.pages_found,
        pages_skipped: source.pages_skipped,
        pages_skipped_by: source.pages_skipped_by,
        page_cap_hit: source.page_cap_hit,
      };
      const options: WebsiteOptions = {
        ...crawlSettings(websiteOptions(source)),
        replaces: this.repo.lastChunkId(source.id),
        replacedBytes: source.passage_bytes,
        startedAt: now,
        previousReport,
        syncTrigger: trigger,
      };
      this.assertQueueRoom(accountId);
      this.repo.updateSource(source.id, { ...crawlQueued(), options: JSON.stringify(options), updated_at: now });
      this.jobs.enqueue(INGEST_JOB, source.id, { owner: accountId });
      return this.repo.findSource(source.id)!;
    });
  }

  /**
   * Fails sources left `processing` past their cap (a job that can no longer finish), and removes
   * upload files no source refers to (a crash between saving and recording).
   */
  async watchdog(): Promise<void> {
    const now = this.clock.now().getTime();
    for (const source of this.repo.listProcessing()) {
      const cap = source.type === 'website' ? PROCESSING_CAP_MS.website : PROCESSING_CAP_MS.file;
      const startedAt = (source.type === 'website' && websiteOptions(source).startedAt) || source.created_at;
      if (now - Date.parse(startedAt) > cap) {
        await this.jobs.cancelSubject(source.id);
        await this.ingest.fail(source, `Processing did not finish within ${Math.round(cap / 60_000)} minutes`);
      }
    }
    await this.sweepUploads();
  }

  /**
   * Removes files in DATA_DIR/uploads that no source refers to: left by a crash between saving an
   * upload and recording its source, or by a job that ended without removing its file. A file
   * younger than an hour is left alone: it may be an upload being received or just saved. Ages
   * are the file system's (real time), whatever clock the app runs on.
   */
  private async sweepUploads(): Promise<void> {
    const referenced = new Set(this.repo.storedPaths());
    let names: string[];
    try {
      names = await readdir(this.uploadDir);
    } catch {
      return;
    }
    for (const name of names) {
      if (referenced.has(name)) continue;
      const file = path.join(this.uploadDir, name);
      try {
        if (Date.now() - (await stat(file)).mtimeMs < UPLOAD_SWEEP_MIN_AGE_MS) continue;
        await rm(file, { force: true });
        this.log.info({ file: name }, 'removed an upload no source refers to');
      } catch {
        // gone meanwhile, or not removable: the next sweep tries again
      }
    }
  }

  private async assertResolvesPublic(url: URL): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: Array<{ address: string }>;
    try {
      addresses = await lookup(host, { all: true });
    } catch {
      return; // not resolvable now: the job will fail with a clear message if it stays so
    }
    if (addresses.some((a) => !isPublicAddress(a.address))) {
      throw badRequest('url: the address points to a private or internal network');
    }
  }
}
