import { createInflateRaw, inflateRawSync } from 'node:zlib';

/**
 * Just enough ZIP reading to refuse zip bombs before DOCX/XLSX reach mammoth or exceljs (both
 * inflate whole entries in memory with JSZip; exceljs inflates every entry). The central directory
 * is read the way JSZip reads it (sizes and offsets from the central directory, data after each
 * local header), so the bytes measured here are the bytes the library would inflate.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate */
  method: number;
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** A user-facing refusal; the worker passes its message on as is. */
export class ZipRefusal extends Error {
  override name = 'ZipRefusal';
}

export interface ZipLimits {
  /** the sum of declared and of actual uncompressed sizes may not exceed this */
  maxExpandedBytes: number;
  /** an entry whose declared ratio is above maxRatio and whose size is at least ratioMinBytes is refused */
  maxRatio: number;
  ratioMinBytes: number;
}

const EOCD_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const FLAG_ENCRYPTED = 0x1;

export const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

function expandedMessage(maxExpandedBytes: number): string {
  return `The file expands to more than ${Math.round(maxExpandedBytes / (1024 * 1024))} MB`;
}

/**
 * The entries of the central directory, with offsets made absolute. Mirrors JSZip 3 (which mammoth
 * and exceljs use): the last end record in the file; data prepended to the archive shifts every
 * offset; central headers are read for as long as their signature follows, whatever the end record
 * counts. ZIP64 archives and entries are refused (JSZip reads them differently from the spec in
 * corner cases, and no real DOCX/XLSX needs them). Throws ZipRefusal(`corrupt`) when broken.
 */
export function readCentralDirectory(buf: Buffer, corrupt: string, maxEntries: number): ZipEntry[] {
  const eocd = buf.lastIndexOf(EOCD_SIGNATURE);
  if (eocd < 0 || eocd + 22 > buf.length) throw new ZipRefusal(corrupt);
  const u16 = [4, 6, 8, 10].map((o) => buf.readUInt16LE(eocd + o));
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (u16.includes(0xffff) || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw new ZipRefusal(corrupt);
  // JSZip: bytes between the expected and the actual end record are data prepended to the archive.
  const zero = eocd - (cdOffset + cdSize);
  if (zero < 0) throw new ZipRefusal(corrupt);

  const entries: ZipEntry[] = [];
  let p = zero + cdOffset;
  while (p + 4 <= buf.length && buf.readUInt32LE(p) === SIG_CENTRAL) {
    if (entries.length >= maxEntries) throw new ZipRefusal(`The file holds more than ${maxEntries} parts`);
    if (p + 46 > buf.length) throw new ZipRefusal(corrupt);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    if (p + 46 + nameLen + extraLen + commentLen > buf.length) throw new ZipRefusal(corrupt);
    const entry: ZipEntry = {
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      flags: buf.readUInt16LE(p + 8),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      uncompressedSize: buf.readUInt32LE(p + 24),
      localHeaderOffset: zero + buf.readUInt32LE(p + 42),
    };
    if (
      entry.compressedSize === 0xffffffff ||
      entry.uncompressedSize === 0xffffffff ||
      buf.readUInt32LE(p + 42) === 0xffffffff
    ) {
      throw new ZipRefusal(corrupt);
    }
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  if (entries.length === 0) throw new ZipRefusal(corrupt);
  return entries;
}

/**
 * Refuses the archive when its declared sizes are too large or too compressed, then inflates every
 * entry (output counted and discarded, so memory stays flat) and refuses it as soon as the actual
 * output passes the cap: declared sizes that lie cannot get past this. A size that differs from
 * the declared one afterwards means a corrupt file.
 */
export async function assertZipExpansionWithin(
  buf: Buffer,
  entries: ZipEntry[],
  limits: ZipLimits,
  corrupt: string,
  encrypted: string,
): Promise<void> {
  const tooBig = expandedMessage(limits.maxExpandedBytes);
  let declared = 0;
  for (const e of entries) {
    if (e.flags & FLAG_ENCRYPTED) throw new ZipRefusal(encrypted);
    if (e.method !== 0 && e.method !== 8) throw new ZipRefusal(corrupt);
    declared += e.uncompressedSize;
    if (declared > limits.maxExpandedBytes) throw new ZipRefusal(tooBig);
    if (
      e.uncompressedSize >= limits.ratioMinBytes &&
      e.uncompressedSize > limits.maxRatio * Math.max(e.compressedSize, 1)
    ) {
      throw new ZipRefusal(`The file is compressed more than ${limits.maxRatio}:1 (a possible zip bomb)`);
    }
  }

  let budget = limits.maxExpandedBytes;
  for (const e of entries) {
    const data = entryData(buf, e, corrupt);
    let actual: number;
    if (e.method === 0) {
      actual = data.length;
      if (actual > budget) throw new ZipRefusal(tooBig);
    } else {
      actual = await countInflated(data, budget, tooBig, corrupt);
    }
    if (actual !== e.uncompressedSize) throw new ZipRefusal(corrupt);
    budget -= actual;
  }
}

/**
 * One small entry's bytes (a DOCX's docProps/core.xml), or undefined when the archive has no such
 * entry, it is larger than `maxBytes`, or it does not inflate. For archives already checked by
 * assertZipExpansionWithin.
 */
export function readSmallEntry(buf: Buffer, entries: ZipEntry[], name: string, maxBytes: number): Buffer | undefined {
  const e = entries.find((x) => x.name === name);
  if (!e || e.uncompressedSize > maxBytes || (e.method !== 0 && e.method !== 8)) return undefined;
  try {
    const data = entryData(buf, e, 'corrupt');
    return e.method === 0 ? data : inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return undefined;
  }
}

/** The compressed bytes of an entry (after its local header). */
function entryData(buf: Buffer, e: ZipEntry, corrupt: string): Buffer {
  const h = e.localHeaderOffset;
  if (h + 30 > buf.length || buf.readUInt32LE(h) !== SIG_LOCAL) throw new ZipRefusal(corrupt);
  const start = h + 30 + buf.readUInt16LE(h + 26) + buf.readUInt16LE(h + 28);
  const end = start + e.compressedSize;
  if (end > buf.length) throw new ZipRefusal(corrupt);
  return buf.subarray(start, end);
}

function countInflated(data: Buffer, budget: number, tooBig: string, corrupt: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    let total = 0;
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(total);
    };
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > budget) {
        settle(new ZipRefusal(tooBig));
        inflate.destroy();
      }
    });
    inflate.on('error', () => settle(new ZipRefusal(corrupt)));
    inflate.on('end', () => settle(null));
    inflate.end(data);
  });
}

/**
 * Names of the entries whose local headers lie wholly inside `head` (the first bytes of a file),
 * in order. Stops at the first entry whose size is only given after its data (flag bit 3).
 */
export function localEntryNames(head: Buffer): string[] {
  const names: string[] = [];
  let p = 0;
  while (p + 30 <= head.length && head.readUInt32LE(p) === SIG_LOCAL) {
    const flags = head.readUInt16LE(p + 6);
    const compressed = head.readUInt32LE(p + 18);
    const nameLen = head.readUInt16LE(p + 26);
    const extraLen = head.readUInt16LE(p + 28);
    if (p + 30 + nameLen > head.length) break;
    names.push(head.toString('utf8', p + 30, p + 30 + nameLen));
    if (flags & 0x8 || compressed === 0xffffffff) break;
    p += 30 + nameLen + extraLen + compressed;
  }
  return names;
}
