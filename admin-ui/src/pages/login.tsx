import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, get, setToken, takeReturnTo } from '../api.js';
import { navigate } from '../router.js';
import type { RegistrationState } from '../types.js';
import { Field, Notice, errorText, useAsync, valueOf } from '../ui.js';

function loggedIn(token: string) {
  setToken(token);
  window.dispatchEvent(new Event('chat-agent:logged-in'));
  navigate(takeReturnTo() ?? '#/agents');
}

function AuthCard({ title, children, registration }: { title: string; children: ComponentChildren; registration?: RegistrationState }) {
  return (
    <main class="auth">
      {/* data-registration: set once the server said whether registration is open (tests wait on it) */}
      <div class="auth-card" data-registration={registration ? (registration.open ? 'open' : 'closed') : undefined}>
        <p class="brand brand-large">Chat Agent</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function LoginPage() {
  const registration = useAsync(() => get<RegistrationState>('/api/auth/registration'), []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ access_token: string }>('POST', '/api/auth/login', { email, password });
      loggedIn(res.access_token);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Log in" registration={registration.data}>
      <form onSubmit={submit} method="post" class="stack">
        {error && <Notice kind="error">{error}</Notice>}
        <Field label="E-mail">
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Password">
          <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(valueOf(e))} />
        </Field>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      {registration.data?.open && (
        <p class="auth-switch">
          No account yet? <a href="#/register">Create an account</a>
        </p>
      )}
    </AuthCard>
  );
}

export function RegisterPage() {
  const registration = useAsync(() => get<RegistrationState>('/api/auth/registration'), []);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ access_token: string }>('POST', '/api/auth/register', { name, email, password });
      loggedIn(res.access_token);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  if (registration.data && !registration.data.open) {
    return (
      <AuthCard title="Create an account">
        <Notice kind="info">
          {registration.data.registration === 'first-only'
            ? 'This server already has its owner account. Ask the owner for an account.'
            : 'Registration is closed on this server. Ask the administrator for an account.'}
        </Notice>
        <p class="auth-switch">
          <a href="#/login">Back to log in</a>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account">
      {registration.data?.registration === 'first-only' && <p class="muted">The first account on this server becomes its administrator.</p>}
      <form onSubmit={submit} method="post" class="stack">
        {error && <Notice kind="error">{error}</Notice>}
        <Field label="Name">
          <input name="name" autocomplete="name" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="E-mail">
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Password" hint="8 to 128 characters">
          <input type="password" name="password" autocomplete="new-password" required minLength={8} maxLength={128} value={password} onInput={(e) => setPassword(valueOf(e))} />
        </Field>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p class="auth-switch">
        Already have an account? <a href="#/login">Log in</a>
      </p>
    </AuthCard>
  );
}
