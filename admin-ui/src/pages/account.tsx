import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import type { PasswordChanged } from '../types.js';
import {
  Field,
  FormError,
  NewPasswordFields,
  Notice,
  SubmitButton,
  errorText,
  formatDate,
  inputValue,
  useSubmit,
} from '../ui.js';
import { NotificationsSection } from './notifications.js';
import { TeamSection } from './team.js';
import { WebhooksSection } from './webhooks.js';

/** The signed-in user's own account: who they are, and a new password. */
export function AccountPage() {
  const { user } = useSession();
  return (
    <>
      <div class="page-head">
        <h1>Account</h1>
      </div>
      <section class="card stack" aria-labelledby="account-details">
        <h2 id="account-details">Details</h2>
        <dl class="facts">
          {[
            ['Name', user.name],
            ['E-mail', user.email],
            ['Plan', user.plan_id],
            ['Member since', formatDate(user.created_at)],
          ].map(([term, value]) => (
            <div key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </section>
      <ChangePassword />
      <NotificationsSection />
      <TeamSection />
      <WebhooksSection />
    </>
  );
}

/**
 * The current password is asked for (a left-open browser is not enough to take the account
 * over); on success every other session of the account ends, this one stays.
 */
function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setDone(null);
    if (next !== repeat) throw new FormError('The new password and its repetition differ.');
    let res: PasswordChanged;
    try {
      res = await api<PasswordChanged>('POST', '/api/auth/password', {
        current_password: current,
        new_password: next,
      });
    } catch (err) {
      if (errorText(err) === 'current_password: is not correct')
        throw new FormError('The current password is not correct.');
      throw err;
    }
    const others = res.other_sessions_ended;
    setDone(
      `Password changed. ${others === 0 ? 'No other session was open.' : `${others} other session${others === 1 ? ' was' : 's were'} logged out.`}`,
    );
    setCurrent('');
    setNext('');
    setRepeat('');
  });
  return (
    <form class="card section stack" onSubmit={submit} method="post" aria-labelledby="change-password">
      <div class="section-head">
        <h2 id="change-password">Change password</h2>
        <p class="muted">
          Other browsers and devices logged in to this account are logged out; this one stays logged in.
        </p>
      </div>
      {done && <Notice kind="success">{done}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Current password">
        <input
          type="password"
          name="current-password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(inputValue(e))}
        />
      </Field>
      <NewPasswordFields password={next} repeat={repeat} setPassword={setNext} setRepeat={setRepeat} />
      <div class="actions">
        <SubmitButton busy={busy} label="Change password" busyLabel="Saving…" />
      </div>
    </form>
  );
}
