import type { TextMark } from '../../platform/workers/types.js';
import type { TextChunk } from './chunker.js';

/** Where a passage comes from inside its source: stored with it, given to the model and cited. */
export interface PassageContext {
  title: string | null;
  page_url: string | null;
  page: number | null;
  /** the headings above the passage, outermost first, joined by " > " */
  heading: string | null;
}

export type LocatedChunk = TextChunk & PassageContext;

/** a heading this close after a passage's start names the passage (a short section run on into the next: chunker.ts) */
const LEADING_HEADING_CHARS = 200;

/**
 * Gives each passage of one document (or web page) its context from the document's marks: the PDF
 * page its start is on, and the headings in force there. Passages must come in order, as the
 * chunker yields them; the marks are read once, front to back, so a 300-page manual costs nothing.
 */
export class PassageLocator {
  private next = 0;
  private page: number | null = null;
  private headings: string[] = [];

  constructor(
    private readonly marks: readonly TextMark[],
    private readonly fixed: { title?: string | null; pageUrl?: string | null } = {},
  ) {}

  locate(chunk: TextChunk): LocatedChunk {
    // everything up to the passage's start
    while (this.next < this.marks.length && this.marks[this.next]!.at <= chunk.start)
      this.apply(this.marks[this.next++]!);
    let headings = this.headings;
    // a heading right after the start (the passage begins with a one-line section): that heading names it
    for (let i = this.next; i < this.marks.length; i++) {
      const mark = this.marks[i]!;
      if (mark.at > chunk.start + LEADING_HEADING_CHARS || mark.at >= chunk.end) break;
      if (mark.headings) headings = mark.headings;
    }
    return {
      ...chunk,
      title: this.fixed.title ?? null,
      page_url: this.fixed.pageUrl ?? null,
      page: this.page,
      heading: headings.length > 0 ? headings.join(' > ') : null,
    };
  }

  private apply(mark: TextMark): void {
    if (mark.page !== undefined) this.page = mark.page;
    if (mark.headings) this.headings = mark.headings;
  }
}

/** The offsets where sections start, for the chunker. */
export function sectionStarts(marks: readonly TextMark[]): number[] {
  return marks.filter((m) => m.headings).map((m) => m.at);
}
