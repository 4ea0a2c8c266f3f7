import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  makeDataDir,
  ManualClock,
  PASSWORD,
  registerUser,
  startTestApp,
  useTestApps,
  uniqueEmail,
  type TestApp,
} from '../helpers/app.js';
import {
  bootServer,
  fromSource,
  killAll,
  postJson,
  runCommand,
  stopServer,
  withTimeout,
} from '../helpers/server-process.js';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../helpers/smtp.js';

/**
 * Changing and resetting a password (issue 22.1): the signed-in change (current password
 * required, other sessions end), the reset link by e-mail (single use, 30 minutes, no account
 * enumeration, capped), and the operator's `users reset-password` on the command line, run as
 * a real child process beside a running server. Mail goes to a real SMTP server on 127.0.0.1.
 */

const NEW_PASSWORD = 'a brand new passphrase';
const PUBLIC_URL = 'https://chat.example.test';
const REQUESTED = 'If an account exists for that address, a reset link has been sent.';
const MAIL_TIMEOUT_MS = 10_000;

const apps = useTestApps();

async function appWithMail(clock = new ManualClock()): Promise<{ t: TestApp; smtp: TestSmtp; clock: ManualClock }> {
  const smtp = await startSmtp();
  apps.after(smtp);
  const t = await apps.start({
    clock,
    env: { SMTP_URL: smtp.url, SMTP_FROM: 'accounts@chat-agent.test', PUBLIC_URL },
  });
  return { t, smtp, clock };
}

const within = <T>(promise: Promise<T>, what: string, ms = MAIL_TIMEOUT_MS): Promise<T> =>
  withTimeout(promise, ms, what);

async function login(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password } });
}

async function loginToken(t: TestApp, email: string, password = PASSWORD): Promise<string> {
  const res = await login(t, email, password);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token;
}

async function me(t: TestApp, token: string): Promise<number> {
  return (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) })).statusCode;
}

function changePassword(t: TestApp, token: string, body: Record<string, unknown>, remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/password',
    headers: auth(token),
    remoteAddress,
    payload: body,
  });
}

function requestReset(t: TestApp, email: string, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/api/auth/password-reset', remoteAddress, payload: { email } });
}

function confirmReset(t: TestApp, token: string, newPassword = NEW_PASSWORD) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/confirm',
    payload: { token, new_password: newPassword },
  });
}

/** The token of the reset link in a received e-mail (the link must be PUBLIC_URL's admin UI page). */
function tokenIn(mail: ReceivedMail): string {
  const match = /(\S+)\/#\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.body);
  expect(match, mail.body).not.toBeNull();
  expect(match![1]).toBe(PUBLIC_URL);
  return match![2]!;
}

function resetRows(t: TestApp): Array<{ user_id: string; token_hash: string; used_at: string | null }> {
  return t.database.sqlite
    .prepare('SELECT user_id, token_hash, used_at FROM password_resets ORDER BY created_at')
    .all() as never;
}

describe('POST /api/auth/password (change, signed in)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  it('a wrong current password is 400 on the field, the client stays logged in, and nothing changes', async () => {
    const { token, email } = await registerUser(t.app);
    const other = await loginToken(t, email);
    const res = await changePassword(t, token, { current_password: 'not my password', new_password: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ detail: 'current_password: is not correct' });
    expect(await me(t, token)).toBe(200);
    expect(await me(t, other)).toBe(200);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(401);
  });

  it('changes the password: the old one fails, the new one works, other sessions end, the caller stays', async () => {
    const { token, email } = await registerUser(t.app);
    const second = await loginToken(t, email);
    const third = await loginToken(t, email);
    const res = await changePassword(t, token, { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      detail: 'Password changed. Other sessions have been logged out.',
      other_sessions_ended: 2,
    });
    expect(await me(t, token)).toBe(200);
    const ended = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(second) });
    expect(ended.statusCode).toBe(401);
    expect(ended.headers['www-authenticate']).toBe('Bearer');
    expect(await me(t, third)).toBe(401);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('the new password follows the register rules (8-128 characters); a missing field is 400 naming it', async () => {
    const { token, email } = await registerUser(t.app);
    const short = await changePassword(t, token, { current_password: PASSWORD, new_password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toMatch(/^new_password: /);
    const long = await changePassword(t, token, { current_password: PASSWORD, new_password: 'x'.repeat(129) });
    expect(long.statusCode).toBe(400);
    const missing = await changePassword(t, token, { new_password: NEW_PASSWORD });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/^current_password: /);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
  });

  it('needs a token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      payload: { current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(res.statusCode).toBe(401);
  });

  it('wrong current passwords count as failed logins: past the limit 429, and guessing stops', async () => {
    const { token, email } = await registerUser(t.app);
    const from = '203.0.113.40';
    for (let i = 0; i < 5; i++)
      expect(
        (await changePassword(t, token, { current_password: `guess ${i}`, new_password: NEW_PASSWORD }, from))
          .statusCode,
      ).toBe(400);
    const limited = await changePassword(t, token, { current_password: PASSWORD, new_password: NEW_PASSWORD }, from);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // the password did not change, and the session was not ended by the refusals
    expect(await me(t, token)).toBe(200);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
  });
});

