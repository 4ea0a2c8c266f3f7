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
import type { JobContext, JobQueue } from '../../platform/jobs/queue.js';
import type { JobRow } from '../../platform/jobs/tables.js';
import { assertPublicHttpUrl, isPublicAddress } from '../../platform/net/safe-fetch.js';
import { UnsafeUrlError } from '../../platform/net/types.js';
import { matchesExtension } from '../../platform/workers/extension-check.js';
import { ParseError, type ParsableType, type ParserPool } from '../../platform/workers/types.js';
import { EMBEDDING_BATCH_SIZE } from '../../providers/embeddings/index.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { Chunker, DEFAULT_CHUNKING, fileParagraphs, utf8Paragraphs } from './chunker.js';
import { crawl, CrawlError, noSkippedPages, type CrawlProgress } from './crawler.js';
import { type LocatedChunk, PassageLocator, sectionStarts } from './passage-context.js';
import { crawlSettings, type WebsiteOptions, websiteOptions } from './website-options.js';
import type { KnowledgeRepo, NewPassage } from './repo.js';
import type { KnowledgeService } from './service.js';
import { StorageLimitError, type StorageQuota } from './storage-quota.js';
import type { ChunkRow, SourceRow } from './tables.js';

export const ALLOWED_FILE_TYPES: readonly ParsableType[] = ['pdf', 'docx', 'txt', 'xlsx', 'csv'];
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** an upload file no source refers to is removed once it is this old (it may still be arriving before) */
export const UPLOAD_SWEEP_MIN_AGE_MS = 60 * 60 * 1000;
export const INGEST_JOB = 'ingest-source';
/** What the owner reads when a source's job kept failing on errors that are not about the file. */
const unexpectedFailure = (attempts: number) =>
  `Processing failed ${attempts} times because of an internal error. Try adding it again; if it keeps failing, the server log has the details.`;

/**
 * What the owner reads when the server itself stopped (a crash, or the system ending it for
 * memory) while processing the source, on its last try: it is not tried again, since a file that
 * takes the server down three times would do so for ever. Issue 31: this said "internal error".
 * `allCrashes`: no try ended with an error of its own (the job never recorded one).
 */
function crashedFailure(type: SourceRow['type'], attempts: number, allCrashes: boolean): string {
  const what = type === 'website' ? 'website' : 'file';
  const happened = allCrashes
    ? `The server stopped unexpectedly (it crashed or ran out of memory) each of the ${attempts} times it processed this ${what}, so it was not tried again.`
    : `Processing this ${what} was tried ${attempts} times; the last time, the server stopped unexpectedly (it crashed or ran out of memory), so it was not tried again.`;
  const advice =
    type === 'website'
      ? 'Some page of the site may be too large or too complex: add it again with fewer pages (max_pages), or leave out the pages that caused it (exclude_paths).'
      : 'The file may be damaged or too complex: open it and save or export it again (a PDF printed to a new PDF, a spreadsheet saved as CSV), or split it into smaller files, then add it again.';
  return `${happened} ${advice}`;
}

/**
 * Sources one account may have waiting or being processed: enough for a bulk upload, small
 * enough that no account fills the queue (the queue also shares its slots between accounts).
 */
export const MAX_QUEUED_SOURCES_PER_ACCOUNT = 20;

/** a source still `processing` after this is failed by the watchdog */
export const PROCESSING_CAP_MS = { file: 30 * 60_000, website: 60 * 60_000 } as const;
/** chunks cut per turn of the event loop, stored, then embedded in one request (EMBEDDING_BATCH_SIZE) */
const CHUNK_BATCH = EMBEDDING_BATCH_SIZE;
/** chunks per write transaction, with a turn of the event loop between: each holds it a few ms */
const STORE_SLICE = 16;

export interface WebsiteInput {
  url: string;
  maxPages: number;
  includePaths: string[];
  excludePaths: string[];
}

/** The skipped-pages columns of a website source; page_cap_hit stays null until the crawl ends. */
function crawlReport(progress: CrawlProgress): Pick<SourceRow, 'pages_skipped' | 'pages_skipped_by' | 'page_cap_hit'> {
  const skipped = Object.values(progress.skipped).reduce((a, b) => a + b, 0);
  return { pages_skipped: skipped, pages_skipped_by: JSON.stringify(progress.skipped), page_cap_hit: null };
}

