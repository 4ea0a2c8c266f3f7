import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { JobContext } from '../../platform/jobs/queue.js';
import type { JobRow } from '../../platform/jobs/tables.js';
import { ParseError, type ParsableType, type ParserPool } from '../../platform/workers/types.js';
import { EMBEDDING_BATCH_SIZE } from '../../providers/embeddings/index.js';
import type { AgentsService } from '../agents/index.js';
import { Chunker, DEFAULT_CHUNKING } from './chunker.js';
import { crawlFraction, crawlNotStarted, crawlReport } from './crawl-report.js';
import { crawl, CrawlError } from './crawler.js';
import { fileParagraphs, utf8Paragraphs } from './paragraph-pieces.js';
import { type LocatedChunk, PassageLocator, sectionStarts } from './passage-context.js';
import type { KnowledgeRepo, NewPassage } from './repo.js';
import type { KnowledgeService } from './service.js';
import { StorageLimitError, type StorageQuota } from './storage-quota.js';
import type { ChunkRow, SourceRow } from './tables.js';
import { crawlSettings, websiteOptions } from './website-options.js';
import { recordFailedSync, WebsiteLedger } from './website-sync.js';
import type { SyncRepo } from './sync-repo.js';

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

/** chunks cut per turn of the event loop, stored, then embedded in one request (EMBEDDING_BATCH_SIZE) */
const CHUNK_BATCH = EMBEDDING_BATCH_SIZE;
/** chunks per write transaction, with a turn of the event loop between: each holds it a few ms */
const STORE_SLICE = 16;

interface StorageRoom {
  accountId: string;
  /** bytes the account's usage counts now that this source's passages replace (its upload, or the crawl before) */
  freed: number;
}

export interface IngestJobDeps {
  repo: KnowledgeRepo;
  knowledge: KnowledgeService;
  agents: AgentsService;
  parsers: ParserPool;
  options: { allowPrivateUrls: boolean; storage: StorageQuota };
  clock: Clock;
  log: FastifyBaseLogger;
  /** DATA_DIR/uploads, where a file source waits for its job */
  uploadDir: string;
  syncRepo: SyncRepo;
}

/**
 * The ingestion job of one source (IngestionService queues it as INGEST_JOB): a file parsed in a
 * worker, or a website crawled, then chunked, stored in batches and embedded; a source that cannot
 * be ingested ends `failed` (or, for a re-crawl, keeps the crawl before).
 */
export class IngestJob {
  private readonly repo: KnowledgeRepo;
  private readonly knowledge: KnowledgeService;
  private readonly agents: AgentsService;
  private readonly parsers: ParserPool;
  private readonly options: IngestJobDeps['options'];
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly uploadDir: string;
  private readonly syncRepo: SyncRepo;

  constructor({ repo, knowledge, agents, parsers, options, clock, log, uploadDir, syncRepo }: IngestJobDeps) {
    this.syncRepo = syncRepo;
    this.repo = repo;
    this.knowledge = knowledge;
    this.agents = agents;
    this.parsers = parsers;
    this.options = options;
    this.clock = clock;
    this.log = log;
    this.uploadDir = uploadDir;
  }

