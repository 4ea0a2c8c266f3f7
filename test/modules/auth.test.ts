import { statSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { auth, createAgent, ManualClock, PASSWORD, registerUser, uniqueEmail, useTestApps } from '../helpers/app.js';
import { expectNoCredentials, fetchJson } from '../helpers/fetch-json.js';

// Every test starts its own app (own temp DATA_DIR, own SQLite file) and this removes them all.
const start = useTestApps().start;

const MINUTE = 60_000;
const SECOND = 1_000;

function register(app: App, payload: unknown) {
  return app.inject({ method: 'POST', url: '/api/auth/register', payload: payload as Record<string, unknown> });
}

/** How many wrong passwords a new account takes from `ip` before its logins are refused (the per-pair limit). */
async function perPairLimit(app: App, ip: string): Promise<number> {
  const probe = await registerUser(app);
  let limit = 0;
  while ((await login(app, probe.email, 'wrong', ip)).statusCode === 401) limit++;
  return limit;
}

/** An app on a manual clock, an account on it, and the per-pair limit found from `probeIp` with another account. */
async function accountAndPairLimit(probeIp: string) {
  const t = await start({ clock: new ManualClock() });
  const { email } = await registerUser(t.app);
  return { t, email, limit: await perPairLimit(t.app, probeIp) };
}

function login(app: App, email: string, password: string, remoteAddress?: string) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

function me(app: App, token: string) {
  return app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
}

function meWithHeaders(app: App, headers: Record<string, string>) {
  return app.inject({ method: 'GET', url: '/api/auth/me', headers });
}

/** Asserts the 401 (docs/API.md "Tokens") for a bad, missing or expired token. */
function expectCredentials401(res: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toEqual({ detail: 'Could not validate credentials' });
  expect(res.headers['www-authenticate']).toBe('Bearer');
}

/** The first account of an app is its admin; it can change other accounts' status. */
async function setStatus(app: App, adminToken: string, userId: string, status: string) {
  const res = await app.inject({
    method: 'PATCH',
    url: `/api/admin/users/${userId}`,
    headers: auth(adminToken),
    payload: { status },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().status).toBe(status);
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('POST /api/auth/register', () => {
  it('answers 201 with a bearer token that works at once', async () => {
    const t = await start();
    const res = await register(t.app, { name: 'Ada', email: uniqueEmail(), password: PASSWORD });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'token_type']);
    expect(body.token_type).toBe('bearer');
    expect(typeof body.access_token).toBe('string');
    // an HS256 JWT carrying sub and sid (docs/API.md "Tokens")
    const [header] = body.access_token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    const claims = decodeJwt(body.access_token);
    expect(typeof claims.sub).toBe('string');
    expect(typeof claims.sid).toBe('string');
    const who = await me(t.app, body.access_token);
    expect(who.statusCode).toBe(200);
    expect(who.json().id).toBe(claims.sub);
    expect(who.json().name).toBe('Ada');
  });

  it('stores the email lower-case and refuses the same address in any case', async () => {
    const t = await start();
    const res = await register(t.app, { name: 'Mixed', email: '  Mixed.Case@Example.COM ', password: PASSWORD });
    expect(res.statusCode, res.body).toBe(201);
    const who = await me(t.app, res.json().access_token);
    expect(who.json().email).toBe('mixed.case@example.com');

    for (const email of ['mixed.case@example.com', 'MIXED.CASE@EXAMPLE.COM', 'mIxEd.cAsE@example.com']) {
      const dup = await register(t.app, { name: 'Again', email, password: PASSWORD });
      expect(dup.statusCode, email).toBe(400);
      expect(typeof dup.json().detail).toBe('string');
      expect(dup.json().detail).toMatch(/email/i);
    }
    // still exactly one account with that address
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: auth(res.json().access_token) });
    expect(list.json().filter((u: any) => u.email === 'mixed.case@example.com')).toHaveLength(1);
  });

  it.each([
    ['name', { name: '', email: 'a@example.com', password: PASSWORD }],
    ['name', { name: '   ', email: 'a@example.com', password: PASSWORD }],
    ['name', { name: 'x'.repeat(101), email: 'a@example.com', password: PASSWORD }],
    ['name', { email: 'a@example.com', password: PASSWORD }],
    ['name', { name: 42, email: 'a@example.com', password: PASSWORD }],
    ['password', { name: 'A', email: 'a@example.com', password: 'short77' }],
    ['password', { name: 'A', email: 'a@example.com', password: 'p'.repeat(129) }],
    ['password', { name: 'A', email: 'a@example.com' }],
    ['email', { name: 'A', email: 'not-an-email', password: PASSWORD }],
    ['email', { name: 'A', email: 'a@', password: PASSWORD }],
    ['email', { name: 'A', email: '', password: PASSWORD }],
    ['email', { name: 'A', password: PASSWORD }],
  ])('refuses a bad %s with 400 and a detail naming it (%j)', async (field, payload) => {
    const t = await start();
    const res = await register(t.app, payload);
    expect(res.statusCode).toBe(400);
    const detail = res.json().detail;
    expect(typeof detail).toBe('string');
    expect(detail).toContain(field);
    // nothing was created: the first real registration still becomes the admin
    const { token } = await registerUser(t.app);
    expect((await me(t.app, token)).json().role).toBe('admin');
  });

  it('accepts the limits themselves: name of 1 and 100 chars, password of 8 and 128', async () => {
    const t = await start();
    for (const [name, password] of [
      ['a', 'zq8#Lm2v'], // 8 characters, and not a commonly used password
      ['n'.repeat(100), 'p'.repeat(128)],
    ] as const) {
      const res = await register(t.app, { name, email: uniqueEmail(), password });
      expect(res.statusCode, res.body).toBe(201);
      expect((await me(t.app, res.json().access_token)).json().name).toBe(name);
    }
  });

  it('refuses a body that is not JSON with 400', async () => {
    const t = await start();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "A", "email":',
    });
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
  });

  it('makes the first account admin and later ones user, all active and with last_login set', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const t = await start({ clock });
    const first = await registerUser(t.app, { name: 'Owner' });
    clock.advance(MINUTE);
    const second = await registerUser(t.app, { name: 'Guest' });

    const a = (await me(t.app, first.token)).json();
    const b = (await me(t.app, second.token)).json();
    expect(a.role).toBe('admin');
    expect(b.role).toBe('user');
    expect(a.status).toBe('active');
    expect(b.status).toBe('active');
    // the server's owner is not held to the free plan (issue 22.3); later accounts get DEFAULT_PLAN
    expect(a.plan_id).toBe('owner');
    expect(b.plan_id).toBe('free');
    expect(a.created_at).toBe('2026-03-01T12:00:00.000Z');
    expect(a.last_login).toBe('2026-03-01T12:00:00.000Z');
    expect(b.created_at).toBe('2026-03-01T12:01:00.000Z');
    expect(b.last_login).toBe('2026-03-01T12:01:00.000Z');
    expect(a.id).not.toBe(b.id);
  });

  it('gives new accounts the plan named by DEFAULT_PLAN', async () => {
    const t = await start({ env: { DEFAULT_PLAN: 'starter' } });
    const first = await registerUser(t.app);
    const second = await registerUser(t.app);
    expect((await me(t.app, first.token)).json().plan_id).toBe('starter');
    expect((await me(t.app, second.token)).json().plan_id).toBe('starter');
  });
});

