import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { FIELD_MAX } from '../field-limits.js';
import { useSession } from '../session.js';
import type { PasswordChanged, TeamMe } from '../types.js';
import {
  Field,
  FormError,
  NewPasswordFields,
  Notice,
  SubmitButton,
  errorText,
  formatDate,
  inputValue,
  toast,
  useAsync,
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
      <DisplayName />
      <ChangePassword />
      <NotificationsSection />
      <TeamSection />
      <WebhooksSection />
    </>
  );
}

/** The name visitors see on this person's replies in live chats (their name unless they choose one). */
function DisplayName() {
  const me = useAsync(() => get<TeamMe>('/api/team/me'), []);
  const [value, setValue] = useState<string | null>(null);
  const shown = value ?? me.data?.display_name ?? '';
  const { busy, error, submit } = useSubmit(async () => {
    const saved = await api<TeamMe>('PUT', '/api/team/me', { display_name: shown.trim() || null });
    me.setData(saved);
    setValue(null);
    toast(`Visitors now see “${saved.display_name}”`);
  });
  return (
    <form class="card section stack" onSubmit={submit} method="post" aria-labelledby="display-name-title">
      <div class="section-head">
        <h2 id="display-name-title">Name shown to visitors</h2>
        <p class="muted">
          When you answer a visitor yourself, their chat shows this name on your messages. Leave it empty to use your
          name.
        </p>
      </div>
      {me.error && <Notice kind="error">{me.error}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Display name">
        <input
          name="display-name"
          maxLength={FIELD_MAX.inbox.display_name}
          value={shown}
          onInput={(e) => setValue(inputValue(e))}
        />
      </Field>
      <div class="actions">
        <SubmitButton busy={busy} label="Save display name" busyLabel="Saving…" />
      </div>
    </form>
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