describe('password reset by e-mail', () => {
  it('GET /api/auth/password-reset says whether reset links can be sent (SMTP_URL set)', async () => {
    const { t } = await appWithMail();
    const on = await t.app.inject({ method: 'GET', url: '/api/auth/password-reset' });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toEqual({ available: true });
    const plain = await apps.start();
    expect((await plain.app.inject({ method: 'GET', url: '/api/auth/password-reset' })).json()).toEqual({
      available: false,
    });
  });

  it('answers an unknown and a known e-mail alike; only the account gets a mail, with a link to the reset page', async () => {
    const { t, smtp } = await appWithMail();
    const { email } = await registerUser(t.app);
    const unknown = await requestReset(t, uniqueEmail('nobody'));
    const known = await requestReset(t, email.toUpperCase());
    expect(unknown.statusCode).toBe(202);
    expect(known.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    expect(known.json()).toEqual({ detail: REQUESTED });
    expect(Object.keys(known.headers).sort()).toEqual(Object.keys(unknown.headers).sort());

    const mail = await within(smtp.waitFor(1), 'the reset e-mail');
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.body).toMatch(/within 30 minutes/);
    const token = tokenIn(mail);
    // the unknown address was handled first (requests are handled in order) and got nothing
    expect(smtp.messages).toHaveLength(1);
    // only the token's hash is stored
    const rows = resetRows(t);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(t.database.sqlite.prepare('SELECT * FROM password_resets').all())).not.toContain(token);
  });

  it('the link sets a new password once; every session of the account ends', async () => {
    const { t, smtp } = await appWithMail();
    const { token: session, email } = await registerUser(t.app);
    expect((await requestReset(t, email)).statusCode).toBe(202);
    const token = tokenIn(await within(smtp.waitFor(1), 'the reset e-mail'));

    const short = await confirmReset(t, token, 'short');
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toMatch(/^new_password: /);

    const ok = await confirmReset(t, token);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ detail: 'Password changed. Log in with the new password.' });
    expect(await me(t, session)).toBe(401);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);

    const again = await confirmReset(t, token, 'yet another passphrase');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: 'token: invalid or expired' });
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);

    const madeUp = await confirmReset(t, 'x'.repeat(43));
    expect(madeUp.statusCode).toBe(400);
    expect(madeUp.json()).toEqual({ detail: 'token: invalid or expired' });
  });

  it('a link expires after 30 minutes', async () => {
    const { t, smtp, clock } = await appWithMail();
    const { email } = await registerUser(t.app);
    await requestReset(t, email);
    const token = tokenIn(await within(smtp.waitFor(1), 'the reset e-mail'));
    clock.advance(30 * 60_000);
    const res = await confirmReset(t, token);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'token: invalid or expired' });
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);

    // one asked for just now works up to its 30th minute
    await requestReset(t, email);
    const fresh = tokenIn(await within(smtp.waitFor(2), 'the second reset e-mail'));
    clock.advance(30 * 60_000 - 1000);
    expect((await confirmReset(t, fresh)).statusCode).toBe(200);
  });

  it('a newer request voids the older link; a password change voids any link', async () => {
    const { t, smtp } = await appWithMail();
    const { token: session, email } = await registerUser(t.app);
    await requestReset(t, email);
    await requestReset(t, email);
    const first = tokenIn(await within(smtp.waitFor(1), 'the first e-mail'));
    const second = tokenIn(await within(smtp.waitFor(2), 'the second e-mail'));
    expect(second).not.toBe(first);
    expect((await confirmReset(t, first)).statusCode).toBe(400);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);

    const change = await changePassword(t, session, { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(change.statusCode, change.body).toBe(200);
    expect((await confirmReset(t, second, 'what the link would set')).statusCode).toBe(400);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('at most 3 reset e-mails per account per hour; the answer stays 202', async () => {
    const { t, smtp, clock } = await appWithMail();
    const { email } = await registerUser(t.app);
    const { email: otherEmail } = await registerUser(t.app);
    for (let i = 0; i < 4; i++) {
      const res = await requestReset(t, email);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ detail: REQUESTED });
    }
    // requests are handled in order: when the other account's mail is in, the fourth was refused
    await requestReset(t, otherEmail);
    await within(smtp.waitFor(4), 'four e-mails');
    expect(smtp.messages.map((m) => m.to[0])).toEqual([email, email, email, otherEmail]);
    expect(resetRows(t).filter((r) => r.used_at === null)).toHaveLength(2); // the account's last and the other's

    clock.advance(60 * 60_000);
    await requestReset(t, email);
    const later = await within(smtp.waitFor(5), 'the e-mail an hour later');
    expect(later.to).toEqual([email]);
    expect((await confirmReset(t, tokenIn(later))).statusCode).toBe(200);
  });

  it('at most 10 requests per client address per hour, whatever the e-mail: then 429', async () => {
    const { t, clock } = await appWithMail();
    for (let i = 0; i < 10; i++)
      expect((await requestReset(t, uniqueEmail('probe'), '198.51.100.20')).statusCode).toBe(202);
    const limited = await requestReset(t, uniqueEmail('probe'), '198.51.100.20');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await requestReset(t, uniqueEmail('probe'), '198.51.100.21')).statusCode).toBe(202);
    clock.advance(60 * 60_000);
    expect((await requestReset(t, uniqueEmail('probe'), '198.51.100.20')).statusCode).toBe(202);
  });

  it('without SMTP the answer is the same 202 and nothing is stored', async () => {
    const t = await apps.start();
    const { email } = await registerUser(t.app);
    const res = await requestReset(t, email);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ detail: REQUESTED });
    await new Promise((resolve) => setImmediate(resolve));
    expect(resetRows(t)).toHaveLength(0);
  });

  it('bad input is 400 naming the field', async () => {
    const t = await apps.start();
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password-reset',
      payload: { email: 'not an address' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^email: /);
    const noToken = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password-reset/confirm',
      payload: { new_password: NEW_PASSWORD },
    });
    expect(noToken.statusCode).toBe(400);
    expect(noToken.json().detail).toMatch(/^token: /);
  });
});