describe('REGISTRATION modes', () => {
  it('first-only: the first account registers, the second gets 403', async () => {
    const t = await start({ env: { REGISTRATION: 'first-only' } });
    const first = await register(t.app, { name: 'Owner', email: uniqueEmail(), password: PASSWORD });
    expect(first.statusCode).toBe(201);
    const second = await register(t.app, { name: 'Late', email: uniqueEmail(), password: PASSWORD });
    expect(second.statusCode).toBe(403);
    expect(typeof second.json().detail).toBe('string');
    expect(second.json()).not.toHaveProperty('access_token');
    // the owner can still log in; only one account exists
    const users = await t.app.inject({
      method: 'GET',
      url: '/api/admin/users',
      headers: auth(first.json().access_token),
    });
    expect(users.json()).toHaveLength(1);
  });

  it('first-only is the default when REGISTRATION is unset', async () => {
    // startTestApp defaults REGISTRATION to open; an empty value counts as unset
    const t = await start({ env: { REGISTRATION: '' } });
    expect(t.config.registration).toBe('first-only');
    expect((await register(t.app, { name: 'Owner', email: uniqueEmail(), password: PASSWORD })).statusCode).toBe(201);
    expect((await register(t.app, { name: 'Late', email: uniqueEmail(), password: PASSWORD })).statusCode).toBe(403);
  });

  it('closed: even the first registration gets 403', async () => {
    const t = await start({ env: { REGISTRATION: 'closed' } });
    const res = await register(t.app, { name: 'Owner', email: uniqueEmail(), password: PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(typeof res.json().detail).toBe('string');
    const email = uniqueEmail();
    expect((await register(t.app, { name: 'Owner', email, password: PASSWORD })).statusCode).toBe(403);
    // and no account was made behind the refusal
    expect((await login(t.app, email, PASSWORD)).statusCode).toBe(401);
  });

  it('open: anyone may register', async () => {
    const t = await start({ env: { REGISTRATION: 'open' } });
    for (let i = 0; i < 3; i++) {
      expect((await register(t.app, { name: `U${i}`, email: uniqueEmail(), password: PASSWORD })).statusCode).toBe(201);
    }
  });
});

describe('POST /api/auth/login', () => {
  it('answers 200 with a new working token and a different session from register', async () => {
    const t = await start();
    const { token: regToken, email } = await registerUser(t.app);
    const res = await login(t.app, email, PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(res.json().token_type).toBe('bearer');
    const token = res.json().access_token;
    expect(decodeJwt(token).sid).not.toBe(decodeJwt(regToken).sid);
    expect(decodeJwt(token).sub).toBe(decodeJwt(regToken).sub);
    expect((await me(t.app, token)).statusCode).toBe(200);
  });

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const t = await start();
    const { email } = await registerUser(t.app);
    const wrong = await login(t.app, email, 'not the password');
    const unknown = await login(t.app, 'nobody@example.com', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: 'Incorrect email or password' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('refuses the right password of another account', async () => {
    const t = await start();
    const a = await registerUser(t.app, { password: 'password-of-a' });
    const b = await registerUser(t.app, { password: 'password-of-b' });
    expect((await login(t.app, a.email, 'password-of-b')).statusCode).toBe(401);
    expect((await login(t.app, b.email, 'password-of-a')).statusCode).toBe(401);
    expect((await login(t.app, b.email, 'password-of-b')).statusCode).toBe(200);
  });

  it('matches the email without regard to case', async () => {
    const t = await start();
    await registerUser(t.app, { email: 'Case.User@Example.com' });
    for (const email of ['case.user@example.com', 'CASE.USER@EXAMPLE.COM', ' Case.User@example.COM ']) {
      const res = await login(t.app, email, PASSWORD);
      expect(res.statusCode, email).toBe(200);
    }
    // the password is not case-insensitive
    expect((await login(t.app, 'case.user@example.com', PASSWORD.toUpperCase())).statusCode).toBe(401);
  });

  it('updates last_login to the time of the login', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const t = await start({ clock });
    const { email, token } = await registerUser(t.app);
    expect((await me(t.app, token)).json().last_login).toBe('2026-03-01T12:00:00.000Z');

    clock.advance(2 * 3600 * SECOND);
    // a failed login does not count as a login
    expect((await login(t.app, email, 'wrong password')).statusCode).toBe(401);
    expect((await me(t.app, token)).json().last_login).toBe('2026-03-01T12:00:00.000Z');

    const res = await login(t.app, email, PASSWORD);
    expect(res.statusCode).toBe(200);
    const after = (await me(t.app, res.json().access_token)).json();
    expect(after.last_login).toBe('2026-03-01T14:00:00.000Z');
    expect(after.created_at).toBe('2026-03-01T12:00:00.000Z');
  });

  it('answers 400 naming the field for a missing email or password', async () => {
    const t = await start();
    const noEmail = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: PASSWORD } });
    expect(noEmail.statusCode).toBe(400);
    expect(noEmail.json().detail).toContain('email');
    const noPassword = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'a@example.com' },
    });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().detail).toContain('password');
  });
});

