import { createHash, randomBytes } from 'node:crypto';

// Single-use tokens carried by a link (a password reset, an e-mail address's confirmation, a team
// invitation): 256 random bits, and only their SHA-256 stored, so a copy of the database opens
// no link.

/** A new link token (URL-safe) and the hash to store for it. */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: linkTokenHash(token) };
}

/** The stored form of a link token, to look one up by. */
export function linkTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
