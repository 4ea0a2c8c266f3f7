import type { TextMark } from '../workers/types.js';
import { type Line, withoutPageNoise } from './pdf-noise.js';

/**
 * The readable text of a PDF from the text items pdf.js gives per page: lines rebuilt from the
 * items' positions, running headers and footers and table-of-contents lines dropped, hyphenated
 * line ends rejoined, lines of a paragraph joined with a space (short lines such as table rows or
 * list items keep their line breaks), headings told apart by their font size. Pure: the worker
 * (workers/parse-pdf.ts) reads the items with pdf.js and calls this.
 */

export interface PdfItem {
  str: string;
  /** position of the text's baseline start (PDF user space: y grows upwards) */
  x: number;
  y: number;
  width: number;
  /** font size, roughly */
  height: number;
  /** pdf.js says a line ends after this item */
  hasEOL?: boolean;
}

export interface PdfText {
  text: string;
  marks: TextMark[];
}

/** a line is a heading when its font is this much larger than the body text's, and it is short */
const HEADING_SCALE = 1.15;
const HEADING_MAX_CHARS = 120;

export function pdfPagesToText(pages: PdfItem[][]): PdfText {
  const cleaned = withoutPageNoise(pages.map(toLines));
  const bodySize = typicalSize(cleaned);
  const linesByPage = cleaned.map((lines) => joinWrappedHeadings(lines, bodySize));
  const headingSizes = distinctHeadingSizes(linesByPage, bodySize);
  const titleOnly = titlePageHeadings(linesByPage, bodySize);

  const out: string[] = [];
  const marks: TextMark[] = [];
  let length = 0;
  let headings: string[] = [];
  let headingLevels: number[] = [];
  // the paragraph being built, which may continue from one page onto the next
  let paragraph = '';
  let lastLine: Line | undefined;
  let lineWidth = 0;

  const flush = () => {
    if (!paragraph.trim()) {
      paragraph = '';
      return;
    }
    if (out.length > 0) {
      out.push('\n\n');
      length += 2;
    }
    out.push(paragraph);
    length += paragraph.length;
    paragraph = '';
  };
  /** the offset the next paragraph will start at */
  const nextParagraphAt = () => (out.length > 0 ? length + 2 : 0);

  linesByPage.forEach((lines, pageIndex) => {
    const kept = lines;
    lineWidth = medianLength(kept) || lineWidth;
    const gap = typicalGap(kept);
    let pageMarked = false;
    const markPage = (at: number) => {
      if (pageMarked) return;
      pageMarked = true;
      const last = marks[marks.length - 1];
      if (last && last.at === at && last.page === undefined) last.page = pageIndex + 1;
      else marks.push({ at, page: pageIndex + 1 });
    };
    kept.forEach((line, i) => {
      const level = titleOnly.has(line) ? 0 : headingLevel(line, bodySize, headingSizes);
      if (level > 0) {
        flush();
        // a heading replaces the headings of its level and below
        // (new arrays: the marks keep the ones they were given)
        let keep = headingLevels.length;
        while (keep > 0 && headingLevels[keep - 1]! >= level) keep--;
        headings = [...headings.slice(0, keep), line.text.trim()];
        headingLevels = [...headingLevels.slice(0, keep), level];
        const at = nextParagraphAt();
        markPage(at);
        const last = marks[marks.length - 1]!;
        if (last.at === at) last.headings = headings;
        else marks.push({ at, headings });
        paragraph = line.text.trim();
        flush();
        lastLine = undefined;
        return;
      }
      const previous = i > 0 ? kept[i - 1] : lastLine;
      const samePage = i > 0;
      const newParagraph =
        !paragraph ||
        !previous ||
        (samePage && (previous.y - line.y > gap * 1.6 || line.y > previous.y + line.size)) ||
        // across a page break a paragraph goes on only when the page ended mid-sentence
        (!samePage && /[.!?:]["')\]]?$/.test(previous.text)) ||
        Math.abs(line.size - previous.size) > bodySize * 0.1;
      if (newParagraph) {
        flush();
        markPage(nextParagraphAt());
        paragraph = line.text.trim();
      } else {
        if (!samePage) markPage(length + (out.length > 0 ? 2 : 0) + paragraph.length);
        paragraph = joinLines(paragraph, line.text.trim(), lineWidth);
      }
      lastLine = line;
    });
  });
  flush();
  return { text: out.join(''), marks };
}

/**
 * The next line of a paragraph: a word hyphenated at the line end is rejoined ("identi-" "cal");
 * a line that filled the column continues with a space; a short line (a row, a list item, the
 * end of a paragraph) keeps its line break.
 */
function joinLines(paragraph: string, next: string, lineWidth: number): string {
  if (/\p{L}-$/u.test(paragraph) && /^\p{Ll}/u.test(next)) return paragraph.slice(0, -1) + next;
  const lastLine = paragraph.slice(paragraph.lastIndexOf('\n') + 1);
  const wrapped = /^\p{Ll}/u.test(next) || (lastLine.length >= lineWidth * 0.6 && !/[.!?:;]["')\]]?$/.test(lastLine));
  return paragraph + (wrapped ? ' ' : '\n') + next;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** The page's items as lines, in the order pdf.js gives them (the content stream's order). */
function toLines(items: PdfItem[]): Line[] {
  const lines: Line[] = [];
  let line: Line | undefined;
  let endsLine = false;
  for (const item of items) {
    if (!item.str) {
      if (item.hasEOL) endsLine = true;
      continue;
    }
    const size = Math.abs(item.height) || 10;
    const sameLine =
      line && !endsLine && Math.abs(item.y - line.y) < Math.min(size, line.size) * 0.5 && item.x >= line.xEnd - size;
    if (line && sameLine) {
      const gap = item.x - line.xEnd;
      const needsSpace = gap > size * 0.15 && !/\s$/.test(line.text) && !/^\s/.test(item.str);
      line.text += (needsSpace ? ' ' : '') + item.str;
      line.xEnd = Math.max(line.xEnd, item.x + item.width);
      line.size = Math.max(line.size, size);
    } else {
      if (line?.text.trim()) lines.push(line);
      line = { text: item.str, x: item.x, y: item.y, xEnd: item.x + item.width, size };
    }
    endsLine = item.hasEOL === true;
  }
  if (line?.text.trim()) lines.push(line);
  // a pilcrow ending a line is a web page's permalink mark, printed along with the page; control
  // characters are a symbol font's glyphs without a text meaning ("\b" for an arrow)
  for (const l of lines)
    l.text = l.text.replace(/\s+/g, ' ').replace(CONTROL_CHARACTERS, '').replace(/\s*¶$/, '').trim();
  return lines.filter((l) => l.text);
}

/**
 * A heading set on two lines ("7.32 How can I capture or ignore errors in a long" / "simulation?")
 * as one line: the next line has the same font size and follows at heading line spacing.
 */
function joinWrappedHeadings(lines: Line[], bodySize: number): Line[] {
  const out: Line[] = [];
  for (const line of lines) {
    const last = out[out.length - 1];
    const wrapped =
      last !== undefined &&
      last.size >= bodySize * HEADING_SCALE &&
      round(last.size) === round(line.size) &&
      line.y < last.y &&
      last.y - line.y <= last.size * 1.7 &&
      !/[.!:;]$/.test(last.text) &&
      last.text.length + line.text.length < HEADING_MAX_CHARS;
    if (!wrapped) {
      out.push(line);
      continue;
    }
    const hyphenated = /\p{L}-$/u.test(last.text) && /^\p{Ll}/u.test(line.text);
    out[out.length - 1] = {
      text: hyphenated ? last.text.slice(0, -1) + line.text : `${last.text} ${line.text}`,
      x: Math.min(last.x, line.x),
      y: line.y,
      xEnd: Math.max(last.xEnd, line.xEnd),
      size: last.size,
    };
  }
  return out;
}

/**
 * Lines of a title page set large that are not sections: the authors, a subtitle, an affiliation.
 * On the first page of a document of several pages, a heading-shaped line other than the title
 * (the first of the largest) is text when no later page uses its size for a heading, or when it
 * reads as a list of names ("Kurt Hornik and the R Core Team"); it would otherwise become the
 * parent section of every passage up to the first real heading.
 */
function titlePageHeadings(pages: Line[][], bodySize: number): Set<Line> {
  const first = pages[0] ?? [];
  const candidates = first.filter((l) => isHeadingShaped(l, bodySize));
  if (pages.length < 2 || candidates.length < 2) return new Set();
  const largest = Math.max(...candidates.map((l) => round(l.size)));
  const title = candidates.find((l) => round(l.size) === largest);
  const laterSizes = new Set<number>();
  for (const lines of pages.slice(1))
    for (const l of lines) if (isHeadingShaped(l, bodySize)) laterSizes.add(round(l.size));
  return new Set(
    candidates.filter(
      (l) => l !== title && (!laterSizes.has(round(l.size)) || readsAsNames(l.text) || DATE.test(l.text)),
    ),
  );
}

/** "September 3, 2010", "3 September 2010", "June 2022" */
const DATE = /^(?:\d{1,2}\.? )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?: \d{1,2},?)? \d{4}$/i;

const NAME_JOINERS = new Set(['and', 'the', 'of', 'by', 'with', '&', 'van', 'von', 'de', 'der', 'da', 'la', 'le']);

/** "Kurt Hornik and the R Core Team", "W. N. Venables, D. M. Smith": capitalised words and joiners, no digits */
function readsAsNames(text: string): boolean {
  if (/\d/.test(text)) return false;
  const words = text.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  if (words.length < 2 || words.length > 14) return false;
  return words.every((w) => NAME_JOINERS.has(w.toLowerCase()) || /^\p{Lu}/u.test(w));
}

/** the font size of most of the text (by characters) */
function typicalSize(pages: Line[][]): number {
  const bySize = new Map<number, number>();
  for (const lines of pages)
    for (const l of lines) bySize.set(round(l.size), (bySize.get(round(l.size)) ?? 0) + l.text.length);
  let best = 10;
  let most = -1;
  for (const [size, chars] of bySize) if (chars > most) [best, most] = [size, chars];
  return best;
}

/** the sizes used by heading lines, largest first: level 1, 2, 3… */
function distinctHeadingSizes(pages: Line[][], bodySize: number): number[] {
  const sizes = new Set<number>();
  for (const lines of pages) for (const l of lines) if (isHeadingShaped(l, bodySize)) sizes.add(round(l.size));
  return [...sizes].sort((a, b) => b - a).slice(0, 6);
}

function isHeadingShaped(line: Line, bodySize: number): boolean {
  return (
    line.size >= bodySize * HEADING_SCALE &&
    line.text.length <= HEADING_MAX_CHARS &&
    /\p{L}/u.test(line.text) &&
    !/[.,;]$/.test(line.text)
  );
}

function headingLevel(line: Line, bodySize: number, sizes: number[]): number {
  if (!isHeadingShaped(line, bodySize)) return 0;
  return sizes.indexOf(round(line.size)) + 1;
}

/** the usual distance between two lines of a paragraph on this page */
function typicalGap(lines: Line[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const dy = lines[i - 1]!.y - lines[i]!.y;
    if (dy > 0) gaps.push(dy);
  }
  if (gaps.length === 0) return 14;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

function medianLength(lines: Line[]): number {
  if (lines.length === 0) return 0;
  const lengths = lines.map((l) => l.text.length).sort((a, b) => a - b);
  return lengths[Math.floor(lengths.length / 2)]!;
}

const round = (n: number) => Math.round(n * 2) / 2;
