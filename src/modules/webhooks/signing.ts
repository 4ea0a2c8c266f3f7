import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The `Chat-Agent-Signature` header (Stripe-style): `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>" with the secret as the key>`. The secret is used as its UTF-8 text, prefix included.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/** What a receiver does (docs/API-NOTES.md "Webhooks"): true when a v1 signature matches and t is within tolerance. */
export function verifySignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceS = 300,
): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceS) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return parts.some(
    ([k, v]) =>
      k === 'v1' && v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected),
  );
}
