import { open } from 'node:fs/promises';

/**
 * A .txt file that is not already its own text (it has line ends to normalise, CR LF or CR, or
 * starts with a non-ASCII character), made into its text a block at a time: validated as UTF-8,
 * its line ends turned into LF and its bytes written into one buffer no larger than the file. Read
 * whole and decoded, a 60 MB Windows text with accented letters took the file, a two-byte string
 * of it, the normalised copy and its UTF-8 again: more than the task's memory budget
 * (INGEST_MEMORY_MB, docs/DEPLOY.md "Memory"). The same refusals, and the same text, as decoding
 * it whole (parse-text.ts decodeText).
 */

export const NOT_TEXT_MESSAGE = 'The file is not a text file (it holds binary data)';
export const NOT_UTF8_MESSAGE = 'The file is not UTF-8 text; save it as UTF-8 and upload it again';

const BLOCK_BYTES = 1024 * 1024;

export interface TextFileLimits {
  maxInputBytes: number;
  maxTextChars: number;
}

export type NormalisedText =
  | { utf8: Uint8Array; chars: number }
  | { refusal: 'too_large' | 'not_text' | 'not_utf8' | 'too_long' | 'empty' };

export async function normalisedTextFile(path: string, limits: TextFileLimits): Promise<NormalisedText> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limits.maxInputBytes) return { refusal: 'too_large' };
    // its own memory (not Node's shared pool), so the caller can move it to another thread whole
    const out = Buffer.allocUnsafeSlow(Math.max(size, 1));
    const block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
    let written = 0;
    let units = 0; // UTF-16 code units of the text as decoded, before line ends are normalised
    let dropped = 0; // LFs of CR LF pairs left out (one unit each)
    let afterCr = false;
    let invalid = false;
    let hasText = false;
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(block, 0, block.length, position);
      if (bytesRead === 0) break;
      const bytes = block.subarray(0, bytesRead);
      if (bytes.includes(0)) return { refusal: 'not_text' };
      position += bytesRead;
      if (invalid) continue; // only looking for a NUL, which makes it binary rather than not UTF-8
      let decoded: string;
      try {
        decoded = decoder.decode(bytes, { stream: true });
      } catch {
        invalid = true;
        continue;
      }
      units += decoded.length;
      if (!hasText && /\S/.test(decoded)) hasText = true;
      let i = position === bytesRead && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
      for (; i < bytes.length; i++) {
        const b = bytes[i]!;
        if (b === 13) {
          out[written++] = 10;
          afterCr = true;
          continue;
        }
        if (b === 10 && afterCr) dropped++;
        else out[written++] = b;
        afterCr = false;
      }
      if (units - dropped > limits.maxTextChars) return { refusal: 'too_long' };
    }
    if (invalid) return { refusal: 'not_utf8' };
    try {
      units += decoder.decode().length; // a character cut off at the end
    } catch {
      return { refusal: 'not_utf8' };
    }
    if (!hasText) return { refusal: 'empty' };
    return { utf8: new Uint8Array(out.buffer, 0, written), chars: units - dropped };
  } finally {
    await handle.close();
  }
}
