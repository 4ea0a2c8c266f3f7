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
 * of commonly used, expected or compromised values, and say why). It is zxcvbn-ts's
 * `passwords-common` dictionary: about 49,000 passwords, most frequent first, taken from leaked
 * password sets, stored lower-case. Loaded on first use (about 20 ms; in dist/ a chunk of its own):
 * no request before the first password is set pays for it.
 */
const commonPasswordList = lazy(async () => {
  const language = await import('@zxcvbn-ts/language-common');
  // From source the package's ESM build has the named export; the bundle (dist/) takes its
  // CommonJS build, whose exports arrive as the default export only.
  const { dictionary } = 'dictionary' in language ? language : (language as { default: typeof language }).default;
  return new Set(dictionary['passwords-common']);
});

/**
 * Why a new password is refused, or null when it is accepted. Length (8-128) is the schemas' rule;
 * beyond it only this: not a commonly used password (compared without regard to case, as the list
 * is lower-case), and not the account's own e-mail address or its name before the @. No rule on
 * character classes (NIST SP 800-63B: none). `field` names the request field in the answer.
 */
export async function newPasswordRefusal(field: string, password: string, email?: string): Promise<string | null> {
  const lower = password.toLowerCase();
  if ((await commonPasswordList()).has(lower))
    return `${field}: is one of the most commonly used passwords (found in lists of leaked passwords); choose another`;
  if (email) {
    const address = email.toLowerCase();
    if (lower === address || lower === address.slice(0, address.lastIndexOf('@')))
      return `${field}: is the account's e-mail address; choose another`;
  }
  return null;
}