/** Runs `body` with a fresh data dir and the environment the CLI is given (PATH only); the dir is removed after. */
async function inDataDir(body: (dataDir: string, env: { PATH: string }) => Promise<void>): Promise<void> {
  const dataDir = makeDataDir();
  try {
    await body(dataDir, { PATH: process.env.PATH ?? '' });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('chat-agent users reset-password (the real CLI, beside a running server)', () => {
  afterEach(async () => killAll(), 60_000);

  it(
    'sets the password from stdin and ends every session; unknown e-mail and bad input exit 1 with one line',
    { timeout: 90_000 },
    () =>
      inDataDir(async (dataDir, env) => {
        const { server, base } = await bootServer(fromSource(), {
          env: { ...env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
        });
        const email = 'operator-reset@example.com';
        const reg = await postJson(`${base}/api/auth/register`, { name: 'Owner', email, password: PASSWORD });
        expect(reg.status).toBe(201);
        const { access_token: token } = (await reg.json()) as { access_token: string };
        const meStatus = async (bearer: string) =>
          (await fetch(`${base}/api/auth/me`, { headers: auth(bearer) })).status;
        expect(await meStatus(token)).toBe(200);

        const cli = (args: string[], stdin?: string) =>
          runCommand(fromSource(['users', 'reset-password', ...args, '--data-dir', dataDir]), {
            env,
            ...(stdin === undefined ? {} : { stdin }),
          });

        const unknown = await cli(['nobody@example.com', '--password-stdin'], `${NEW_PASSWORD}\n`);
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toBe('error: no account with e-mail nobody@example.com\n');

        const short = await cli([email, '--password-stdin'], 'short\n');
        expect(short.code).toBe(1);
        expect(short.stderr).toMatch(/^error: password: .+\n$/);

        // no terminal and no --password-stdin: it says how to give the password
        const noTerminal = await cli([email]);
        expect(noTerminal.code).toBe(1);
        expect(noTerminal.stderr).toMatch(/^error: .*--password-stdin\n$/);
        expect(await meStatus(token)).toBe(200);

        const done = await cli([email.toUpperCase(), '--password-stdin'], `${NEW_PASSWORD}\n`);
        expect(done.stderr).toBe('');
        expect(done.code).toBe(0);
        expect(done.stdout).toBe(`password of ${email} changed; 1 session(s) ended`);

        // the running server sees it at once
        expect(await meStatus(token)).toBe(401);
        expect((await postJson(`${base}/api/auth/login`, { email, password: PASSWORD })).status).toBe(401);
        expect((await postJson(`${base}/api/auth/login`, { email, password: NEW_PASSWORD })).status).toBe(200);
        await stopServer(server);
      }),
  );
});

/**
 * Issue 31 point 4: `password` was accepted as the owner's password. NIST SP 800-63B asks to
 * refuse passwords found in lists of commonly used or leaked ones, saying why; length stays 8-128
 * and there are no character-class rules. Every place a password is set: register, change,
 * reset link, and the command line (`users create`, `users reset-password`).
 */
describe('commonly used passwords are refused wherever a password is set', () => {
  const COMMON = /: is one of the most commonly used passwords \(found in lists of leaked passwords\); choose another/;

  it('register: 400 naming the field and saying why; any case; nothing is created', async () => {
    const t = await apps.start();
    for (const password of ['password', 'Password', '12345678', 'iloveyou', 'qwertyuiop']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { name: 'Owner', email: 'owner@example.com', password },
      });
      expect(res.statusCode, password).toBe(400);
      expect(res.json().detail).toMatch(new RegExp(`^password${COMMON.source}$`));
    }
    // the account's own e-mail, or its name before the @, is no better
    for (const password of ['owner@example.com', 'OWNER@example.com']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { name: 'Owner', email: 'owner@example.com', password },
      });
      expect(res.statusCode, password).toBe(400);
      expect(res.json().detail).toBe("password: is the account's e-mail address; choose another");
    }
    const named = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'Owner', email: 'jonathan.doe@example.com', password: 'jonathan.doe' },
    });
    expect(named.statusCode).toBe(400);
    expect(named.json().detail).toBe("password: is the account's e-mail address; choose another");
    // no character-class rule: a long lower-case phrase is fine, and so is 8 characters not on the list
    const { token } = await registerUser(t.app, { email: 'owner@example.com', password: 'correct horse battery' });
    expect(await me(t, token)).toBe(200);
    expect((await registerUser(t.app, { password: 'zq8#Lm2v' })).token).toBeTruthy();
  });

  it('change and reset link: 400 on new_password; the old password keeps working', async () => {
    const { t, smtp } = await appWithMail();
    const { token, email } = await registerUser(t.app);
    const change = await changePassword(t, token, { current_password: PASSWORD, new_password: 'password1' });
    expect(change.statusCode).toBe(400);
    expect(change.json().detail).toMatch(new RegExp(`^new_password${COMMON.source}$`));
    const ownEmail = await changePassword(t, token, { current_password: PASSWORD, new_password: email });
    expect(ownEmail.statusCode).toBe(400);
    expect(ownEmail.json().detail).toBe("new_password: is the account's e-mail address; choose another");

    expect((await requestReset(t, email)).statusCode).toBe(202);
    const resetToken = tokenIn(await within(smtp.waitFor(1), 'the reset e-mail'));
    const reset = await confirmReset(t, resetToken, 'sunshine');
    expect(reset.statusCode).toBe(400);
    expect(reset.json().detail).toMatch(new RegExp(`^new_password${COMMON.source}$`));
    expect(await me(t, token)).toBe(200);
    expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
    // the link was not used up by the refusal
    expect((await confirmReset(t, resetToken)).statusCode).toBe(200);
  });

  it('the command line: users create and users reset-password exit 1 with the reason', { timeout: 90_000 }, () =>
    inDataDir(async (dataDir, env) => {
      const cli = (args: string[], stdin?: string) =>
        runCommand(fromSource([...args, '--data-dir', dataDir]), { env, ...(stdin === undefined ? {} : { stdin }) });
      expect((await cli(['migrate'])).code).toBe(0);

      const common = await cli(
        ['users', 'create', 'owner@example.com', '--name', 'Owner', '--password-stdin'],
        'password\n',
      );
      expect(common.code).toBe(1);
      expect(common.stderr).toMatch(new RegExp(`^error: password${COMMON.source}\n$`));

      const created = await cli(
        ['users', 'create', 'owner@example.com', '--name', 'Owner', '--password-stdin'],
        `${PASSWORD}\n`,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);

      const reset = await cli(['users', 'reset-password', 'owner@example.com', '--password-stdin'], 'Password123\n');
      expect(reset.code).toBe(1);
      expect(reset.stderr).toMatch(new RegExp(`^error: password${COMMON.source}\n$`));
    }),
  );
});
