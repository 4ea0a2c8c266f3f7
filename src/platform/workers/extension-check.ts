import { localEntryNames } from './zip.js';

const PDF = Buffer.from('%PDF-');
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * Whether the first bytes of an upload match its extension (never trust the client's MIME type):
 * pdf starts with `%PDF-`; docx and xlsx with a ZIP local header, and when the entry names in
 * `firstBytes` already show `word/` or `xl/`, the right one; csv and txt are valid UTF-8 (a
 * multi-byte character cut at the end is fine) with no NUL byte. The more bytes given, the more
 * is checked; the worker checks the whole file again when it parses.
 */
export function matchesExtension(firstBytes: Buffer, extension: string): boolean {
  const ext = extension.replace(/^\./, '').toLowerCase();
  switch (ext) {
    case 'pdf':
      return startsWith(firstBytes, PDF);
    case 'docx':
      return startsWith(firstBytes, ZIP) && zipFamily(firstBytes, 'word/', 'xl/');
    case 'xlsx':
      return startsWith(firstBytes, ZIP) && zipFamily(firstBytes, 'xl/', 'word/');
    case 'csv':
    case 'txt':
      return isUtf8Text(firstBytes);
    default:
      return false;
  }
}

function startsWith(buf: Buffer, magic: Buffer): boolean {
  return buf.length >= magic.length && buf.subarray(0, magic.length).equals(magic);
}

/** False only when the visible entries show the other format's folder and not this one's. */
function zipFamily(head: Buffer, own: string, other: string): boolean {
  const names = localEntryNames(head);
  if (names.some((n) => n.startsWith(own))) return true;
  return !names.some((n) => n.startsWith(other));
}

function isUtf8Text(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  try {
    // stream: an incomplete sequence at the end is held back instead of failing.
    new TextDecoder('utf-8', { fatal: true }).decode(buf, { stream: true });
    return true;
  } catch {
    return false;
  }
}
