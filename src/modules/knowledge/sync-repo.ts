import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.js';
import { chunks, type SourcePageRow, type SourceSyncRow, sourcePages, sourceSyncs } from './tables.js';

/** the syncs kept per source (the newest) */
const SYNCS_KEPT = 10;

/** The pages a website source holds and the record of its syncs (website-sync.ts). */
export class SyncRepo {
  constructor(private readonly db: Db) {}

  pagesOf(sourceId: string): SourcePageRow[] {
    return this.db.select().from(sourcePages).where(eq(sourcePages.source_id, sourceId)).all();
  }

  savePage(row: SourcePageRow): void {
    const { source_id: _source, page_key: _key, ...fields } = row;
    this.db
      .insert(sourcePages)
      .values(row)
      .onConflictDoUpdate({ target: [sourcePages.source_id, sourcePages.page_key], set: fields })
      .run();
  }

  /** A page read again and found unchanged: when it was last asked for. */
  touchPage(sourceId: string, key: string, fetchedAt: string): void {
    this.db
      .update(sourcePages)
      .set({ fetched_at: fetchedAt })
      .where(and(eq(sourcePages.source_id, sourceId), eq(sourcePages.page_key, key)))
      .run();
  }

  deletePages(sourceId: string, keys: string[]): void {
    if (keys.length === 0) return;
    this.db
      .delete(sourcePages)
      .where(and(eq(sourcePages.source_id, sourceId), inArray(sourcePages.page_key, keys)))
      .run();
  }

  /** Forgets every page (a new first crawl: what it finds is the source's pages). */
  clearPages(sourceId: string): void {
    this.db.delete(sourcePages).where(eq(sourcePages.source_id, sourceId)).run();
  }

  /** The highest ordinal of the source's passages (-1 with none): a sync's passages come after. */
  maxOrdinal(sourceId: string): number {
    return (
      this.db
        .select({ n: sql<number | null>`max(${chunks.ordinal})` })
        .from(chunks)
        .where(eq(chunks.source_id, sourceId))
        .get()?.n ?? -1
    );
  }

  /** A page's text as its passages up to `upTo` hold it, in order (the change summary's "before"). */
  pageText(sourceId: string, pageUrl: string, upTo: number): string {
    return this.db
      .select({ content: chunks.content })
      .from(chunks)
      .where(and(eq(chunks.source_id, sourceId), eq(chunks.page_url, pageUrl), sql`${chunks.id} <= ${upTo}`))
      .orderBy(asc(chunks.ordinal))
      .all()
      .map((r) => r.content)
      .join('\n');
  }

  /** Records a sync and keeps only the newest few of the source. */
  recordSync(row: SourceSyncRow): void {
    this.db.insert(sourceSyncs).values(row).run();
    const kept = this.db
      .select({ finished_at: sourceSyncs.finished_at })
      .from(sourceSyncs)
      .where(eq(sourceSyncs.source_id, row.source_id))
      .orderBy(desc(sourceSyncs.finished_at))
      .limit(1)
      .offset(SYNCS_KEPT - 1)
      .get();
    if (kept)
      this.db
        .delete(sourceSyncs)
        .where(and(eq(sourceSyncs.source_id, row.source_id), lt(sourceSyncs.finished_at, kept.finished_at)))
        .run();
  }

  syncsOf(sourceId: string): SourceSyncRow[] {
    return this.db
      .select()
      .from(sourceSyncs)
      .where(eq(sourceSyncs.source_id, sourceId))
      .orderBy(desc(sourceSyncs.finished_at), desc(sourceSyncs.id))
      .all();
  }
}
