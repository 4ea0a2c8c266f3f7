import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDeflateRaw, crc32, deflateRawSync } from 'node:zlib';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadNiceness, threadsVisible } from '../helpers/threads.js';
import { blockKey } from '../../src/platform/text/blocks.js';
import { matchesExtension as detectFileType } from '../../src/platform/workers/extension-check.js';
import { createParserPool } from '../../src/platform/workers/pool.js';
import { ParseError, type ParsableType, type ParsedText, type ParserPool } from '../../src/platform/workers/types.js';
import { stored, writeZip } from '../helpers/zip.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PHRASE = 'zebra-quartz-7431';
const MB = 1024 * 1024;

let dir: string;
const file = (name: string) => path.join(dir, name);

async function put(name: string, data: string | Uint8Array): Promise<string> {
  await writeFile(file(name), data);
  return file(name);
}

// ---- fixtures ----

async function makePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const n of [1, 2]) {
    const page = doc.addPage([400, 300]);
    page.drawText(`Page ${n} says ${PHRASE}-p${n}`, { x: 40, y: 200, size: 14, font });
  }
  return doc.save();
}

/** A hand-written PDF whose trailer names a Standard security handler with made-up O/U keys. */
function makeEncryptedPdf(): Buffer {
  const hex = (seed: number) =>
    Array.from({ length: 32 }, (_, i) => ((seed * 31 + i * 17) % 256).toString(16).padStart(2, '0')).join('');
  const content = 'BT /F1 12 Tf 20 100 Td (secret) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(1)}> /U <${hex(2)}> /P -4 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((obj, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, '0')} 00000 n \n`;
  const id = hex(3).slice(0, 32);
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 5 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const doc = new Document({
    sections: [{ children: paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })) }],
  });
  return Packer.toBuffer(doc);
}

async function makeXlsx(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const first = wb.addWorksheet('First');
  first.addRow(['Name', 'Amount', 'Date']);
  first.addRow(['Widget', 12.5, new Date(Date.UTC(2024, 0, 31))]);
  first.addRow([`Has ${PHRASE}`, { formula: 'B2*2', result: 25 }, 'line one\nline two']);
  const second = wb.addWorksheet('Second');
  second.addRow(['Only', 'in', 'second-sheet']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** `mb` MB of zeros, deflated as a stream (never held whole in memory). */
async function deflatedZeros(mb: number): Promise<{ data: Buffer; crc: number }> {
  const deflate = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const chunk = Buffer.alloc(MB);
  let crc = 0;
  for (let i = 0; i < mb; i++) {
    deflate.write(chunk);
    crc = crc32(chunk, crc);
  }
  deflate.end();
  await done;
  return { data: Buffer.concat(out), crc };
}

function bombDocx(bomb: { data: Buffer; crc: number }, declaredSize: number): Buffer {
  return writeZip([
    stored(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    ),
    { name: 'word/document.xml', data: bomb.data, method: 8, crc: bomb.crc, declaredSize },
  ]);
}

// ---- helpers ----

async function refusal(promise: Promise<unknown>): Promise<ParseError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'expected a ParseError').toBeInstanceOf(ParseError);
  return err as ParseError;
}

/** `body` with a pool of its own made with `options`, closed after it whatever the outcome. */
async function withPool(
  options: Parameters<typeof createParserPool>[0],
  body: (pool: ParserPool) => Promise<void>,
): Promise<void> {
  const pool = createParserPool(options);
  try {
    await body(pool);
  } finally {
    await pool.close();
  }
}

