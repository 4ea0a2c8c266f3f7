/** The contract of platform/workers (document parsing off the main thread). */

export type ParsableType = 'pdf' | 'docx' | 'xlsx' | 'csv' | 'txt';

/**
 * Where a document's structure changes, at an offset (UTF-16 code units) of its text; a paragraph
 * starts there. Marks are sorted by `at`.
 */
export interface TextMark {
  at: number;
  /** PDF: the page that starts here (1-based) */
  page?: number;
  /** a section starts here, under these headings (outermost first): passages do not run across it */
  headings?: string[];
}

export interface ParseResult {
  text: string;
  /** pages (pdf), sheets (xlsx) or 1 */
  units: number;
  /** the document's own title, when it names one (PDF or DOCX metadata) */
  title?: string;
  marks?: TextMark[];
}

/**
 * What one document being read may hold, heap and buffers (INGEST_MEMORY_MB's default): part of
 * the process's budget of 512 MB of RSS (docs/DEPLOY.md "Memory").
 */
export const DEFAULT_INGEST_MEMORY_MB = 192;

/** The refusal of a document that needs more memory than its task's budget (INGEST_MEMORY_MB). */
export const OUT_OF_MEMORY_MESSAGE = 'The document needs more memory than allowed';

/** A document could not be parsed; the message is user-facing (goes to the source's error_message). */
export class ParseError extends Error {
  override name = 'ParseError';
}

/**
 * A document's text for reading in slices (ParserPool.parseText): its UTF-8 bytes, or, for a text
 * file that already is its text, the byte where that text starts in the file. `bytes` is its size.
 */
export type ParsedText = { units: number; bytes: number; title?: string; marks: TextMark[] } & (
  | { utf8: Buffer }
  | { fileFrom: number }
);

/** A web page read into blocks (platform/text/html-text.ts htmlBlocks). */
export interface HtmlDocument {
  title: string;
  /** `key`: the block's RepeatedBlocks key (platform/text/blocks.ts blockKey), for blocks that are not headings */
  blocks: Array<{ text: string; headings: string[]; heading?: boolean; key?: string }>;
  links: string[];
}

export interface ParserPool {
  /** Parses the file at `path` in a worker thread. Rejects with ParseError (bad/encrypted/empty/bomb/timeout). */
  parse(path: string, type: ParsableType, signal?: AbortSignal): Promise<ParseResult>;
  /**
   * The same, for a caller that reads the text in slices (a 100 MB text is then never one string,
   * nor held on both sides of the thread boundary): UTF-8 bytes moved from the worker, or for a
   * .txt file that already is its text, where in the file it starts.
   */
  parseText(path: string, type: ParsableType, signal?: AbortSignal): Promise<ParsedText>;
  /** A web page's blocks and links, read in a worker thread (rejects with ParseError on timeout). */
  extractHtml(html: string, url: string, signal?: AbortSignal): Promise<HtmlDocument>;
  close(): Promise<void>;
}
