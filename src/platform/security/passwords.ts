import { hash, verify } from '@node-rs/argon2';

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