/** How far a crawl is: the pages done of those it will read (found, up to max_pages). */
const crawlFraction = (progress: CrawlProgress, maxPages: number) =>
  progress.done / Math.max(Math.min(progress.found, maxPages), 1);

/** The report of a crawl that has not fetched anything yet (a new source, or a restarted crawl). */
const crawlNotStarted = () => crawlReport({ done: 0, found: 1, skipped: noSkippedPages() });

/** A website source's columns as a crawl (the first, or a re-crawl) is queued. */
const crawlQueued = () =>
  ({
    status: 'processing',
    error_message: null,
    progress: 0,
    pages_done: 0,
    pages_found: 1,
    ...crawlNotStarted(),
  }) satisfies Partial<SourceRow>;

interface StorageRoom {
  accountId: string;
  /** bytes the account's usage counts now that this source's passages replace (its upload, or the crawl before) */
  freed: number;
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
}

export class IngestionService {
  private readonly uploadDir: string;
  private readonly repo: KnowledgeRepo;
  private readonly knowledge: KnowledgeService;
  private readonly agents: AgentsService;
  private readonly jobs: JobQueue;
  private readonly parsers: ParserPool;
  private readonly options: IngestionOptions;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;

  constructor({ repo, knowledge, agents, jobs, parsers, options, clock, log }: IngestionDeps) {
    this.repo = repo;
    this.knowledge = knowledge;
    this.agents = agents;
    this.jobs = jobs;
    this.parsers = parsers;
    this.options = options;
    this.clock = clock;
    this.log = log;
    this.uploadDir = path.join(options.dataDir, 'uploads');
    mkdirSync(this.uploadDir, { recursive: true, mode: 0o700 });
    jobs.register(INGEST_JOB, (job, ctx) => this.runJob(job, ctx));
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
    this.repo.deleteSource(source.id);
    if (source.stored_path) await rm(path.join(this.uploadDir, source.stored_path), { force: true });
    this.options.freedSpace?.();
  }

  /**
   * Crawls a website source again with its settings. The passages of the last crawl keep answering
   * until the new crawl completes and replaces them; if it fails, they stay (and the source says
   * the re-crawl failed). 409 while the source is being processed.
   */
  recrawl(user: AuthUser, sourceId: string): SourceRow {
    const source = this.knowledge.ownedSource(user, sourceId);
    if (source.type !== 'website')
      throw badRequest('Only website sources can be crawled again; upload a file again to replace it');
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
      };
      this.assertQueueRoom(user.id);
      this.repo.updateSource(source.id, { ...crawlQueued(), options: JSON.stringify(options), updated_at: now });
      this.jobs.enqueue(INGEST_JOB, source.id, { owner: user.id });
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
        await this.fail(source, `Processing did not finish within ${Math.round(cap / 60_000)} minutes`);
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

  private async runJob(job: JobRow, { signal, attempt, maxAttempts }: JobContext): Promise<void> {
    const source = this.repo.findSource(job.subject_id);
    if (source?.status !== 'processing') return;
    if (attempt > maxAttempts) {
      // the last attempt was cut short by a crash (a try that failed on its own recorded last_error)
      await this.fail(source, crashedFailure(source.type, maxAttempts, job.last_error === null));
      return;
    }
    try {
      if (source.type === 'file') await this.ingestFile(source, signal);
      else if (source.type === 'website') await this.ingestWebsite(source, signal);
    } catch (err) {
      if (signal.aborted) throw err; // cancelled or shutting down: the queue knows what to do
      if (err instanceof ParseError || err instanceof CrawlError || err instanceof StorageLimitError) {
        await this.fail(source, err.message);
        return;
      }
      // unexpected: retried by the queue with backoff; after the last attempt the source says so
      // (the queue logs the error itself), so it never stays `processing`
      if (attempt >= maxAttempts) await this.fail(source, unexpectedFailure(maxAttempts));
      throw err;
    }
  }

