import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError, clearToken, get, setToken, takeReturnTo } from '../api.js';
import { usePageTitle } from '../page-title.js';
import { navigate } from '../router.js';
import type { PasswordResetAvailability, RegistrationState } from '../types.js';
import {
  Field,
  FormError,
  NewPasswordFields,
  Notice,
  PASSWORD_HINT,
  PASSWORD_MAX,
  PASSWORD_MIN,
  SubmitButton,
  useAsync,
  inputValue,
  useSubmit,
} from '../ui.js';
import { FIELD_MAX } from '../field-limits.js';

export function loggedIn(token: string) {
  setToken(token);
  window.dispatchEvent(new Event('chat-agent:logged-in'));
  navigate(takeReturnTo() ?? '#/agents');
}

export function AuthCard({
  title,
  children,
  registration,
}: {
  title: string;
  children: ComponentChildren;
  registration?: RegistrationState;
}) {
  usePageTitle(title);
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

/** The account's e-mail (log in, register, forgot password); the browser offers it as the username. */
/** The account's name, as registering and joining a team ask for it. */
export function NameField(props: { label: string; name: string; setName: (v: string) => void }) {
  return (
    <Field label={props.label}>
      <input
        name="name"
        autocomplete="name"
        required
        maxLength={FIELD_MAX.account_name}
        value={props.name}
        onInput={(e) => props.setName(inputValue(e))}
      />
    </Field>
  );
}

function EmailField({ email, setEmail }: { email: string; setEmail: (v: string) => void }) {
  return (
    <Field label="E-mail">
      <input
        type="email"
        name="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e) => setEmail(inputValue(e))}
      />
    </Field>
  );
}

/**
 * The first screen (#/login). Until the server has an account it offers creating the owner's
 * (issue 31: a new server said "Log in" with nobody to log in as); under REGISTRATION=closed,
 * where nobody can register, it says how to create the owner on the server instead. Nothing is
 * shown until the server has answered, so the login form does not flash past first.
 */
export function LoginPage() {
  const registration = useAsync(() => get<RegistrationState>('/api/auth/registration'), []);
  const state = registration.data;
  if (registration.loading && !state) return <main class="auth" aria-busy="true" />;
  if (state && !state.has_accounts && state.open) return <OwnerAccountCard registration={state} />;
  return <LoginCard registration={state} />;
}

function LoginCard({ registration }: { registration: RegistrationState | undefined }) {
  // "Forgot password?" only where the server can e-mail a reset link (SMTP_URL set)
  const reset = useAsync(() => get<PasswordResetAvailability>('/api/auth/password-reset'), []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(
    async () => {
      const res = await api<{ access_token: string }>('POST', '/api/auth/login', { email, password });
      loggedIn(res.access_token);
    },
    { keepBusy: true },
  );
  return (
    <AuthCard title="Log in" registration={registration}>
      {registration && !registration.has_accounts && (
        <Notice kind="info">
          This server has no account yet and registration is closed. Create the owner account on the server:{' '}
          <code>chat-agent users create you@example.com --name "Your name" --admin</code> (or{' '}
          <code>npm start -- users create …</code> in a checkout).
        </Notice>
      )}
      <form onSubmit={submit} method="post" class="stack">
        {error && <Notice kind="error">{error}</Notice>}
        <EmailField email={email} setEmail={setEmail} />
        <Field label="Password">
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(inputValue(e))}
          />
        </Field>
        <SubmitButton busy={busy} label="Log in" busyLabel="Logging in…" />
      </form>
      {reset.data?.available && (
        <p class="auth-switch">
          <a href="#/forgot-password">Forgot password?</a>
        </p>
      )}
      {registration?.open && (
        <p class="auth-switch">
          No account yet? <a href="#/register">Create an account</a>
        </p>
      )}
    </AuthCard>
  );
}

/** The first screen of a server with no account: the account created here is its owner (an admin). */
function OwnerAccountCard({ registration }: { registration: RegistrationState }) {
  return (
    <AuthCard title="Create the owner account" registration={registration}>
      <p class="muted">
        This server has no account yet. The account you create now is its owner: an administrator, who manages the
        server and its other accounts.
      </p>
      <RegisterForm />
    </AuthCard>
  );
}

/** Name, e-mail and password; a new account is logged in at once. */
function RegisterForm() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(
    async () => {
      const res = await api<{ access_token: string }>('POST', '/api/auth/register', { name, email, password });
      loggedIn(res.access_token);
    },
    { keepBusy: true },
  );
  return (
    <form onSubmit={submit} method="post" class="stack">
      {error && <Notice kind="error">{error}</Notice>}
      <NameField label="Name" name={name} setName={setName} />
      <EmailField email={email} setEmail={setEmail} />
      <Field label="Password" hint={PASSWORD_HINT}>
        <input
          type="password"
          name="password"
          autocomplete="new-password"
          required
          minLength={PASSWORD_MIN}
          maxLength={PASSWORD_MAX}
          value={password}
          onInput={(e) => setPassword(inputValue(e))}
        />
      </Field>
      <SubmitButton busy={busy} label="Create account" busyLabel="Creating…" />
    </form>
  );
}

