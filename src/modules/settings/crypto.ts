import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The file in DATA_DIR that holds the key of the stored settings (beside jwt-secret). */
export const SETTINGS_KEY_FILE = 'settings-key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key file exists but does not hold a key (edited by hand, cut short): nothing can be read or written with it. */
export class DamagedKeyError extends Error {
  constructor() {
    super(`${SETTINGS_KEY_FILE} in DATA_DIR does not hold a ${KEY_BYTES}-byte key`);
  }
}

/**
 * The key of the stored settings: 32 random bytes, base64 on one line in DATA_DIR/settings-key,
 * mode 0600. Read at start; made at the first write (a server where nothing was ever stored has
 * no key file). The file is read again at every write, so a key deleted while the server runs is
 * replaced by a new one rather than values being written with a key nobody keeps.
 */
export class SettingsKey {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, SETTINGS_KEY_FILE);
  }

  /** The key, or null when there is no key file. Throws DamagedKeyError for a file that holds no key. */
  read(): Buffer | null {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    this.tightenMode();
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== KEY_BYTES || key.toString('base64') !== text.trim()) throw new DamagedKeyError();
    return key;
  }

  /** The key, made (0600, never overwriting one another process made first) when there is none. */
  readOrCreate(): Buffer {
    const existing = this.read();
    if (existing) return existing;
    const key = randomBytes(KEY_BYTES);
    try {
      writeFileSync(this.file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(this.file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return this.readOrCreate();
      throw err;
    }
    return key;
  }

  /** A key file readable by others (copied in with a loose umask) is set back to 0600. */
  private tightenMode(): void {
    try {
      if ((statSync(this.file).mode & 0o077) !== 0) chmodSync(this.file, 0o600);
    } catch {
      /* a file we may read but not chmod: it is used as it is */
    }
  }
}

/**
 * AES-256-GCM with a fresh random 12-byte IV per value; the stored text is base64(iv | tag |
 * ciphertext). The setting's own name is the additional authenticated data, so a value copied
 * into another row does not decrypt there.
 */
export function encryptValue(key: Buffer, name: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** The plaintext; throws when the key is not the one it was written with, or the value was altered. */
export function decryptValue(key: Buffer, name: string, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('stored value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(name, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
