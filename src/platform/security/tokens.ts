import { jwtVerify, SignJWT } from 'jose';

export interface TokenClaims {
  userId: string;
  sessionId: string;
}

/**
 * HS256 JWTs carrying `sub` (user id) and `sid` (session id). The algorithm list on verify is
 * explicit, so `alg: none` and any other algorithm are refused. The token alone is never enough:
 * the caller also checks the session row (logout, idle and absolute timeouts).
 */
export class TokenSigner {
  constructor(private readonly secret: Uint8Array) {}

  sign(claims: TokenClaims, issuedAt: Date, expiresAt: Date): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.secret);
  }

  /** The claims, or null for anything malformed, forged, of another algorithm, or expired at `now`. */
  async verify(token: string, now: Date): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        currentDate: now,
        requiredClaims: ['sub', 'sid', 'exp'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
      return { userId: payload.sub, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
