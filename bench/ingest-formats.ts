// Ingestion throughput per format: PDF, DOCX and XLSX generated here, uploaded through the real
// app (multipart, worker-thread parse, chunking, storing; no embedder), in MB of file per second.
// Baseline: the same parser called directly on the same file in this thread, so the ratio is the
// share of the parse speed that survives the whole pipeline.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { openDatabase } from '../src/platform/db/index.js';
import parse from '../src/platform/workers/worker-tasks.js';
import { benchOwnerAgent, benchPlansFile, report, round, saveResults } from './lib.js';
import { generator, passage } from './seed.js';

const MB = 1024 * 1024;
const random = generator(42);
const paragraphs = (n: number) => Array.from({ length: n }, (_, i) => passage(random, i));

async function pdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595, 842]);
    let y = 800;
    for (const text of paragraphs(6)) {
      for (let i = 0; i < text.length; i += 95) {
        page.drawText(text.slice(i, i + 95), { x: 40, y, size: 9, font });
        y -= 12;
      }
      y -= 6;
    }
  }
  return Buffer.from(await doc.save());
}

async function docx(paragraphCount: number): Promise<Buffer> {
  const doc = new Document({
    sections: [{ children: paragraphs(paragraphCount).map((t) => new Paragraph({ children: [new TextRun(t)] })) }],
  });
  return Packer.toBuffer(doc);
}

async function xlsx(rows: number): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('Products');
  sheet.addRow(['Product', 'Description', 'Price', 'Stock']);
  for (let i = 0; i < rows; i++)
    sheet.addRow([`Product ${i}`, passage(random, i).slice(0, 200), (i % 500) + 0.99, i % 37]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-formats-'));
const config = loadConfig({
  DATA_DIR: dir,
  REGISTRATION: 'open',
  LOG_LEVEL: 'silent',
  PLANS_FILE: benchPlansFile(dir),
  DEFAULT_PLAN: 'bench',
});
const database = openDatabase(config.databaseFile);
const app = await buildApp({ config, database, logger: false });
await app.ready();
try {
  const { headers, agent } = await benchOwnerAgent(app);

  const pdfPages = Number(process.env.BENCH_PDF_PAGES ?? 400);
  const files: Array<[string, 'pdf' | 'docx' | 'xlsx', Buffer]> = [
    ['catalogue.pdf', 'pdf', await pdf(pdfPages)],
    ['handbook.docx', 'docx', await docx(Number(process.env.BENCH_DOCX_PARAGRAPHS ?? 20000))],
    ['products.xlsx', 'xlsx', await xlsx(Number(process.env.BENCH_XLSX_ROWS ?? 40000))],
  ];
  for (const [name, type, bytes] of files) {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    const sizeMb = statSync(file).size / MB;

    let t = performance.now();
    const direct = await parse({ path: file, type } as never);
    const parseS = (performance.now() - t) / 1000;
    if ('error' in direct) throw new Error(`${name}: ${direct.error}`);

    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    t = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/file`,
      headers: { ...headers, 'content-type': encoded.headers.get('content-type')! },
      payload: body,
    });
    if (res.statusCode !== 201) throw new Error(`${name}: ${res.statusCode} ${res.body}`);
    await app.jobs.idle();
    const totalS = (performance.now() - t) / 1000;
    const sources = (await app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers })).json();
    const source = sources.find((s: { id: string }) => s.id === res.json().id);
    if (source.status !== 'completed') throw new Error(`${name}: ${source.status} ${source.error_message}`);
    report({
      figure: `ingest_${type}_mb_per_s`,
      value: round(sizeMb / totalS),
      unit: 'MB/s',
      baseline: round(sizeMb / parseS),
      baseline_of: 'the parser alone on the same file, in this thread',
      size_mb: round(sizeMb, 1),
    });
    if (type === 'pdf') {
      report({
        figure: 'ingest_pdf_pages_per_s',
        value: round(pdfPages / totalS, 0),
        unit: 'pages/s',
        baseline: round(pdfPages / parseS, 0),
        baseline_of: 'the parser alone on the same file, in this thread',
        pages: pdfPages,
      });
    }
  }
  saveResults('ingest-formats');
} finally {
  await app.close();
  database.close();
  rmSync(dir, { recursive: true, force: true });
}
