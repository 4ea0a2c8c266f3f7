/** The contract of platform/workers (document parsing off the main thread). */

export type ParsableType = 'pdf' | 'docx' | 'xlsx' | 'csv' | 'txt';

export interface ParseResult {
  text: string;
  /** pages (pdf), sheets (xlsx) or 1 */
  units: number;
}

/** A document could not be parsed; the message is user-facing (goes to the source's error_message). */
export class ParseError extends Error {
  override name = 'ParseError';
}

export interface ParserPool {
  /** Parses the file at `path` in a worker thread. Rejects with ParseError (bad/encrypted/empty/bomb/timeout). */
  parse(path: string, type: ParsableType, signal?: AbortSignal): Promise<ParseResult>;
  close(): Promise<void>;
}