describe('platform/workers', () => {
  let pool: ParserPool;
  const good: Record<ParsableType, string> = { pdf: '', docx: '', xlsx: '', csv: '', txt: '' };

  async function stillParses(p: ParserPool = pool): Promise<void> {
    const r = await p.parse(good.txt, 'txt');
    expect(r.text).toContain(PHRASE);
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'workers-test-'));
    good.pdf = await put('good.pdf', await makePdf());
    good.docx = await put('good.docx', await makeDocx(['First paragraph.', `The phrase is ${PHRASE}.`]));
    good.xlsx = await put('good.xlsx', await makeXlsx());
    good.csv = await put(
      'good.csv',
      `name,comment,amount\r\n"Smith, John","said ""hi"" ${PHRASE}",12\r\n"multi\nline",plain,\r\n\r\nlast,"",3`,
    );
    good.txt = await put('good.txt', `\uFEFFFirst line\r\nThe phrase is ${PHRASE}.\n`);
    pool = createParserPool();
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it.runIf(threadsVisible)(
    'parses on a thread of lowered priority, leaving the event loop thread at its own',
    async () => {
      const mainBefore = threadNiceness().find((t) => t.tid === process.pid)!.nice;
      await stillParses();
      const threads = threadNiceness();
      expect(threads.find((t) => t.tid === process.pid)!.nice).toBe(mainBefore);
      expect(threads.some((t) => t.nice === Math.min(19, mainBefore + 10))).toBe(true);
    },
  );

  describe('parses each type through real worker threads', () => {
    it('pdf: every page, merged', async () => {
      const r = await pool.parse(good.pdf, 'pdf');
      expect(r.units).toBe(2);
      expect(r.text).toContain(`${PHRASE}-p1`);
      expect(r.text).toContain(`${PHRASE}-p2`);
    });

    it('docx', async () => {
      const r = await pool.parse(good.docx, 'docx');
      expect(r).toMatchObject({ units: 1 });
      expect(r.text).toContain(`The phrase is ${PHRASE}.`);
      expect(r.text).toContain('First paragraph.');
    });

    it('xlsx: a "Sheet:" heading per sheet, then one paragraph per row naming its columns (tab-joined without a header row)', async () => {
      const r = await pool.parse(good.xlsx, 'xlsx');
      expect(r.units).toBe(2);
      const paragraphs = r.text.split('\n\n');
      expect(paragraphs.slice(0, 3)).toEqual([
        'Sheet: First',
        'Name: Widget | Amount: 12.5 | Date: 2024-01-31',
        `Name: Has ${PHRASE} | Amount: 25 | Date: line one line two`,
      ]);
      expect(paragraphs).toContain('Sheet: Second');
      expect(paragraphs).toContain('Only\tin\tsecond-sheet');
      // each sheet is a section under its name
      expect(r.marks).toEqual([
        { at: 0, headings: ['First'] },
        { at: r.text.indexOf('Sheet: Second'), headings: ['Second'] },
      ]);
    });

    it('csv: one paragraph per row naming its columns (empty cells left out, never shifted), quoted fields unwrapped', async () => {
      const r = await pool.parse(good.csv, 'csv');
      expect(r.units).toBe(1);
      expect(r.text.split('\n\n')).toEqual([
        `name: Smith, John | comment: said "hi" ${PHRASE} | amount: 12`,
        'name: multi line | comment: plain',
        'name: last | amount: 3',
      ]);
    });

    it('csv: a semicolon-separated file is split on semicolons; without a header row, cells are tab-joined', async () => {
      const f = await put('semi.csv', `a;b;c\n1,5;"x;y";${PHRASE}\n`);
      const r = await pool.parse(f, 'csv');
      expect(r.text.split('\n\n')).toEqual([`a: 1,5 | b: x;y | c: ${PHRASE}`]);
      const numbers = await put('numbers.csv', `1;2;3\n4;5;${PHRASE}\n`);
      expect((await pool.parse(numbers, 'csv')).text.split('\n\n')).toEqual(['1\t2\t3', `4\t5\t${PHRASE}`]);
    });

    it('xlsx: numbers read as the sheet shows them (percentages, fixed decimals, currency)', async () => {
      const wb = new ExcelJS.Workbook();
      const sheet = wb.addWorksheet('Prices');
      sheet.addRow(['Tier', 'Discount', 'Price', 'Fee']);
      const row = sheet.addRow(['Silver', 0.12, 114, 4.5]);
      row.getCell(2).numFmt = '0%';
      row.getCell(3).numFmt = '0.00';
      row.getCell(4).numFmt = '"$"#,##0.00';
      const f = await put('formats.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
      const r = await pool.parse(f, 'xlsx');
      expect(r.text).toContain('Tier: Silver | Discount: 12% | Price: 114.00 | Fee: $4.50');
    });

    it('txt: utf-8, BOM stripped, CRLF normalised', async () => {
      const r = await pool.parse(good.txt, 'txt');
      expect(r).toEqual({ text: `First line\nThe phrase is ${PHRASE}.\n`, units: 1 });
    });
  });

  describe('parseText: the same text, as bytes moved from the worker or as where it starts in the file', () => {
    const textOf = async (file: string, r: ParsedText) =>
      ('utf8' in r ? r.utf8 : (await readFile(file)).subarray(r.fileFrom)).toString('utf8');

    it('gives the text and units parse gives, for every type', async () => {
      const leadingNbsp = await put('nbsp.txt', `\u00a0caf\u00e9 ${PHRASE}\n`);
      // line ends normalised a block (1 MiB) at a time: a CR LF across two blocks, lone CRs, a BOM
      const acrossBlocks = await put(
        'crlf-across-blocks.txt',
        `\uFEFF${'x'.repeat(1024 * 1024 - 4)}\r\nGr\u00f6\u00dfe\rzw\u00f6lf\r\r\n${PHRASE}\r`,
      );
      const cases = (Object.keys(good) as ParsableType[]).map((type): [string, ParsableType] => [good[type], type]);
      for (const [f, type] of [...cases, [leadingNbsp, 'txt'] as const, [acrossBlocks, 'txt'] as const]) {
        const whole = await pool.parse(f, type);
        const r = await pool.parseText(f, type);
        expect(r.units, f).toBe(whole.units);
        expect(await textOf(f, r), f).toBe(whole.text);
        expect(r.bytes, f).toBe(Buffer.byteLength(whole.text));
      }
    });

    it('a plain UTF-8 text file is its own text: only where it starts (after a BOM) comes back', async () => {
      const text = `caf\u00e9 ${PHRASE}\n\n\u65e5\u672c\u8a9e \u{1F642}\n`;
      const f = await put('plain.txt', `\uFEFF${text}`);
      const r = await pool.parseText(f, 'txt');
      expect(r).toEqual({ fileFrom: 3, bytes: Buffer.byteLength(text), units: 1, marks: [] });
      expect(await textOf(f, r)).toBe((await pool.parse(f, 'txt')).text);
    });

    it('refuses what parse refuses, with the same message', async () => {
      await withPool({ limits: { maxTextChars: 1 * MB } }, async (capped) => {
        for (const [name, content] of [
          ['empty.txt', ''],
          ['bom.txt', '\uFEFF \n\t'],
          ['unicode-spaces.txt', '\u00a0\u3000\n'],
          ['binary.txt', Buffer.from([0x48, 0x69, 0x00, 0x01, 0x02, 0xff, 0x48])],
          ['not-utf8-then-binary.txt', Buffer.concat([Buffer.from('a\r\n\xff', 'latin1'), Buffer.alloc(2 * MB, 0)])],
          ['crlf-spaces.txt', '\u00a0\r\n\u3000\r\n'],
          ['crlf-long.txt', 'word\r\n'.repeat(250_000)],
          ['latin1.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1')],
          ['cut-short.txt', Buffer.from('caf\u00e9').subarray(0, 4)],
          ['long.txt', 'word '.repeat(300_000)],
        ] as const) {
          const f = await put(name, content);
          const expected = (await refusal(capped.parse(f, 'txt'))).message;
          expect((await refusal(capped.parseText(f, 'txt'))).message, name).toBe(expected);
        }
      });
    });
  });

  describe('refuses bad documents with a user-facing ParseError, and keeps working', () => {
    it('corrupt pdf', async () => {
      let seed = 42;
      const junk = Buffer.alloc(4096, 0).map(() => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff);
      const f = await put('corrupt.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), junk]));
      expect((await refusal(pool.parse(f, 'pdf'))).message).toBe('The PDF could not be read');
      await stillParses();
    });

    it('password-protected pdf', async () => {
      const f = await put('encrypted.pdf', makeEncryptedPdf());
      expect((await refusal(pool.parse(f, 'pdf'))).message).toBe('The PDF is password-protected');
      await stillParses();
    });

    it('empty txt, BOM-only txt and whitespace-only csv', async () => {
      for (const [name, content, type] of [
        ['empty.txt', '', 'txt'],
        ['bom.txt', '\uFEFF \n\t', 'txt'],
        ['blank.csv', ',,\n , \n', 'csv'],
      ] as const) {
        const f = await put(name, content);
        expect((await refusal(pool.parse(f, type))).message, name).toBe('The document contains no text');
      }
      await stillParses();
    });

    it('empty docx', async () => {
      const f = await put('empty.docx', await makeDocx([]));
      expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The document contains no text');
      await stillParses();
    });

    it('binary data named .txt', async () => {
      const f = await put('binary.txt', Buffer.from([0x48, 0x69, 0x00, 0x01, 0x02, 0xff, 0x48]));
      expect((await refusal(pool.parse(f, 'txt'))).message).toMatch(/not a text file/);
      await stillParses();
    });

    it('text that is not UTF-8', async () => {
      const f = await put('latin1.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1'));
      expect((await refusal(pool.parse(f, 'txt'))).message).toMatch(/not UTF-8/);
      await stillParses();
    });

    it('an xlsx named .docx, and an old binary .doc named .docx', async () => {
      const f = await put('sheet.docx', await makeXlsx());
      expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The file is not a DOCX document');
      const ole = await put('old.docx', Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]));
      expect((await refusal(pool.parse(ole, 'docx'))).message).toMatch(/password-protected or in the old \.doc format/);
      await stillParses();
    });

    describe('zip bombs', () => {
      let zeros300: { data: Buffer; crc: number };
      beforeAll(async () => {
        zeros300 = await deflatedZeros(300);
      }, 60_000);

      it('refuses a docx whose declared sizes exceed the cap, without inflating it', async () => {
        const f = await put('bomb.docx', bombDocx(zeros300, 300 * MB));
        expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The file expands to more than 200 MB');
        await stillParses();
      });

      it('refuses a docx whose declared sizes lie small but inflate past the cap', async () => {
        const rssBefore = process.memoryUsage().rss;
        const f = await put('liar.docx', bombDocx(zeros300, 1000));
        expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The file expands to more than 200 MB');
        // inflated output is counted and dropped, never held: the process did not grow by 200 MB
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * MB);
        await stillParses();
      });

      it('sees a bomb hidden past the entry count of the end record (JSZip reads it)', async () => {
        const zip = writeZip([
          stored('[Content_Types].xml', '<Types/>'),
          stored('word/document.xml', '<w:document/>'),
          { name: 'word/media/x.bin', data: zeros300.data, method: 8, crc: zeros300.crc, declaredSize: 300 * MB },
        ]);
        const end = zip.length - 22;
        zip.writeUInt16LE(2, end + 8);
        zip.writeUInt16LE(2, end + 10);
        const f = await put('hidden.docx', zip);
        expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The file expands to more than 200 MB');
        await stillParses();
      });

      it('refuses an entry compressed far beyond any real document (ratio > 100:1)', async () => {
        const zeros = await deflatedZeros(20);
        const f = await put(
          'ratio.xlsx',
          writeZip([
            stored('[Content_Types].xml', '<Types/>'),
            { name: 'xl/worksheets/sheet1.xml', data: zeros.data, method: 8, crc: zeros.crc, declaredSize: 20 * MB },
          ]),
        );
        expect((await refusal(pool.parse(f, 'xlsx'))).message).toMatch(/compressed more than 100:1/);
        await stillParses();
      });

      it('refuses a docx whose sizes lie large (inconsistent archive)', async () => {
        const xml = deflateRawSync(Buffer.from('<w:document/>'));
        const f = await put(
          'inconsistent.docx',
          writeZip([
            stored('[Content_Types].xml', '<Types/>'),
            { name: 'word/document.xml', data: xml, method: 8, crc: 0, declaredSize: 5000 },
          ]),
        );
        expect((await refusal(pool.parse(f, 'docx'))).message).toBe('The DOCX file could not be read');
        await stillParses();
      });
    });

    it('a job over the time limit: the stuck worker is terminated, the next job gets a new one', async () => {
      // memory enough for the 90 MB CSV (the default budget refuses it for memory first): this is about time
      // 2 s: the limit counts a fresh worker's start too, which took over 1 s on a loaded 2-core
      // box (the job after the terminated one was refused); the CSV takes ~3.5 s idle, longer loaded
      await withPool({ timeoutMs: 2000, maxMemoryMb: 2048, limits: { maxTextChars: 500 * MB } }, async (slow) => {
        await stillParses(slow); // the worker is up and its modules loaded
        const row = `alpha,"beta, quoted",gamma,12345,${PHRASE}\n`;
        const f = await put('slow.csv', row.repeat(Math.ceil((90 * MB) / row.length)));
        const err = await refusal(slow.parse(f, 'csv'));
        // the pool's timer refused it (its words), not the end of the parse
        expect(err.message).toBe('Processing took longer than 2 s');
        await stillParses(slow);
      });
    });

    it('a worker that runs out of memory', async () => {
      await withPool({ maxOldGenerationSizeMb: 32 }, async (tight) => {
        const f = await put('many-rows.csv', 'a,b\n'.repeat(4_000_000));
        const err = await refusal(tight.parse(f, 'csv'));
        expect(err.message).toBe('The document needs more memory than allowed');
        await stillParses(tight);
      });
    });

    it('the text cap', async () => {
      await withPool({ limits: { maxTextChars: 1 * MB } }, async (capped) => {
        const f = await put('long.txt', 'word '.repeat(300_000));
        expect((await refusal(capped.parse(f, 'txt'))).message).toBe("The document's text is longer than 1 MB");
        await stillParses(capped);
      });
    });
  });

  describe('cancellation and close', () => {
    it("a caller's abort rejects with the abort reason (not a ParseError), queued or running", async () => {
      const row = `alpha,"beta, quoted",gamma,12345,${PHRASE}\n`;
      const big = await put('abort.csv', row.repeat(Math.ceil((20 * MB) / row.length)));
      const ctl = new AbortController();
      const running = pool.parse(big, 'csv', ctl.signal);
      const queued = pool.parse(good.docx, 'docx', ctl.signal);
      await new Promise((resolve) => setTimeout(resolve, 150));
      ctl.abort();
      for (const p of [running, queued]) {
        const err = await p.then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).not.toBeInstanceOf(ParseError);
        expect((err as Error).name).toBe('AbortError');
      }
      await stillParses();
    });

    it('concurrent jobs queue for the single thread and all complete', async () => {
      // a job's budget counts its own run, not its wait in the queue; 30 s leaves a cold worker on
      // a loaded box its time (a run beside a CPU-heavy process took over 5 s for the PDF)
      await withPool({ timeoutMs: 30_000 }, async (p) => {
        const results = await Promise.all([
          p.parse(good.pdf, 'pdf'),
          p.parse(good.xlsx, 'xlsx'),
          p.parse(good.txt, 'txt'),
        ]);
        expect(results.map((r) => r.units)).toEqual([2, 2, 1]);
      });
    });

    it('after close, parse rejects', async () => {
      const p = createParserPool();
      await stillParses(p);
      await p.close();
      await expect(p.parse(good.txt, 'txt')).rejects.toThrow('The parser pool is closed');
    });
  });

  describe('web pages, read in a worker (extractHtml)', () => {
    it("gives the page's title, blocks and links, read off the main thread", async () => {
      const html = `<html><head><title>Prices</title></head><body><div class="menu"><a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></div>
        <main><h1>Plans</h1><p>The Pro plan costs
        $19 per month.</p></main></body></html>`;
      const page = await pool.extractHtml(html, 'https://example.test/pricing');
      expect(page.title).toBe('Prices');
      expect(page.blocks.map((b) => b.text)).toEqual(['Plans', 'The Pro plan costs $19 per month.']);
      expect(page.links).toEqual(['https://example.test/a', 'https://example.test/b', 'https://example.test/c']);
    });

    it("gives each block that is not a heading its repeated-block key, so the crawl's filter makes no pass over the text on the main thread", async () => {
      const long = `${'Delivery takes two to three working days. '.repeat(20)}`;
      const html = `<html><body><main><h2>Shipping</h2><p>${long}</p><p>Returns   are FREE.</p></main></body></html>`;
      const page = await pool.extractHtml(html, 'https://example.test/');
      expect(page.blocks.map((b) => [b.heading ?? false, b.key])).toEqual([
        [true, undefined],
        [false, blockKey(page.blocks[1]!.text)],
        [false, 'returns are free.'],
      ]);
    });

    it('a page that takes longer than its budget ends with a ParseError (its worker is stopped) and the pool goes on', async () => {
      await withPool({ pageTimeoutMs: 1 }, async (p) => {
        const nested = `<body>${'<div>words of content in this div. '.repeat(60_000)}${'</div>'.repeat(60_000)}</body>`;
        const err = await p.extractHtml(nested, 'https://example.test/').then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ParseError);
        expect((err as Error).message).toMatch(/took longer than/);
        await stillParses(p);
      });
    });
  });

  describe('the bundled worker (dist/worker-tasks.js, plain node)', () => {
    const distWorker = path.join(repoRoot, 'dist', 'worker-tasks.js');
    beforeAll(() => {
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'pipe' });
    }, 300_000);

    it('npm run build writes it', () => {
      expect(existsSync(distWorker)).toBe(true);
    });

    it('parses through a pool that uses it', async () => {
      await withPool({ workerFile: distWorker }, async (p) => {
        const r = await p.parse(good.pdf, 'pdf');
        expect(r.text).toContain(`${PHRASE}-p2`);
        const d = await p.parse(good.docx, 'docx');
        expect(d.text).toContain(PHRASE);
        await expect(p.parse(path.join(dir, 'empty.txt'), 'txt')).rejects.toThrow('The document contains no text');
      });
    });

    it('runs under plain node without tsx', () => {
      const script = `import(${JSON.stringify(distWorker)}).then((m) => m.default({ path: ${JSON.stringify(good.xlsx)}, type: 'xlsx' })).then((r) => process.stdout.write(JSON.stringify(r)))`;
      const out = execFileSync(process.execPath, ['-e', script], {
        cwd: os.tmpdir(),
        env: { PATH: process.env.PATH ?? '' },
      });
      const r = JSON.parse(out.toString()) as { text: string; units: number };
      expect(r.units).toBe(2);
      expect(r.text).toContain(PHRASE);
    });
  });

  describe('detectFileType', () => {
    const cases: Array<[string, Buffer, string, boolean]> = [
      ['pdf magic', Buffer.from('%PDF-1.7\n%\xe2\xe3', 'latin1'), 'pdf', true],
      ['pdf with a leading dot and capitals', Buffer.from('%PDF-1.4'), '.PDF', true],
      ['html named .pdf', Buffer.from('<!doctype html>'), 'pdf', false],
      ['short pdf head', Buffer.from('%PD'), 'pdf', false],
      ['zip named .docx', Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), 'docx', true],
      ['zip named .xlsx', Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), 'xlsx', true],
      ['pdf named .docx', Buffer.from('%PDF-1.7'), 'docx', false],
      ['empty zip (end record only) named .xlsx', Buffer.from('PK\x05\x06', 'latin1'), 'xlsx', false],
      ['utf-8 text', Buffer.from('héllo, wörld — ok'), 'txt', true],
      ['utf-8 csv with BOM', Buffer.from('\uFEFFa,b\n1,2'), 'csv', true],
      ['a multi-byte character cut at the end', Buffer.from('abc é').subarray(0, 5), 'txt', true],
      ['invalid utf-8', Buffer.from([0x61, 0xff, 0x62]), 'txt', false],
      ['NUL byte', Buffer.from('abc\0def'), 'csv', false],
      ['pdf named .txt', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3', 'latin1'), 'txt', false],
      ['unknown extension', Buffer.from('hello'), 'exe', false],
    ];
    for (const [name, bytes, ext, expected] of cases) {
      it(`${name} -> ${expected}`, () => {
        expect(detectFileType(bytes, ext)).toBe(expected);
      });
    }

    it('docx/xlsx: the entry names in the first bytes decide when they are visible', async () => {
      const docx = await makeDocx(['x']);
      const xlsx = await makeXlsx();
      expect(detectFileType(docx, 'docx')).toBe(true);
      expect(detectFileType(xlsx, 'xlsx')).toBe(true);
      expect(detectFileType(xlsx, 'docx')).toBe(false);
      expect(detectFileType(docx, 'xlsx')).toBe(false);
      // 16 bytes show no names: the benefit of the doubt (the worker checks the whole file)
      expect(detectFileType(xlsx.subarray(0, 16), 'docx')).toBe(true);
    });
  });
});
