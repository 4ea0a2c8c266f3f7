import type { ParseResult } from './types.js';
import { type PdfItem, pdfPagesToText } from '../text/pdf-text.js';
import { Refusal, UNREADABLE, writtenTitle } from './parse-common.js';

// ---- PDF (unpdf: pdf.js without its own worker) ----
export async function parsePdf(buf: Buffer): Promise<ParseResult> {
  const { getDocumentProxy } = await import('unpdf');
  // pdf.js wants a plain Uint8Array, not a Buffer.
  const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(data, { verbosity: 0 });
  } catch (err) {
    if (err instanceof Error && err.name === 'PasswordException') throw new Refusal('The PDF is password-protected');
    throw new Refusal(UNREADABLE.pdf);
  }
  try {
    const pages: PdfItem[][] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const items: PdfItem[] = [];
      for (const item of content.items) {
        if (!('str' in item)) continue;
        const [, , , scaleY, x, y] = item.transform as number[];
        items.push({
          str: item.str,
          x: x!,
          y: y!,
          width: item.width,
          height: item.height || Math.abs(scaleY!),
          hasEOL: item.hasEOL,
        });
      }
      pages.push(items);
      page.cleanup();
    }
    const { text, marks } = pdfPagesToText(pages);
    // a few characters per page at most: page numbers, a scanner's stamp; the pages are pictures
    if (text.replace(/\s+/g, '').length < Math.max(20, 5 * pdf.numPages)) throw new Refusal(SCANNED_PDF);
    const title = await pdfTitle(pdf);
    return { text, units: pdf.numPages, marks, ...(title ? { title } : {}) };
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw new Refusal(UNREADABLE.pdf);
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

const SCANNED_PDF =
  'The PDF has no text to read: its pages look like scanned images. Run it through text recognition (OCR), or export it again as a PDF with text, and upload it again';

/** The title the PDF names in its metadata, when it is one a person wrote (not a file name). */
async function pdfTitle(pdf: { getMetadata(): Promise<{ info: unknown }> }): Promise<string | undefined> {
  const { info } = await pdf.getMetadata().catch(() => ({ info: {} }));
  return writtenTitle((info as { Title?: unknown }).Title);
}