  private async ingestFile(source: SourceRow, signal: AbortSignal): Promise<void> {
    const file = path.join(this.uploadDir, source.stored_path ?? '');
    // the text read a slice at a time (from the file itself for plain text): a 100 MB text is never
    // one string, nor decoded in one go on the event loop
    const parsed = await this.parsers.parseText(file, source.file_type as ParsableType, signal);
    if (signal.aborted) throw new Error('cancelled');
    this.repo.updateSource(source.id, { progress: 0.5, updated_at: isoNow(this.clock) });
    // a job run again after a crash starts over: forget the passages the interrupted run stored
    this.repo.deleteChunksOf(source.id);
    // chunked lazily and stored in batches, yielding between them: a 100 MB text never holds the event loop
    // the upload counts against the storage limit until it is removed, so its passages may take its place
    const room = this.storageRoom(source, source.file_size ?? 0);
    let stored = 0;
    let batch: LocatedChunk[] = [];
    let consumed = 0;
    // progress: characters chunked over bytes of text (exact for ASCII, close enough otherwise)
    const total = Math.max(parsed.bytes, 1);
    const chunker = new Chunker(DEFAULT_CHUNKING, sectionStarts(parsed.marks));
    const locator = new PassageLocator(parsed.marks, { title: parsed.title ?? null });
    for await (const slice of 'utf8' in parsed ? utf8Paragraphs(parsed.utf8) : fileParagraphs(file, parsed.fileFrom)) {
      for (const chunk of chunker.push(slice)) {
        batch.push(locator.locate(chunk));
        consumed += chunk.content.length;
        if (batch.length === CHUNK_BATCH) {
          await this.storeBatch(source, batch, stored, signal, 0.5 + 0.5 * Math.min(consumed / total, 1), room);
          stored += batch.length;
          batch = [];
        }
      }
    }
    for (const chunk of chunker.end()) batch.push(locator.locate(chunk));
    if (batch.length > 0) await this.storeBatch(source, batch, stored, signal, 1, room);
    if (stored + batch.length === 0) throw new ParseError('The document contains no text');
    this.complete(source, { stored_path: null, title: parsed.title ?? null });
    await rm(file, { force: true });
  }

  private async ingestWebsite(source: SourceRow, signal: AbortSignal): Promise<void> {
    const options = websiteOptions(source);
    // a restarted crawl starts over: forget what the interrupted one stored and counted (a
    // re-crawl keeps the passages of the crawl it replaces)
    this.repo.deleteChunksOf(source.id, options.replaces !== undefined ? { above: options.replaces } : {});
    this.repo.updateSource(source.id, crawlNotStarted());
    // a re-crawl's passages may take the place of the ones they replace
    const room = this.storageRoom(source, options.replacedBytes ?? 0);
    let ordinal = 0;
    const result = await crawl(
      source.url!,
      {
        maxPages: options.maxPages ?? 1,
        includePaths: options.includePaths ?? [],
        excludePaths: options.excludePaths ?? [],
        allowPrivate: this.options.allowPrivateUrls,
        signal,
        extractHtml: (html, url, pageSignal) => this.parsers.extractHtml(html, url, pageSignal),
      },
      async (page, progress) => {
        // each passage names its own page (title and URL), for the model and the citations
        const locator = new PassageLocator(page.marks, { title: page.title || null, pageUrl: page.url });
        // cut a batch at a time and stored before the next is cut (storeBatch yields): a 5 MB
        // page's text chunked in one go held the event loop for hundreds of milliseconds
        const chunker = new Chunker(DEFAULT_CHUNKING, sectionStarts(page.marks));
        const pageProgress = crawlFraction(progress, options.maxPages ?? 1);
        let batch: LocatedChunk[] = [];
        const store = async () => {
          await this.storeBatch(source, batch, ordinal, signal, pageProgress, room);
          ordinal += batch.length;
          batch = [];
        };
        for (const chunks of [chunker.push(page.text), chunker.end()]) {
          for (const chunk of chunks) {
            batch.push(locator.locate(chunk));
            if (batch.length === CHUNK_BATCH) await store();
          }
        }
        if (batch.length > 0) await store();
        this.repo.updateSource(source.id, {
          pages_done: progress.done,
          pages_found: progress.found,
          ...crawlReport(progress),
          progress: crawlFraction(progress, options.maxPages ?? 1),
          updated_at: isoNow(this.clock),
        });
      },
    );
    if (signal.aborted) throw new Error('cancelled');
    const report = { ...crawlReport(result), page_cap_hit: result.capHit };
    if (ordinal === 0) {
      // the source fails, but the owner still sees what was skipped (all of it, often)
      this.repo.updateSource(source.id, report);
      throw new CrawlError('No text was found on the website');
    }
    this.repo.transaction(() => {
      if (options.replaces !== undefined) this.repo.deleteChunksOf(source.id, { upTo: options.replaces });
      this.complete(source, {
        pages_done: result.done,
        // the pages found, more than those done when the crawl stopped at max_pages
        pages_found: result.found,
        ...report,
        options: JSON.stringify(crawlSettings(options)),
      });
    });
  }