export function RegisterPage() {
  const registration = useAsync(() => get<RegistrationState>('/api/auth/registration'), []);
  if (registration.data && !registration.data.has_accounts && registration.data.open)
    return <OwnerAccountCard registration={registration.data} />;
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
      <RegisterForm />
      <p class="auth-switch">
        Already have an account? <a href="#/login">Log in</a>
      </p>
    </AuthCard>
  );
}

/** Asks for a reset link. The server's answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const res = await api<{ detail: string }>('POST', '/api/auth/password-reset', { email });
    setSent(res.detail);
  });
  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <Notice kind="success">{sent} The link works once, for 30 minutes.</Notice>
      ) : (
        <form onSubmit={submit} method="post" class="stack">
          <p class="muted">Enter the e-mail of your account. We will send you a link to choose a new password.</p>
          {error && <Notice kind="error">{error}</Notice>}
          <EmailField email={email} setEmail={setEmail} />
          <SubmitButton busy={busy} label="Send reset link" busyLabel="Sending…" />
        </form>
      )}
      <p class="auth-switch">
        <a href="#/login">Back to log in</a>
      </p>
    </AuthCard>
  );
}

/** The token of a reset link: `#/reset-password?token=...` (it never leaves the browser except to the confirm call). */
function tokenFromHash(): string {
  const query = location.hash.split('?')[1] ?? '';
  return new URLSearchParams(query).get('token') ?? '';
}

/** Where the e-mailed link lands: a new password, then the login page (every session ended). */
export function ResetPasswordPage() {
  const [token] = useState(tokenFromHash);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(
    async () => {
      if (password !== repeat) throw new FormError('The two passwords differ.');
      try {
        await api('POST', '/api/auth/password-reset/confirm', { token, new_password: password });
      } catch (err) {
        const badLink = err instanceof ApiError && err.status === 400 && err.message.startsWith('token:');
        throw badLink ? new FormError('This link is invalid, already used or expired. Ask for a new one.') : err;
      }
      // every session of the account has ended, this browser's too
      clearToken();
      window.dispatchEvent(new Event('chat-agent:logged-out'));
      setDone(true);
    },
    { keepBusy: true },
  );
  if (done) {
    return (
      <AuthCard title="Password changed">
        <Notice kind="success">Your password has been changed. Log in with the new password.</Notice>
        <button type="button" class="btn btn-primary" onClick={() => navigate('#/login')}>
          Go to log in
        </button>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      {!token ? (
        <Notice kind="error">
          This link has no reset token. Open the link from the e-mail again, or ask for a new one.
        </Notice>
      ) : (
        <form onSubmit={submit} method="post" class="stack">
          {error && <Notice kind="error">{error}</Notice>}
          <NewPasswordFields password={password} repeat={repeat} setPassword={setPassword} setRepeat={setRepeat} />
          <SubmitButton busy={busy} label="Set new password" busyLabel="Saving…" />
        </form>
      )}
      <p class="auth-switch">
        <a href="#/forgot-password">Ask for a new link</a> · <a href="#/login">Log in</a>
      </p>
    </AuthCard>
  );
}
