/**
 * What a PDF page carries besides its text, found on the lines pdf-text.ts rebuilt: running
 * headers and footers (with their page numbers, which may sit at either end of the line, and
 * which may change per chapter: "Chapter 2: R Basics 5", "30 gnuplot 5.4" on even pages and
 * "gnuplot 5.4 31" on odd ones), bare page numbers, and the pages of a table of contents or an
 * index. Pure functions of the lines; nothing here reads a PDF.
 */

export interface Line {
  text: string;
  x: number;
  y: number;
  xEnd: number;
  size: number;
}

/** the lines looked at, at the top and at the bottom of each page, for running headers and footers */
const EDGE_LINES = 2;
/** dot leaders of a table of contents: "Resetting the router ........ 14" */
export const DOT_LEADER = /(?:\.\s?){4,}\s*(?:\d+|[ivxlc]+)?\s*$|…{2,}|(?:\s\.){4,}/i;
export const CONTENTS_HEADING =
  /^(?:table of )?contents$|^inhalt(?:sverzeichnis)?$|^sommaire$|^table des mati[eè]res$/i;
/** a short line naming a table of contents or an index, as a heading or in a running header */
const REFERENCE_WORD = /\b(?:contents|index|inhalt(?:sverzeichnis)?|sommaire|table des mati[eè]res|register)\b/i;
/** a line that is only a page number: "12", "Page 12", "12 / 40", "Page 3 of 12", "- 4 -", "iv" */
const PAGE_NUMBER = /^(?:page\s*)?[-–—]?\s*(?:\d{1,4}|[ivxlc]{1,6})\s*[-–—]?(?:\s*(?:of|\/|von|de)\s*\d{1,4})?$/i;
/** a page number at the start or the end of a header line: "12 gnuplot 5.4", "Chapter 2: R Basics 5" */
const ROMAN = '(?:x{0,3}(?:ix|iv|v?i{1,3}|v)|x{1,3})';
const LEADING_NUMBER = new RegExp(`^(?:page\\s*)?(?:\\d{1,4}|${ROMAN})\\s+(?=\\S)`, 'i');
const TRAILING_NUMBER = new RegExp(`(?<=\\S)\\s+(?:page\\s*)?(?:\\d{1,4}|${ROMAN})$`, 'i');
/** a line ending in a page reference or a list of them: "Copyright 21", "crossprod 22, 24" */
const ENDS_IN_PAGE_REF = /\S\s+(?:\d{1,4}|[ivxlc]{1,6})(?:\s*[-–]\s*\d{1,4})?(?:,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*$/i;

const normalise = (text: string) => text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
/** the header's text without the page number at either end */
const headerKey = (text: string) => normalise(text.replace(LEADING_NUMBER, '').replace(TRAILING_NUMBER, ''));
const hasPageNumber = (text: string) => LEADING_NUMBER.test(text) || TRAILING_NUMBER.test(text);

/**
 * The lines of each page that are text: without running headers and footers, bare page numbers,
 * and tables of contents and indexes (their dot-leader lines, or the whole page when it is one).
 */
export function withoutPageNoise(pages: Line[][]): Line[][] {
  const running = runningKeys(pages);
  const edgeCounts = edgeKeyCounts(pages);
  const top = band(pages, 'top');
  const bottom = band(pages, 'bottom');
  const titles = headingTitles(pages);
  return pages.map((lines) => {
    const edges = new Set(edgeLines(lines));
    const outer = outermost(lines);
    const kept = lines.filter((line) => {
      const text = line.text;
      if (PAGE_NUMBER.test(text) && text.length <= 20) return false;
      // the header's text (in the header's size: a title set large stays) anywhere on the page
      if (isRunning(running, normalise(text), line)) return false;
      if (!edges.has(line)) return true;
      const key = headerKey(text);
      if (isRunning(running, key, line)) return false;
      // in the header or footer band, set apart from the text: a header that changes per chapter
      const inBand =
        (line === outer.top && top !== undefined && Math.abs(line.y - top) <= 2 && outer.topApart) ||
        (line === outer.bottom && bottom !== undefined && Math.abs(line.y - bottom) <= 2 && outer.bottomApart);
      // with a page number, on two pages or more, or a chapter's title repeated (a chapter of two pages)
      return !(inBand && (hasPageNumber(text) || (edgeCounts.get(key) ?? 0) >= 2 || titles.has(sectionKey(text))));
    });
    return referencePage(lines, pages.length) ? referenceFree(kept) : kept;
  });
}

/**
 * Lines that repeat (page numbers aside) at the top or bottom of at least half the pages, and at
 * least three; with their font size.
 */
function runningKeys(pages: Line[][]): Map<string, number> {
  const counts = edgeKeyCounts(pages);
  const needed = Math.max(3, Math.ceil(pages.length * 0.5));
  // the size the header is set in most often (a title with the same words may be set larger once)
  const sizes = new Map<string, Map<number, number>>();
  for (const lines of pages)
    for (const line of edgeLines(lines))
      for (const key of new Set([normalise(line.text), headerKey(line.text)])) {
        if (key === '' || (counts.get(key) ?? 0) < needed) continue;
        const bySize = sizes.get(key) ?? new Map<number, number>();
        const size = Math.round(line.size * 2) / 2;
        bySize.set(size, (bySize.get(size) ?? 0) + 1);
        sizes.set(key, bySize);
      }
  const running = new Map<string, number>();
  for (const [key, bySize] of sizes) running.set(key, [...bySize].sort((a, b) => b[1] - a[1])[0]![0]);
  return running;
}

function isRunning(running: Map<string, number>, key: string, line: Line): boolean {
  const size = running.get(key);
  return size !== undefined && Math.abs(line.size - size) <= size * 0.15;
}

/** a heading's words without its number: "3. Programming with libbzip2" -> "programming with libbzip2" */
const sectionKey = (text: string) =>
  normalise(text.replace(/^(?:chapter|part|appendix)?\s*(?:\d+|[ivxlc]+|[A-Z])(?:\.\d+)*\.?:?\s+/i, ''));

/** the texts of lines set clearly larger than most (chapter and section titles), numbers aside */
function headingTitles(pages: Line[][]): Set<string> {
  const sizes = pages
    .flat()
    .map((l) => l.size)
    .sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 10;
  const titles = new Set<string>();
  for (const lines of pages)
    for (const l of lines) if (l.size >= median * 1.3 && l.text.length <= 120) titles.add(sectionKey(l.text));
  titles.delete('');
  return titles;
}

/** pages each edge line's text (page numbers aside) is on */
function edgeKeyCounts(pages: Line[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const lines of pages) {
    const seen = new Set<string>();
    for (const line of edgeLines(lines)) {
      seen.add(normalise(line.text));
      seen.add(headerKey(line.text));
    }
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** the top-most and bottom-most lines of a page, by position */
function edgeLines(lines: Line[]): Line[] {
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  return [...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)];
}

interface Outermost {
  top?: Line;
  bottom?: Line;
  /** the line is set apart from the rest by a gap clearly wider than the page's line spacing */
  topApart: boolean;
  bottomApart: boolean;
}

function outermost(lines: Line[]): Outermost {
  if (lines.length < 3) return { topApart: false, bottomApart: false };
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  const gaps: number[] = [];
  for (let i = 1; i < byHeight.length; i++) {
    const dy = byHeight[i - 1]!.y - byHeight[i]!.y;
    if (dy > 1) gaps.push(dy);
  }
  gaps.sort((a, b) => a - b);
  // the lower median: on a page of three lines (a chapter's last), the header's gap is one of two
  const spacing = gaps[Math.floor((gaps.length - 1) / 2)] ?? 14;
  const top = byHeight[0]!;
  const bottom = byHeight[byHeight.length - 1]!;
  const nextBelow = byHeight.find((l) => l.y < top.y - 1);
  const nextAbove = [...byHeight].reverse().find((l) => l.y > bottom.y + 1);
  return {
    top,
    bottom,
    topApart: nextBelow !== undefined && top.y - nextBelow.y >= spacing * 1.5,
    bottomApart: nextAbove !== undefined && nextAbove.y - bottom.y >= spacing * 1.5,
  };
}

/**
 * The height of the header (or footer) band: where the outermost line, set apart from the text,
 * sits on many pages (at least three, and a third of them). Text that merely starts at the same
 * margin on every page is not set apart, so it makes no band.
 */
function band(pages: Line[][], edge: 'top' | 'bottom'): number | undefined {
  const counts = new Map<number, number>();
  for (const lines of pages) {
    const o = outermost(lines);
    const line = edge === 'top' ? o.top : o.bottom;
    if (!line || !(edge === 'top' ? o.topApart : o.bottomApart)) continue;
    const y = Math.round(line.y / 2) * 2;
    counts.set(y, (counts.get(y) ?? 0) + 1);
  }
  let best: number | undefined;
  let most = 0;
  for (const [y, n] of counts) if (n > most) [best, most] = [y, n];
  return most >= Math.max(3, Math.ceil(pages.length / 3)) ? best : undefined;
}

/**
 * A page of a table of contents or an index: one that names itself so (in a heading or its running
 * header) and lists entries with page references, or lists dot-leader entries whose page numbers
 * run upwards (a price list with dot leaders has no such order).
 */
function referencePage(lines: Line[], pageCount: number): boolean {
  if (lines.length < 3) return false;
  const leaders = lines.filter((l) => DOT_LEADER.test(l.text));
  const refs = lines.filter((l) => DOT_LEADER.test(l.text) || ENDS_IN_PAGE_REF.test(l.text));
  const named = lines.some((l) => l.text.length <= 60 && REFERENCE_WORD.test(l.text));
  // page references point into the document: a table under "Consumer Price Index" ends in figures
  const last = refs.map((l) => Number(/(\d+)\s*$/.exec(l.text)?.[1] ?? 0));
  const inDocument = last.filter((n) => n <= pageCount * 1.2 + 20).length >= last.length * 0.8;
  if (named && (leaders.length >= 2 || (refs.length >= lines.length * 0.4 && inDocument))) return true;
  if (leaders.length < 3) return false;
  const numbers = leaders.map((l) => Number(/(\d+)\s*$/.exec(l.text)?.[1] ?? Number.NaN)).filter((n) => n >= 0);
  let upwards = 0;
  for (let i = 1; i < numbers.length; i++) if (numbers[i]! >= numbers[i - 1]!) upwards++;
  return numbers.length >= 3 && upwards >= (numbers.length - 1) * 0.8;
}

/**
 * A reference page without its entries: the lines with dot leaders or page references, an index's
 * letters, the contents or index heading, and the lines between two entries (the first line of an
 * entry set on two). Text that follows the entries on the same page (a chapter starting below its
 * table of contents) stays: three lines in a row without a reference, or a line set larger than
 * the entries, end the entries, and after that only a dot-leader line or a heading starts them
 * again (formulas end in numbers too).
 */
function referenceFree(lines: Line[]): Line[] {
  const strong = (l: Line) =>
    DOT_LEADER.test(l.text) ||
    CONTENTS_HEADING.test(l.text) ||
    (l.text.length <= 60 && REFERENCE_WORD.test(l.text) && !/[.!?:;,]$/.test(l.text));
  const weak = (l: Line) => ENDS_IN_PAGE_REF.test(l.text) || l.text.length <= 2;
  const sizes = lines
    .filter((l) => strong(l) || weak(l))
    .map((l) => l.size)
    .sort((a, b) => a - b);
  const entrySize = sizes[Math.floor(sizes.length / 2)] ?? 10;
  const larger = (l: Line) => l.size > entrySize * 1.15;
  // a page of entries only (an index's next page) is entries from its first line
  let inEntries = !lines.some((l) => larger(l) && !strong(l) && !weak(l));
  const dropped = new Set<Line>();
  let between: Line[] = [];
  for (const line of lines) {
    if (strong(line) || (inEntries && weak(line))) {
      for (const l of between) dropped.add(l);
      between = [];
      dropped.add(line);
      inEntries = true;
    } else if (inEntries) {
      between.push(line);
      if (between.length >= 3 || larger(line)) {
        inEntries = false;
        between = [];
      }
    }
  }
  return lines.filter((l) => !dropped.has(l));
}