  /** The source's owner, and the bytes it already counts that its new passages replace. */
  private storageRoom(source: SourceRow, freed: number): StorageRoom {
    return { accountId: this.agents.findById(source.chatbot_id)?.user_id ?? '', freed };
  }

  /**
   * Stores one batch of chunks in one transaction and embeds it; stops if the source is gone, and
   * with StorageLimitError when the batch would take the account past its plan's storage.
   */
  private async storeBatch(
    source: SourceRow,
    parts: NewPassage[],
    firstOrdinal: number,
    signal: AbortSignal,
    progress: number,
    room: StorageRoom,
  ): Promise<void> {
    const rows: ChunkRow[] = [];
    for (let start = 0; start < parts.length; start += STORE_SLICE) {
      if (signal.aborted) throw new Error('cancelled');
      const slice = parts.slice(start, start + STORE_SLICE);
      const stored = this.repo.transaction(() => {
        if (!this.repo.findSource(source.id)) return null;
        this.options.storage.assertIngestRoom(
          room.accountId,
          slice.reduce((sum, p) => sum + Buffer.byteLength(p.content), 0),
          room.freed,
        );
        const inserted = this.repo.insertChunks(source.chatbot_id, source.id, slice, firstOrdinal + start);
        this.repo.updateSource(source.id, {
          progress: Math.min(progress, 0.99),
          updated_at: isoNow(this.clock),
        });
        return inserted;
      });
      if (!stored) throw new Error('cancelled');
      rows.push(...stored);
      // let requests in between slices
      if (start + STORE_SLICE < parts.length) await new Promise((resolve) => setImmediate(resolve));
    }
    await this.knowledge.embedChunks(rows).catch((err) => {
      this.log.warn({ err, sourceId: source.id }, 'embedding failed; the backfill retries later');
      void this.knowledge.scheduleBackfill();
    });
    // let requests in between batches
    await new Promise((resolve) => setImmediate(resolve));
  }

  private complete(source: SourceRow, patch: Partial<SourceRow>): void {
    this.repo.updateSource(source.id, {
      ...patch,
      status: 'completed',
      progress: 1,
      error_message: null,
      updated_at: isoNow(this.clock),
    });
  }

  private async fail(source: SourceRow, message: string): Promise<void> {
    const options = source.type === 'website' ? websiteOptions(source) : {};
    const replaces = options.replaces;
    if (replaces !== undefined) {
      // a failed re-crawl: its own passages go, the previous crawl's stay and keep answering,
      // and so does that crawl's report
      this.repo.transaction(() => {
        this.repo.deleteChunksOf(source.id, { above: replaces });
        this.repo.updateSource(source.id, {
          ...options.previousReport,
          status: 'completed',
          progress: 1,
          error_message: `The last re-crawl failed (${message}); the pages of the crawl before are still used`,
          options: JSON.stringify(crawlSettings(options)),
          updated_at: isoNow(this.clock),
        });
      });
      return;
    }
    this.repo.transaction(() => {
      this.repo.deleteChunksOf(source.id);
      this.repo.updateSource(source.id, {
        status: 'failed',
        error_message: message,
        stored_path: null,
        updated_at: isoNow(this.clock),
      });
    });
    if (source.stored_path) await rm(path.join(this.uploadDir, source.stored_path), { force: true });
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