describe('GET /api/auth/me and POST /api/auth/logout', () => {
  it('me returns the User object and nothing secret', async () => {
    const t = await start();
    const { token, email } = await registerUser(t.app, { name: 'Grace' });
    const res = await me(t.app, token);
    expect(res.statusCode).toBe(200);
    const user = res.json();
    expect(Object.keys(user).sort()).toEqual(
      ['created_at', 'email', 'id', 'last_login', 'name', 'plan_expires_at', 'plan_id', 'role', 'status'].sort(),
    );
    expect(user).toMatchObject({
      name: 'Grace',
      email,
      role: 'admin',
      status: 'active',
      plan_id: 'owner',
      plan_expires_at: null,
    });
    expect(typeof user.id).toBe('string');
    expect(Number.isNaN(Date.parse(user.created_at))).toBe(false);
    expect(res.body).not.toContain('password');
    expect(res.body).not.toContain('argon2');
  });

  it('logout answers 200 with a message and ends that session only', async () => {
    const t = await start();
    const { token, email } = await registerUser(t.app);
    const other = (await login(t.app, email, PASSWORD)).json().access_token as string;

    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(token) });
    expect(out.statusCode).toBe(200);
    expect(typeof out.json().message).toBe('string');
    expect(out.json().message.length).toBeGreaterThan(0);

    expectCredentials401(await me(t.app, token));
    expectCredentials401(await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(token) }));
    expectCredentials401(await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(token) }));
    // the other session of the same user is untouched
    expect((await me(t.app, other)).statusCode).toBe(200);
    // and logging in again gives a working token
    const again = (await login(t.app, email, PASSWORD)).json().access_token as string;
    expect((await me(t.app, again)).statusCode).toBe(200);
  });
});

