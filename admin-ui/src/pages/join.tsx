import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { FormError, NewPasswordFields, Notice, SubmitButton, useSubmit } from '../ui.js';
import { AuthCard, loggedIn, NameField } from './login.js';

/** The token of an invitation link: `#/join?token=...` (it leaves the browser only in the join call). */
function tokenFromHash(): string {
  const query = location.hash.split('?')[1] ?? '';
  return new URLSearchParams(query).get('token') ?? '';
}

/** Where an invitation link lands: the teammate picks a name and a password, and is logged in. */
export function JoinPage() {
  const [token] = useState(tokenFromHash);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, submit } = useSubmit(
    async () => {
      if (password !== repeat) throw new FormError('The two passwords differ.');
      try {
        const res = await api<{ access_token: string }>('POST', '/api/team/join', { token, name, password });
        loggedIn(res.access_token);
      } catch (err) {
        const badLink = err instanceof ApiError && err.status === 400 && err.message.startsWith('token:');
        throw badLink ? new FormError('This invitation is invalid, already used or expired. Ask for a new one.') : err;
      }
    },
    { keepBusy: true },
  );
  return (
    <AuthCard title="Join the team">
      {!token ? (
        <Notice kind="error">This link has no invitation token. Open the link you were sent again.</Notice>
      ) : (
        <form onSubmit={submit} method="post" class="stack">
          {error && <Notice kind="error">{error}</Notice>}
          <NameField label="Your name" name={name} setName={setName} />
          <NewPasswordFields password={password} repeat={repeat} setPassword={setPassword} setRepeat={setRepeat} />
          <SubmitButton busy={busy} label="Join" busyLabel="Joining…" />
        </form>
      )}
      <p class="auth-switch">
        Already have an account? <a href="#/login">Log in</a>
      </p>
    </AuthCard>
  );
}
