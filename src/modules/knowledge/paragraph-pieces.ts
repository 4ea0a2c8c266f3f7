import { open } from 'node:fs/promises';

// A document's text cut into the pieces the Chunker (chunker.ts) reads, at paragraph breaks: from
// UTF-8 bytes in memory, or from a file read a block at a time.

const isAsciiSpace = (b: number | undefined) => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);

/**
 * The last place in `bytes` to cut a UTF-8 text so that both sides chunk as the whole does: just
 * after a paragraph break (two newlines and all the white space that follows), before a byte that
 * is not white space. -1 when there is none. The cut falls on an ASCII byte, never inside a
 * character.
 */
function lastParagraphCut(bytes: Buffer): number {
  let last = bytes.length - 1;
  while (last >= 0 && isAsciiSpace(bytes[last])) last--;
  const pair = last >= 2 ? bytes.lastIndexOf('\n\n', last - 2) : -1;
  if (pair < 0) return -1;
  let cut = pair + 2;
  while (isAsciiSpace(bytes[cut])) cut++;
  return cut;
}

/**
 * The longest piece handed to the Chunker at once: a paragraph longer than this (a text file
 * with no blank line, a 50 MB line) is cut at white space (or, with none, between characters), so
 * no step of the event loop ever reads more than this, and no such text is ever one string. The
 * cut acts as a paragraph break; passages stay exact slices of the text.
 */
export const MAX_PIECE_BYTES = 256 * 1024;

/**
 * Where to cut bytes[0, end) when no paragraph break is near: after the last ASCII white space
 * run that is followed by something else, or failing one at the last character boundary.
 */
function forcedCut(bytes: Buffer, from: number, end: number): number {
  for (let i = end - 1; i > from; i--) {
    if (isAsciiSpace(bytes[i - 1]) && !isAsciiSpace(bytes[i])) return i;
  }
  let cut = end;
  // never inside a UTF-8 sequence: back up over continuation bytes (10xxxxxx)
  while (cut > from + 1 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/** A UTF-8 text in memory, decoded for the Chunker a slice of about `sliceBytes` at a time. */
export function* utf8Paragraphs(
  utf8: Buffer,
  sliceBytes = 64 * 1024,
  maxPieceBytes = MAX_PIECE_BYTES,
): Generator<string> {
  let start = 0;
  while (start < utf8.length) {
    const window = utf8.subarray(start, start + sliceBytes);
    const cut = start + sliceBytes < utf8.length ? lastParagraphCut(window) : -1;
    let end = cut > 0 ? start + cut : firstCutFrom(utf8, start + sliceBytes);
    // no break in this window: up to the first break after it (or the end), within the piece limit
    if (end - start > maxPieceBytes) end = forcedCut(utf8, start, start + maxPieceBytes);
    yield utf8.toString('utf8', start, end);
    start = end;
  }
}

function firstCutFrom(utf8: Buffer, from: number): number {
  for (let pair = utf8.indexOf('\n\n', from); pair >= 0; pair = utf8.indexOf('\n\n', pair + 1)) {
    let cut = pair + 2;
    while (isAsciiSpace(utf8[cut])) cut++;
    if (cut < utf8.length) return cut;
  }
  return utf8.length;
}

/**
 * A UTF-8 text file from byte `from`, read and decoded for the Chunker about `blockBytes` at a
 * time: only a slice is in memory, never the file.
 */
export async function* fileParagraphs(
  file: string,
  from = 0,
  blockBytes = 64 * 1024,
  maxPieceBytes = MAX_PIECE_BYTES,
): AsyncGenerator<string> {
  const handle = await open(file, 'r');
  try {
    // bytes read since the last cut (a paragraph longer than a block spans several)
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (let position = from; ; ) {
      const block = Buffer.allocUnsafeSlow(blockBytes);
      const { bytesRead } = await handle.read(block, 0, blockBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const bytes = block.subarray(0, bytesRead);
      const cut = lastParagraphCut(bytes);
      if (cut <= 0) {
        pending.push(bytes);
        pendingBytes += bytes.length;
        // a paragraph longer than a piece may be: cut it at white space
        while (pendingBytes > maxPieceBytes) {
          const all = Buffer.concat(pending);
          const forced = forcedCut(all, 0, maxPieceBytes);
          yield all.toString('utf8', 0, forced);
          pending = [all.subarray(forced)];
          pendingBytes = all.length - forced;
        }
        continue;
      }
      pending.push(bytes.subarray(0, cut));
      yield Buffer.concat(pending).toString('utf8');
      pending = [bytes.subarray(cut)];
      pendingBytes = bytes.length - cut;
    }
    const rest = Buffer.concat(pending);
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    await handle.close();
  }
}
