import { type ParseLimits, Refusal, UNREADABLE } from './parse-common.js';
import { assertZipExpansionWithin, OLE_MAGIC, readCentralDirectory, type ZipEntry } from './zip.js';

// ---- DOCX and XLSX (ZIP containers: checked for bombs first) ----
export async function assertSafeZip(buf: Buffer, kind: 'docx' | 'xlsx', limits: ParseLimits): Promise<ZipEntry[]> {
  if (buf.subarray(0, OLE_MAGIC.length).equals(OLE_MAGIC)) {
    throw new Refusal(
      `The file is password-protected or in the old ${kind === 'docx' ? '.doc' : '.xls'} format; save it as .${kind} without a password`,
    );
  }
  const corrupt = UNREADABLE[kind];
  const entries = readCentralDirectory(buf, corrupt, limits.maxZipEntries);
  const folder = kind === 'docx' ? 'word/' : 'xl/';
  if (!entries.some((e) => e.name.startsWith(folder)))
    throw new Refusal(`The file is not a ${kind.toUpperCase()} document`);
  await assertZipExpansionWithin(
    buf,
    entries,
    { maxExpandedBytes: limits.maxExpandedBytes, maxRatio: limits.maxRatio, ratioMinBytes: limits.ratioMinBytes },
    corrupt,
    'The file is password-protected',
  );
  return entries;
}
