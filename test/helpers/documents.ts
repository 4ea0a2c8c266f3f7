import { Document, Packer, Paragraph, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Real documents of each format the product ingests, generated here by the libraries that write
 * them (pdf-lib, docx, exceljs), so every test can make the file it needs without fixtures on disk.
 */

/**
 * A PDF whose first page holds `lines` and each further page one entry of `moreLines`, a line of
 * text each; `title` goes into its metadata (Title) when given.
 */
export async function pdfWith(
  lines: string[],
  moreLines: string[][] = [],
  opts: { title?: string } = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (opts.title) doc.setTitle(opts.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const pageLines of [lines, ...moreLines]) {
    const page = doc.addPage([600, 800]);
    pageLines.forEach((line, i) => page.drawText(line, { x: 40, y: 740 - i * 24, size: 12, font }));
  }
  return doc.save();
}

/** A DOCX of `paragraphs`; `title` goes into its properties (docProps/core.xml dc:title) when given. */
export async function docxWith(paragraphs: string[], opts: { title?: string } = {}): Promise<Uint8Array> {
  const doc = new Document({
    ...(opts.title ? { title: opts.title } : {}),
    sections: [{ children: paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })) }],
  });
  return Packer.toBuffer(doc);
}

export async function xlsxWith(rows: string[][], sheetName = 'Answers'): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet(sheetName);
  for (const row of rows) sheet.addRow(row);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

export function csvWith(rows: string[][]): Uint8Array {
  const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return new TextEncoder().encode(`${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`);
}

/**
 * One file of each format with enough text for several passages each, about one shop; the same
 * bytes every call, so a passage count from one run can be compared with another's.
 */
export async function oneOfEachFormat(): Promise<Array<{ name: string; content: Uint8Array }>> {
  // short enough for a PDF line (pdf-lib does not wrap; text past the page edge is not extracted)
  const sentence = (topic: string, i: number) =>
    `${topic} note ${i}: order ${1000 + i} of customer ${7 * i} costs $${(i * 1.25).toFixed(2)}.`;
  const lines = (topic: string, n: number) => Array.from({ length: n }, (_, i) => sentence(topic, i));
  const table = (n: number) => [
    ['Product', 'Price', 'Stock'],
    ...Array.from({ length: n }, (_, i) => [`Item ${i}`, `${(i * 2.5).toFixed(2)}`, `${i * 3}`]),
  ];
  return [
    { name: 'manual.pdf', content: await pdfWith(lines('Manual', 28), [lines('Appendix', 28), lines('Warranty', 28)]) },
    { name: 'policies.docx', content: await docxWith(lines('Policy', 80)) },
    { name: 'prices.xlsx', content: await xlsxWith(table(300)) },
    { name: 'stock.csv', content: csvWith(table(300)) },
    { name: 'notes.txt', content: new TextEncoder().encode(lines('Note', 80).join('\n\n')) },
  ];
}

/**
 * A small PDF whose one page's content stream inflates to `mb` MB (spaces, deflated as they are
 * made: never held whole here). A "decompression bomb": about 1 KB of file per MB of content.
 */
export async function pdfExpandingTo(mb: number): Promise<Uint8Array> {
  const { createDeflate } = await import('node:zlib');
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let i = 0; i < mb; i++) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const stream = Buffer.concat(parts);
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>'),
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      stream,
      Buffer.from('\nendstream'),
    ]),
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((obj, i) => {
    offsets.push(length);
    const framed = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), obj, Buffer.from('\nendobj\n')]);
    chunks.push(framed);
    length += framed.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(tail));
  return new Uint8Array(Buffer.concat(chunks));
}
