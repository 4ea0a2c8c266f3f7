import type { ParseResult } from './types.js';
import { assertSafeZip } from './office-zip.js';
import { type ParseLimits, writtenTitle } from './parse-common.js';
import { readSmallEntry, type ZipEntry } from './zip.js';

/**
 * DOCX through mammoth's HTML (headings, lists and tables kept, images left out), read by the same
 * walk as web pages: headings become sections, tables Markdown tables with every cell in place.
 */
export async function parseDocx(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  const entries = await assertSafeZip(buf, 'docx', limits);
  const { default: mammoth } = await import('mammoth');
  const { value: html } = await mammoth.convertToHtml(
    { buffer: buf },
    { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) },
  );
  const { htmlBlocks, joinBlocks } = await import('../text/html-text.js');
  const { text, marks } = joinBlocks(htmlBlocks(html, { boilerplate: false }).blocks);
  const title = docxTitle(buf, entries);
  return { text, units: 1, marks, ...(title ? { title } : {}) };
}

/** The DOCX's title (File > Properties), `dc:title` in docProps/core.xml: mammoth does not read it. */
function docxTitle(buf: Buffer, entries: ZipEntry[]): string | undefined {
  const xml = readSmallEntry(buf, entries, 'docProps/core.xml', 256 * 1024)?.toString('utf8');
  const raw = xml?.match(/<dc:title\b[^>]*>([^<]*)<\/dc:title>/)?.[1];
  if (raw === undefined) return undefined;
  const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  const text = raw.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return XML_ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
  return writtenTitle(text);
}
