import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParserPool } from '../../src/platform/workers/pool.js';
import { ParseError, type ParserPool } from '../../src/platform/workers/types.js';

/**
 * PDF text as a reader sees it, read by the real worker (pdf.js): a manual laid out as real ones
 * are, with a running header and footer, a table of contents with dot leaders, headings in a
 * larger font, and words hyphenated at line ends.
 */

const HEADER = 'Acme X200 Router - User Manual';

interface Block {
  heading?: { text: string; size: number };
  lines?: string[];
}

async function manual(pages: Block[][], opts: { title?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (opts.title) doc.setTitle(opts.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  pages.forEach((blocks, index) => {
    const page = doc.addPage([600, 800]);
    page.drawText(HEADER, { x: 40, y: 770, size: 9, font });
    let y = 730;
    for (const block of blocks) {
      if (block.heading) {
        y -= 8;
        page.drawText(block.heading.text, { x: 40, y, size: block.heading.size, font: bold });
        y -= block.heading.size + 8;
      }
      for (const line of block.lines ?? []) {
        page.drawText(line, { x: 40, y, size: 11, font });
        y -= 14;
      }
      y -= 10; // paragraph gap
    }
    page.drawText(`Page ${index + 1} of ${pages.length}`, { x: 270, y: 30, size: 9, font });
  });
  return doc.save();
}

const body = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `Line ${i} of ordinary body text that fills most of the column width here.`);

describe('PDF extraction', () => {
  let dir: string;
  let pool: ParserPool;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-text-'));
    pool = createParserPool({ maxThreads: 1 });
  }, 60_000);
  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  async function read(bytes: Uint8Array, name = 'manual.pdf') {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return pool.parse(file, 'pdf');
  }

  it('rejoins hyphenated line ends, drops running headers, page numbers and the table of contents, and marks pages and headings', async () => {
    const pages: Block[][] = [
      [
        { heading: { text: 'Contents', size: 16 } },
        {
          lines: [
            '1 Getting started ........................................ 2',
            '2 Configuration .......................................... 3',
            '2.1 Resetting the router ................................. 3',
          ],
        },
      ],
      [
        { heading: { text: '1 Getting started', size: 18 } },
        {
          lines: [
            'Unpack the router and connect it to power. The two antennas are identi-',
            'cal, so either one may go on the left or the right side of the case.',
            'The default address is 192.168.8.1 and spare cables cost $4.99 each.',
          ],
        },
        { lines: body(3) },
      ],
      [
        { heading: { text: '2 Configuration', size: 18 } },
        { heading: { text: '2.1 Resetting the router', size: 14 } },
        {
          lines: [
            'Hold the reset button for ten seconds. Firmware v2.3.1 restores the config-',
            'uration from www.acme-example.com/support when the router starts again.',
          ],
        },
      ],
      [{ lines: body(4) }],
    ];
    const result = await read(await manual(pages, { title: 'Acme X200 User Manual' }));
    const text = result.text;

    expect(text).toContain('The two antennas are identical, so either one');
    expect(text).toContain('restores the configuration from www.acme-example.com/support');
    expect(text).toContain('$4.99');
    expect(text).toContain('192.168.8.1');
    expect(text).toContain('v2.3.1');
    // lines of one paragraph are one line of text; the paragraphs stay apart
    expect(text).toContain('Unpack the router and connect it to power. The two antennas');
    expect(text).not.toContain(HEADER);
    expect(text).not.toMatch(/Page \d+ of \d+/);
    expect(text).not.toMatch(/\.{4,}/);
    expect(text).not.toMatch(/^Contents$/m);

    const marks = result.marks ?? [];
    const at = (needle: string) => text.indexOf(needle);
    const pageOf = (offset: number) => marks.filter((m) => m.page !== undefined && m.at <= offset).at(-1)?.page;
    const headingsAt = (offset: number) => marks.filter((m) => m.headings && m.at <= offset).at(-1)?.headings;
    expect(pageOf(at('identical'))).toBe(2);
    expect(pageOf(at('Hold the reset button'))).toBe(3);
    expect(headingsAt(at('Hold the reset button'))).toEqual(['2 Configuration', '2.1 Resetting the router']);
    expect(headingsAt(at('identical'))).toEqual(['1 Getting started']);
    expect(result.title).toBe('Acme X200 User Manual');
  });

  it('drops headers that carry the page number or change per chapter, tables of contents by the page, and keeps a dot-leader price list; joins two-line headings; keeps a title page out of the sections', async () => {
    // laid out as Texinfo and LaTeX books are: even pages "12   Widget Guide 2.0", odd pages
    // "Chapter 2: Prices 13", a chapter's first page without a header, a bare number at its foot
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const bold = await doc.embedFont(StandardFonts.HelveticaBold);
    const chapters: Record<number, string> = {
      3: 'Chapter 1: Setting up',
      5: 'Chapter 1: Setting up',
      7: 'Chapter 2: Prices',
    };
    const pages: Array<Array<{ text: string; size?: number; gap?: number }>> = [
      [
        { text: 'Widget Guide', size: 28 },
        { text: 'Jane Doe and the Widget Team', size: 16, gap: 40 },
        { text: 'March 2024', size: 16, gap: 30 },
      ],
      [
        { text: 'Contents', size: 18 },
        { text: '1 Setting up the widget for the first time in a small office 3' },
        { text: '1.1 Wiring . . . . . . . . . . . . . . . . . . . . . . . . 5' },
        { text: '1.2 Mounting . . . . . . . . . . . . . . . . . . . . . . 5' },
        { text: '2 Prices . . . . . . . . . . . . . . . . . . . . . . . . . . 6' },
        // the text starts below the table of contents, on the same page
        { text: 'Preface', size: 16 },
        { text: 'This guide was written for installers in 2024.' },
        { text: 'It covers 2 models.' },
      ],
      [
        { text: '1 Setting up the widget for the first time', size: 20 },
        { text: 'in a small office', size: 20, gap: 24 },
        ...body(6).map((text) => ({ text })),
      ],
      body(8).map((text) => ({ text })),
      [
        { text: '1.1 Wiring', size: 16 },
        { text: 'Connect the red wire to the terminal marked L1 first.' },
        ...body(4).map((text) => ({ text })),
      ],
      [
        { text: '2 Prices \u00b6', size: 20 },
        { text: 'Basic cable . . . . . . . . . . . . . 25' },
        { text: 'Premium cable . . . . . . . . . . . 15' },
        { text: 'Wall mount . . . . . . . . . . . . . 40' },
      ],
      body(8).map((text) => ({ text })),
      body(8).map((text) => ({ text })),
    ];
    pages.forEach((lines, index) => {
      const n = index + 1;
      const page = doc.addPage([600, 800]);
      if (n >= 4 && n % 2 === 0) {
        page.drawText(String(n), { x: 40, y: 770, size: 9, font });
        page.drawText('Widget Guide 2.0', { x: 260, y: 770, size: 9, font });
      } else if (chapters[n]) {
        page.drawText(chapters[n]!, { x: 40, y: 770, size: 9, font });
        page.drawText(String(n), { x: 540, y: 770, size: 9, font });
      } else if (n === 2 || n === 3) page.drawText(String(n), { x: 290, y: 30, size: 9, font });
      let y = 730;
      for (const line of lines) {
        const size = line.size ?? 11;
        y -= line.gap ?? (line.size ? size + 12 : 14);
        page.drawText(line.text, { x: 40, y, size, font: line.size ? bold : font });
      }
    });
    const result = await read(await doc.save(), 'book.pdf');
    const text = result.text;
    expect(text).not.toMatch(/Widget Guide 2\.0|Chapter \d: (?:Setting up|Prices)/);
    expect(text).not.toMatch(/^\d+$/m);
    // the table of contents is gone, entries without dot leaders too; the price list is not one
    expect(text).not.toContain('Contents');
    expect(text).not.toMatch(/small office 3|Wiring \./);
    expect(text).toMatch(/Basic cable[ .]+25/);
    expect(text).toMatch(/Wall mount[ .]+40/);
    expect(text).toContain('Jane Doe and the Widget Team');
    expect(text).toContain('This guide was written for installers in 2024.');
    expect(text).toContain('It covers 2 models.');

    const marks = result.marks ?? [];
    const headingsAt = (needle: string) =>
      marks.filter((m) => m.headings && m.at <= text.indexOf(needle)).at(-1)?.headings;
    expect(headingsAt('Connect the red wire')).toEqual([
      'Widget Guide',
      '1 Setting up the widget for the first time in a small office',
      '1.1 Wiring',
    ]);
    expect(headingsAt('Basic cable')).toEqual(['Widget Guide', '2 Prices']);
    const allHeadings = marks.flatMap((m) => m.headings ?? []);
    expect(allHeadings).not.toContain('Jane Doe and the Widget Team');
    expect(allHeadings).not.toContain('March 2024');
    expect(allHeadings).not.toContain('in a small office');
  });

  it('keeps a table of figures under a header that names an index (it is no index of pages)', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const rows = ['Bread 120', 'Milk 95', 'Rent 480', 'Energy 310', 'Transport 145', 'Clothing 102'];
    for (let n = 1; n <= 3; n++) {
      const page = doc.addPage([600, 800]);
      page.drawText('Consumer Price Index 2024', { x: 40, y: 770, size: 9, font });
      const region = ['North', 'South', 'East'][n - 1];
      page.drawText(`${region}: prices compared with the base year.`, { x: 40, y: 720, size: 11, font });
      rows.forEach((row, i) => page.drawText(row, { x: 40, y: 700 - i * 14, size: 11, font }));
      page.drawText(String(n), { x: 290, y: 30, size: 9, font });
    }
    const { text } = await read(await doc.save(), 'cpi.pdf');
    expect(text).toContain('East: prices compared with the base year.');
    expect(text.match(/Rent 480/g)).toHaveLength(3);
    expect(text).not.toContain('Consumer Price Index');
  });

  it('a scanned PDF (pages with no text) fails with a message that says what to do', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 3; i++) {
      const page = doc.addPage([600, 800]);
      page.drawRectangle({ x: 40, y: 40, width: 500, height: 700 }); // a "scan": drawing, no text
    }
    const err = await read(await doc.save(), 'scan.pdf').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/scanned.*text recognition \(OCR\)/);
  });
});
