import { linkTokenHash, newLinkToken } from '../../platform/security/link-tokens.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/index.js';
import { type Clock, isoNow } from '../../platform/clock.js';
import { badRequest, tooManyRequests } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { Mailer } from '../../platform/mail/index.js';
import { hashPassword } from '../../platform/security/passwords.js';
import { clientBlock } from '../../platform/http/client-address.js';
import { assertNewPassword } from './new-password.js';
import { WindowCounter } from './reset-throttle.js';
import type { AuthRepo } from './repo.js';
import type { ClientInfo } from './sessions.js';

/** How long a reset link works. */
export const RESET_TTL_MS = 30 * 60 * 1000;
/** Reset e-mails one account may be sent in an hour; past it requests still answer 202, and send nothing. */
export const RESETS_PER_ACCOUNT_PER_HOUR = 3;
/** Reset requests one client address (an IPv6 /64) may make in an hour, whatever the e-mail; past it 429. */
export const RESET_REQUESTS_PER_ADDRESS_PER_HOUR = 10;
/** The one answer of POST /api/auth/password-reset, whether or not the account exists. */
export const RESET_REQUESTED = 'If an account exists for that address, a reset link has been sent.';
/** The one refusal of a reset token that is unknown, used, voided or expired. */
export const RESET_TOKEN_INVALID = 'token: invalid or expired';

export interface PasswordResetsDeps {
  repo: AuthRepo;
  config: Pick<Config, 'publicUrl'>;
  clock: Clock;
  /** AuthServiceDeps `mailer`: reset links go straight out */
  mailer: Mailer;
  /** new hash, every session of the account ended, unused reset links voided (AuthService) */
  replacePassword: (userId: string, passwordHash: string) => number;
}

/** Password reset by e-mail: the link asked for, sent, and used. */
export class PasswordResets {
  private readonly resetRequests: WindowCounter;
  private readonly repo: AuthRepo;
  private readonly config: PasswordResetsDeps['config'];
  private readonly clock: Clock;
  private readonly mailer: Mailer;
  private readonly replacePassword: PasswordResetsDeps['replacePassword'];

  constructor({ repo, config, clock, mailer, replacePassword }: PasswordResetsDeps) {
    this.repo = repo;
    this.config = config;
    this.clock = clock;
    this.mailer = mailer;
    this.replacePassword = replacePassword;
    this.resetRequests = new WindowCounter(clock, RESET_REQUESTS_PER_ADDRESS_PER_HOUR, 3600);
  }

  /** Whether reset links can be sent (SMTP_URL is set); the login page shows "Forgot password?" only then. */
  get available(): boolean {
    return this.mailer.configured;
  }

  /**
   * A reset link was asked for. The answer is the same whatever the e-mail (no account
   * enumeration), and so is its timing: only the per-address limit is checked here; looking the
   * account up, storing the token and sending the e-mail happen after the answer has gone out.
   * Throws 429 past the per-address limit.
   */
  request(email: string, client: ClientInfo, log: FastifyBaseLogger): void {
    const wait = this.resetRequests.hit(clientBlock(client.ip));
    if (wait > 0) throw tooManyRequests('Too many password reset requests from this address; try again later', wait);
    if (!this.mailer.configured) return;
    const address = email.toLowerCase();
    setImmediate(() => {
      try {
        this.issue(address, log);
      } catch (err) {
        log.error({ err }, 'password reset request failed');
      }
    });
  }

  /**
   * Stores a new token for the account (voiding its older ones) and sends the link, unless the
   * account does not exist, is not active, or was sent RESETS_PER_ACCOUNT_PER_HOUR links in the
   * last hour. The token appears only in the e-mail: never in the database or the log.
   */
  private issue(email: string, log: FastifyBaseLogger): void {
    const user = this.repo.findUserByEmail(email);
    if (user?.status !== 'active') return;
    const now = this.clock.now();
    const { token, hash: tokenHash } = newLinkToken();
    const issued = this.repo.transaction(() => {
      const hourAgo = new Date(now.getTime() - 3600_000).toISOString();
      if (this.repo.countPasswordResetsSince(user.id, hourAgo) >= RESETS_PER_ACCOUNT_PER_HOUR) return false;
      this.repo.voidPasswordResets(user.id, now.toISOString());
      this.repo.insertPasswordReset({
        id: newId(),
        user_id: user.id,
        token_hash: tokenHash,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + RESET_TTL_MS).toISOString(),
        used_at: null,
      });
      return true;
    });
    if (!issued) {
      log.warn({ userId: user.id }, 'password reset e-mail not sent: the account reached its hourly limit');
      return;
    }
    // the fragment never reaches a server: the token stays out of access logs and Referer headers
    const link = `${this.config.publicUrl}/#/reset-password?token=${token}`;
    const text = [
      `Someone asked to reset the password of the account ${user.email} on ${this.config.publicUrl}.`,
      '',
      `To choose a new password, open this link within 30 minutes. It works once:`,
      link,
      '',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n');
    this.mailer.send({ to: user.email, subject: 'Reset your password', text }).then(
      () => log.info({ userId: user.id }, 'password reset e-mail sent'),
      (err: unknown) =>
        log.warn(
          { userId: user.id, err: err instanceof Error ? err.message : String(err) },
          'password reset e-mail could not be sent',
        ),
    );
  }

  /**
   * Sets a new password with a reset link's token: 400 `token: invalid or expired` for a token
   * unknown, used, voided by a newer one, or past its 30 minutes. Every session of the account ends.
   */
  async confirm(input: { token: string; new_password: string }): Promise<void> {
    const row = this.repo.findPasswordReset(linkTokenHash(input.token));
    const valid = () => row && row.used_at === null && Date.parse(row.expires_at) > this.clock.now().getTime();
    const user = row && valid() ? this.repo.findUserById(row.user_id) : undefined;
    if (!row || !user) throw badRequest(RESET_TOKEN_INVALID);
    // refused before the token is used: the link still works for a better password
    await assertNewPassword('new_password', input.new_password, user.email);
    const passwordHash = await hashPassword(input.new_password);
    this.repo.transaction(() => {
      // checked again after the hash: two uses of one token at once have one winner
      if (!this.repo.usePasswordReset(row.id, isoNow(this.clock))) throw badRequest(RESET_TOKEN_INVALID);
      this.replacePassword(row.user_id, passwordHash);
    });
  }

  /** Housekeeping: reset links a day past their end are forgotten. */
  purgeExpired(now: Date): void {
    this.repo.deletePasswordResetsExpiredBefore(new Date(now.getTime() - 86400_000).toISOString());
  }
}
