import { hash, verify } from '@node-rs/argon2';
import { lazy } from '../lazy.js';

// Algorithm.Argon2id; the enum is an ambient const enum, which isolatedModules cannot read.
const ARGON2ID = 2;

// argon2id with the library defaults (m=19456 KiB, t=2, p=1: the OWASP minimum, ~21 ms here).
// Both calls run on libuv's thread pool, off the event loop.
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** A hash to verify against when the account does not exist, so both failures take the same time. */
export function timingDummyHash(): Promise<string> {
  dummyHash ??= hashPassword('timing-equaliser-not-a-real-password');
  return dummyHash;
}

/**
 * The list of commonly used passwords (NIST SP 800-63B 3.1.1.2: refuse a password found in lists
 * of commonly used, expected or compromised values, and say why): zxcvbn-ts's `passwords-common`
 * dictionary, about 49,000 passwords from leaked password sets, lower-case, as one string
 * (scripts/gen-common-passwords.ts). Loaded on first use (in dist/ a chunk of its own), so no
 * request before the first password is set pays for it; a lookup scans the 0.4 MB string (well
 * under a millisecond, beside the ~20 ms of hashing the password).
 */
const commonPasswordList = lazy(async () => (await import('./common-passwords.js')).COMMON_PASSWORDS);

async function isCommonPassword(lowerCase: string): Promise<boolean> {
  // no listed password holds a newline: one that does would match across two lines
  return !lowerCase.includes('\n') && (await commonPasswordList()).includes(`\n${lowerCase}\n`);
}

/**
 * Why a new password is refused, or null when it is accepted. Length (8-128) is the schemas' rule;
 * beyond it only this: not a commonly used password (compared without regard to case, as the list
 * is lower-case), and not the account's own e-mail address or its name before the @. No rule on
 * character classes (NIST SP 800-63B: none). `field` names the request field in the answer.
 */
export async function newPasswordRefusal(field: string, password: string, email?: string): Promise<string | null> {
  const lower = password.toLowerCase();
  if (await isCommonPassword(lower))
    return `${field}: is one of the most commonly used passwords (found in lists of leaked passwords); choose another`;
  if (email) {
    const address = email.toLowerCase();
    if (lower === address || lower === address.slice(0, address.lastIndexOf('@')))
      return `${field}: is the account's e-mail address; choose another`;
  }
  return null;
}