  async run(job: JobRow, { signal, attempt, maxAttempts }: JobContext): Promise<void> {
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
    // a re-crawl is a sync: it keeps the passages of the crawl before (ids up to `replaces`)
    const boundary = options.replaces ?? null;
    // a restarted crawl starts over: forget what the interrupted one stored and counted
    this.repo.deleteChunksOf(source.id, boundary !== null ? { above: boundary } : {});
    this.repo.updateSource(source.id, crawlNotStarted());
    // a re-crawl's passages may take the place of the ones they replace
    const room = this.storageRoom(source, options.replacedBytes ?? 0);
    const ledger = new WebsiteLedger(this.syncRepo, source.id, boundary, this.clock);
    let ordinal = boundary === null ? 0 : this.syncRepo.maxOrdinal(source.id) + 1;
    let stored = 0;
    const result = await crawl(
      source.url!,
      {
        maxPages: options.maxPages ?? 1,
        includePaths: options.includePaths ?? [],
        excludePaths: options.excludePaths ?? [],
        allowPrivate: this.options.allowPrivateUrls,
        signal,
        extractHtml: (html, url, pageSignal) => this.parsers.extractHtml(html, url, pageSignal),
        known: ledger.known,
        onUnchanged: (page) => ledger.pageUnchanged(page),
      },
      async (page, progress) => {
        const report = () =>
          this.repo.updateSource(source.id, {
            pages_done: progress.done,
            pages_found: progress.found,
            ...crawlReport(progress),
            progress: crawlFraction(progress, options.maxPages ?? 1),
            updated_at: isoNow(this.clock),
          });
        // an unchanged page's text: neither chunked nor embedded again
        if (!ledger.pageRead(page)) return report();
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
          stored += batch.length;
          batch = [];
        };
        for (const chunks of [chunker.push(page.text), chunker.end()]) {
          for (const chunk of chunks) {
            batch.push(locator.locate(chunk));
            if (batch.length === CHUNK_BATCH) await store();
          }
        }
        if (batch.length > 0) await store();
        report();
      },
    );
    if (signal.aborted) throw new Error('cancelled');
    const report = { ...crawlReport(result), page_cap_hit: result.capHit };
    if (boundary === null && stored === 0) {
      // the source fails, but the owner still sees what was skipped (all of it, often)
      this.repo.updateSource(source.id, report);
      throw new CrawlError('No text was found on the website');
    }
    // a site down for the night, or most pages failing: the sync changes nothing (fail() says why)
    const refusal = boundary === null ? null : ledger.refusal(result);
    if (refusal) throw new CrawlError(refusal);
    const toCheck = boundary === null ? new Map() : await this.answersToCheck(source, ledger.replacedPageUrls(result));
    const now = isoNow(this.clock);
    this.repo.transaction(() => {
      for (const [qaId, reason] of toCheck) this.repo.updateSource(qaId, { check_reason: reason });
      const counts = ledger.commit(
        result,
        (pageUrls) => {
          if (boundary !== null)
            this.repo.deleteChunksOf(source.id, { upTo: boundary, ...(pageUrls === 'all' ? {} : { pageUrls }) });
        },
        boundary === null ? null : (options.syncTrigger ?? 'manual'),
        options.startedAt ?? now,
      );
      this.complete(source, {
        pages_done: result.done,
        // the pages found, more than those done when the crawl stopped at max_pages
        pages_found: result.found,
        ...report,
        options: JSON.stringify(crawlSettings(options)),
        last_synced_at: now,
        ...(boundary === null ? {} : { last_sync: { status: 'completed', error: null, ...counts, finished_at: now } }),
      });
    });
  }

  /**
   * The agent's Q&A answers to check: those whose question retrieval answers from a page this
   * sync changes or removes (before its commit: a removed page's passages are still in). A page
   * that changed may have changed what the owner's answer repeats.
   */
  private async answersToCheck(source: SourceRow, pages: Map<string, string>) {
    const flagged = new Map<string, string>();
    if (pages.size === 0) return flagged;
    const when = isoNow(this.clock).slice(0, 10);
    for (const qa of this.repo.listSources(source.chatbot_id)) {
      if (qa.type !== 'qa' || !qa.qa_question) continue;
      // the page it would cite: the best passage of this website for the question
      const results = await this.knowledge.search(source.chatbot_id, qa.qa_question, 5);
      const cited = results.find((p) => p.sourceId === source.id);
      if (cited?.pageUrl && pages.has(cited.pageUrl))
        flagged.set(
          qa.id,
          `Check this answer: the page ${cited.pageUrl} it answers from ${pages.get(cited.pageUrl!)} on ${when}.`,
        );
    }
    return flagged;
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
    this.repo.transaction(() => {
      this.repo.updateSource(source.id, {
        ...patch,
        status: 'completed',
        progress: 1,
        error_message: null,
        updated_at: isoNow(this.clock),
      });
      // a re-crawl (its options name the crawl it replaces) updates; a first ingestion adds
      const recrawl = source.type === 'website' && websiteOptions(source).replaces !== undefined;
      this.knowledge.sourceChanged(source.chatbot_id, source.id, recrawl ? 'updated' : 'added');
    });
  }

  async fail(source: SourceRow, message: string): Promise<void> {
    const options = source.type === 'website' ? websiteOptions(source) : {};
    const replaces = options.replaces;
    if (replaces !== undefined) {
      // a failed re-crawl: its own passages go, the previous crawl's stay and keep answering,
      // and so does that crawl's report
      this.repo.transaction(() => {
        const now = isoNow(this.clock);
        const failed = recordFailedSync(
          this.syncRepo,
          source.id,
          options.syncTrigger ?? 'manual',
          message,
          options.startedAt ?? now,
          now,
        );
        this.repo.deleteChunksOf(source.id, { above: replaces });
        this.repo.updateSource(source.id, {
          ...options.previousReport,
          status: 'completed',
          progress: 1,
          error_message: `The last re-crawl failed (${message}); the pages of the crawl before are still used`,
          last_synced_at: now,
          last_sync: failed,
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
}