describe('bearer authentication', () => {
  it('refuses a missing, malformed or foreign-scheme Authorization header', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    expectCredentials401(await meWithHeaders(t.app, {}));
    expectCredentials401(await meWithHeaders(t.app, { authorization: 'Bearer garbage' }));
    expectCredentials401(await meWithHeaders(t.app, { authorization: 'Bearer ' }));
    expectCredentials401(await meWithHeaders(t.app, { authorization: 'Bearer' }));
    expectCredentials401(
      await meWithHeaders(t.app, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
    );
    expectCredentials401(await meWithHeaders(t.app, { authorization: `Token ${token}` }));
    expectCredentials401(await meWithHeaders(t.app, { authorization: token }));
    expectCredentials401(await meWithHeaders(t.app, { authorization: `Bearer ${token} extra` }));
    // the same token in the right scheme works, so the refusals above are about the header
    expect((await meWithHeaders(t.app, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });

  it('guards every bearer endpoint, not only /me', async () => {
    const t = await start();
    expectCredentials401(await t.app.inject({ method: 'POST', url: '/api/auth/logout' }));
    expectCredentials401(await t.app.inject({ method: 'GET', url: '/api/chatbots' }));
    expectCredentials401(await t.app.inject({ method: 'POST', url: '/api/chatbots', payload: { name: 'x' } }));
    expectCredentials401(await t.app.inject({ method: 'GET', url: '/api/admin/users' }));
  });

  it('refuses a token signed with another secret', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const { sub, sid, iat, exp } = decodeJwt(token);
    const forged = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(sub!)
      .setIssuedAt(iat!)
      .setExpirationTime(exp!)
      .sign(new TextEncoder().encode('another-secret-that-is-at-least-32-bytes-long'));
    expectCredentials401(await me(t.app, forged));
    expect((await me(t.app, token)).statusCode).toBe(200);
  });

  it('refuses an unsigned alg:none token carrying real claims', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const claims = decodeJwt(token);
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
    expectCredentials401(await me(t.app, unsigned));
    // and alg:none with the real signature left on
    const withSig = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.${token.split('.')[2]}`;
    expectCredentials401(await me(t.app, withSig));
  });

  it('refuses a token signed with the right secret but another algorithm', async () => {
    const t = await start();
    const { token } = await registerUser(t.app);
    const { sub, sid, exp } = decodeJwt(token);
    const hs512 = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
      .setSubject(sub!)
      .setExpirationTime(exp!)
      .sign(t.config.jwtSecret);
    expectCredentials401(await me(t.app, hs512));
  });

  it('refuses a genuine token whose payload was altered', async () => {
    const t = await start();
    const admin = await registerUser(t.app);
    const user = await registerUser(t.app);
    const adminClaims = decodeJwt(admin.token);
    const [header, payload, signature] = user.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    // become the admin while keeping the user's signature
    const tampered = `${header}.${b64url({ ...claims, sub: adminClaims.sub, sid: adminClaims.sid })}.${signature}`;
    expectCredentials401(await me(t.app, tampered));
    // or stretch the expiry
    const later = `${header}.${b64url({ ...claims, exp: claims.exp + 10 * 365 * 86400 })}.${signature}`;
    expectCredentials401(await me(t.app, later));
    // a flipped signature character
    const flipped = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expectCredentials401(await me(t.app, flipped));
    expect((await me(t.app, user.token)).json().role).toBe('user');
  });

  it('refuses a correctly signed token whose sub and sid do not belong together or do not exist', async () => {
    const t = await start();
    const admin = await registerUser(t.app);
    const user = await registerUser(t.app);
    const a = decodeJwt(admin.token);
    const u = decodeJwt(user.token);
    const sign = (sub: string, sid: string) =>
      new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(sub)
        .setExpirationTime(u.exp!)
        .sign(t.config.jwtSecret);
    // the user's session claimed for the admin's id
    expectCredentials401(await me(t.app, await sign(a.sub!, u.sid as string)));
    // a session that never existed
    expectCredentials401(await me(t.app, await sign(u.sub!, 'no-such-session')));
    // re-signed with the true pair it works, which shows the signer above is right
    expect((await me(t.app, await sign(u.sub!, u.sid as string))).json().id).toBe(u.sub);
  });

  it('refuses a token after an idle period, but each use renews the idle timer', async () => {
    const clock = new ManualClock();
    const t = await start({ clock, env: { SESSION_IDLE_TIMEOUT_S: '600' } });
    const { token } = await registerUser(t.app);
    const idle = (await registerUser(t.app)).token;

    clock.advance(500 * SECOND);
    expect((await me(t.app, token)).statusCode).toBe(200); // renews
    clock.advance(500 * SECOND); // 1000 s after issue, 500 s after last use
    expect((await me(t.app, token)).statusCode).toBe(200);
    expectCredentials401(await me(t.app, idle)); // never used for 1000 s

    clock.advance(601 * SECOND);
    expectCredentials401(await me(t.app, token));
    // and it stays dead: going back in use does not revive it
    expectCredentials401(await me(t.app, token));
  });

  it('expires an unused token just after SESSION_IDLE_TIMEOUT_S', async () => {
    const clock = new ManualClock();
    const t = await start({ clock, env: { SESSION_IDLE_TIMEOUT_S: '600' } });
    const a = (await registerUser(t.app)).token;
    const b = (await registerUser(t.app)).token;
    clock.advance(599 * SECOND);
    expect((await me(t.app, a)).statusCode).toBe(200);
    clock.advance(2 * SECOND); // b now idle 601 s
    expectCredentials401(await me(t.app, b));
  });

  it('refuses a token older than SESSION_MAX_AGE_S however often it is used', async () => {
    const clock = new ManualClock();
    const t = await start({ clock, env: { SESSION_IDLE_TIMEOUT_S: '900', SESSION_MAX_AGE_S: '3600' } });
    const { token, email } = await registerUser(t.app);
    for (let elapsed = 600; elapsed <= 3000; elapsed += 600) {
      clock.advance(600 * SECOND);
      expect((await me(t.app, token)).statusCode, `at ${elapsed} s`).toBe(200);
    }
    clock.advance(599 * SECOND); // 3599 s
    expect((await me(t.app, token)).statusCode).toBe(200);
    clock.advance(2 * SECOND); // 3601 s
    expectCredentials401(await me(t.app, token));
    // the account is fine: logging in again starts a new session
    const fresh = (await login(t.app, email, PASSWORD)).json().access_token as string;
    expect((await me(t.app, fresh)).statusCode).toBe(200);
  });
});

describe('suspended and banned users', () => {
  it.each(['suspended', 'banned'])(
    'a %s user gets 403 on login and on every bearer call, and works again once active',
    async (status) => {
      const t = await start();
      const admin = await registerUser(t.app);
      const user = await registerUser(t.app);
      const userId = (await me(t.app, user.token)).json().id as string;
      const agent = await createAgent(t.app, user.token);

      await setStatus(t.app, admin.token, userId, status);

      const refusedLogin = await login(t.app, user.email, PASSWORD);
      expect(refusedLogin.statusCode).toBe(403);
      expect(refusedLogin.json()).not.toHaveProperty('access_token');
      expect(typeof refusedLogin.json().detail).toBe('string');
      // a wrong password still says only that the password is wrong
      expect((await login(t.app, user.email, 'wrong password')).statusCode).toBe(401);

      const calls = [
        { method: 'GET', url: '/api/auth/me' },
        { method: 'GET', url: '/api/chatbots' },
        { method: 'GET', url: `/api/chatbots/${agent.id}` },
        { method: 'POST', url: '/api/chatbots', payload: { name: 'Another' } },
        { method: 'DELETE', url: `/api/chatbots/${agent.id}` },
        { method: 'POST', url: '/api/auth/logout' },
      ] as const;
      for (const call of calls) {
        const res = await t.app.inject({ ...call, headers: auth(user.token) });
        expect(res.statusCode, `${call.method} ${call.url}`).toBe(403);
      }
      // none of those went through
      await setStatus(t.app, admin.token, userId, 'active');
      const list = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(user.token) });
      expect(list.statusCode).toBe(200);
      expect(list.json().map((a: any) => a.id)).toEqual([agent.id]);
      expect((await me(t.app, user.token)).json().status).toBe('active');
      expect((await login(t.app, user.email, PASSWORD)).statusCode).toBe(200);
    },
  );

  it('suspending one user leaves the others alone', async () => {
    const t = await start();
    const admin = await registerUser(t.app);
    const a = await registerUser(t.app);
    const b = await registerUser(t.app);
    await setStatus(t.app, admin.token, (await me(t.app, a.token)).json().id, 'suspended');
    expect((await me(t.app, a.token)).statusCode).toBe(403);
    expect((await me(t.app, b.token)).statusCode).toBe(200);
    expect((await login(t.app, b.email, PASSWORD)).statusCode).toBe(200);
  });
});

describe('login throttle', () => {
  it('answers 429 with Retry-After after repeated wrong passwords, and lifts when the window ends', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const { email } = await registerUser(t.app);

    let throttled: Awaited<ReturnType<typeof login>> | undefined;
    let failures = 0;
    for (let i = 0; i < 50 && !throttled; i++) {
      const res = await login(t.app, email, `wrong password ${i}`);
      if (res.statusCode === 429) throttled = res;
      else {
        expect(res.statusCode).toBe(401);
        failures++;
      }
    }
    expect(throttled, 'no 429 after 50 wrong passwords').toBeDefined();
    expect(failures).toBeGreaterThanOrEqual(3);
    const retryAfter = Number(throttled!.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(typeof throttled!.json().detail).toBe('string');

    // while throttled even the right password is held back (no oracle for the guesser)
    const held = await login(t.app, email, PASSWORD);
    expect(held.statusCode).toBe(429);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);

    // moving time by less than Retry-After keeps the block, and Retry-After counts down
    clock.advance(Math.floor(retryAfter / 2) * SECOND);
    const stillHeld = await login(t.app, email, PASSWORD);
    expect(stillHeld.statusCode).toBe(429);
    expect(Number(stillHeld.headers['retry-after'])).toBeLessThan(retryAfter);
    expect(Number(stillHeld.headers['retry-after'])).toBeGreaterThan(0);

    // past the window the owner gets in
    clock.advance((retryAfter + 1) * SECOND);
    const ok = await login(t.app, email, PASSWORD);
    expect(ok.statusCode).toBe(200);
    expect((await me(t.app, ok.json().access_token)).statusCode).toBe(200);
  });

  it('does not block the same account from another address on the per-pair limit', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const { email } = await registerUser(t.app);
    let blocked = false;
    for (let i = 0; i < 50 && !blocked; i++) {
      blocked = (await login(t.app, email, 'wrong password', '203.0.113.7')).statusCode === 429;
    }
    expect(blocked).toBe(true);
    expect((await login(t.app, email, PASSWORD, '203.0.113.7')).statusCode).toBe(429);
    // the owner at home is not affected
    expect((await login(t.app, email, PASSWORD, '198.51.100.20')).statusCode).toBe(200);
    // and a wrong password from there is a plain 401, not a 429
    expect((await login(t.app, email, 'wrong password', '198.51.100.21')).statusCode).toBe(401);
    // the default inject address (127.0.0.1) is a third address
    expect((await login(t.app, email, PASSWORD)).statusCode).toBe(200);
  });

  it("a distributed attack on one account blocks new addresses but not the owner's usual one", async () => {
    const t = await start({ clock: new ManualClock() });
    const { email } = await registerUser(t.app);
    // the owner logged in from home before the attack
    expect((await login(t.app, email, PASSWORD, '198.51.100.77')).statusCode).toBe(200);
    // many addresses, each guessing a little (under the per-pair limit), until the account limit bites
    let blocked = false;
    for (let i = 0; i < 300 && !blocked; i++) {
      const res = await login(t.app, email, 'guess', `203.0.113.${i % 250}`);
      blocked = res.statusCode === 429;
      if (!blocked) expect(res.statusCode).toBe(401);
    }
    expect(blocked, 'the per-account limit never engaged').toBe(true);
    // a fresh address is held back for this account...
    expect((await login(t.app, email, PASSWORD, '192.0.2.200')).statusCode).toBe(429);
    // ...but the owner's usual address still gets in
    expect((await login(t.app, email, PASSWORD, '198.51.100.77')).statusCode).toBe(200);
  });

  it('throttles one address guessing across many accounts', async () => {
    const t = await start({ clock: new ManualClock() });
    const { email } = await registerUser(t.app);
    let blockedAt = -1;
    for (let i = 0; i < 200 && blockedAt < 0; i++) {
      const res = await login(t.app, `victim${i}@example.com`, 'guess', '203.0.113.50');
      if (res.statusCode === 429) blockedAt = i;
      else expect(res.statusCode).toBe(401);
    }
    expect(blockedAt, 'one address may not try unlimited accounts').toBeGreaterThan(0);
    // that address is now held back for a fresh account too
    const res = await login(t.app, email, PASSWORD, '203.0.113.50');
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(t.app, email, PASSWORD, '198.51.100.1')).statusCode).toBe(200);
  });

  it('does not count correct logins against the address, and a correct login resets the pair', async () => {
    const { t, email, limit } = await accountAndPairLimit('192.0.2.9');
    expect(limit).toBeGreaterThan(1);

    // many people behind one address logging in correctly are never throttled
    for (let i = 0; i < 40; i++) {
      expect((await login(t.app, email, PASSWORD, '192.0.2.10')).statusCode, `login ${i}`).toBe(200);
    }
    // a typo or two, then the right password, starts the pair's count again
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < limit - 1; i++) {
        expect((await login(t.app, email, 'typo', '192.0.2.11')).statusCode).toBe(401);
      }
      expect((await login(t.app, email, PASSWORD, '192.0.2.11')).statusCode).toBe(200);
    }
  });

  it('cannot be outrun by sending many guesses at once', async () => {
    // find the per-pair limit sequentially on another account first
    const { t, email, limit } = await accountAndPairLimit('192.0.2.1');
    expect(limit).toBeGreaterThan(0);

    const results = await Promise.all(
      Array.from({ length: limit * 4 }, (_, i) => login(t.app, email, `parallel guess ${i}`, '192.0.2.2')),
    );
    const checked = results.filter((r) => r.statusCode === 401).length;
    expect(results.every((r) => r.statusCode === 401 || r.statusCode === 429)).toBe(true);
    expect(
      checked,
      `${checked} of ${results.length} parallel guesses were checked; the limit is ${limit}`,
    ).toBeLessThanOrEqual(limit);
  });
});

describe('persistence across a restart', () => {
  it('keeps the JWT secret (mode 0600), sessions and data in DATA_DIR', async () => {
    const first = await start();
    const { token, email } = await registerUser(first.app);
    const agent = await createAgent(first.app, token, { name: 'Persistent bot' });
    const secretFile = path.join(first.dataDir, 'jwt-secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    await first.close();

    const second = await start({ dataDir: first.dataDir });
    expect(Buffer.from(second.config.jwtSecret).equals(Buffer.from(first.config.jwtSecret))).toBe(true);
    const who = await me(second.app, token);
    expect(who.statusCode).toBe(200);
    expect(who.json().email).toBe(email);
    const list = await second.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(token) });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((a: any) => a.id)).toEqual([agent.id]);
    expect(list.json()[0].name).toBe('Persistent bot');
    expect((await login(second.app, email, PASSWORD)).statusCode).toBe(200);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  });

  it('a token from another data dir (another secret) is refused', async () => {
    const a = await start();
    const b = await start();
    const { token } = await registerUser(a.app);
    await registerUser(b.app);
    expectCredentials401(await me(b.app, token));
  });

  it('a logged-out token stays dead after a restart', async () => {
    const first = await start();
    const { token } = await registerUser(first.app);
    expect((await first.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(token) })).statusCode).toBe(
      200,
    );
    await first.close();
    const second = await start({ dataDir: first.dataDir });
    expectCredentials401(await me(second.app, token));
  });
});

describe('over a real socket', () => {
  it('registers, reads /me and is refused without a token', async () => {
    const t = await start();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;

    const reg = await fetchJson(`${base}/api/auth/register`, 'POST', {
      name: 'Socket',
      email: 'Socket.User@Example.com',
      password: PASSWORD,
    });
    expect(reg.status).toBe(201);
    const { access_token, token_type } = (await reg.json()) as { access_token: string; token_type: string };
    expect(token_type).toBe('bearer');

    const who = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(who.status).toBe(200);
    expect(who.headers.get('content-type')).toMatch(/^application\/json/);
    const user = (await who.json()) as Record<string, unknown>;
    expect(user.email).toBe('socket.user@example.com');
    expect(user.role).toBe('admin');
    expect(user).not.toHaveProperty('password_hash');

    await expectNoCredentials(await fetch(`${base}/api/auth/me`));

    const bad = await fetchJson(`${base}/api/auth/login`, 'POST', {
      email: 'socket.user@example.com',
      password: 'wrong password',
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ detail: 'Incorrect email or password' });
  });
});
