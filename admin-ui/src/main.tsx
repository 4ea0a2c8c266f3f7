import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, clearToken, get, getToken, rememberReturnTo, setUnauthorizedHandler, TOKEN_KEY } from './api.js';
import { AccountPage } from './pages/account.js';
import { AdminPage } from './pages/admin.js';
import { AccountLeadsPage } from './pages/account-leads.js';
import { AgentPage } from './pages/agent.js';
import { AgentsPage } from './pages/agents.js';
import { DashboardPage } from './pages/dashboard.js';
import { InboxPage } from './pages/inbox/index.js';
import { JoinPage } from './pages/join.js';
import { ForgotPasswordPage, LoginPage, RegisterPage, ResetPasswordPage } from './pages/login.js';
import { useNotifications } from './notifications.js';
import { AvailabilitySwitch } from './availability.js';
import { usePageTitle } from './page-title.js';
import { currentRoute, navigate, useRoute } from './router.js';
import { Session, type SessionValue } from './session.js';
import type { SystemStatus, User } from './types.js';
import { Loading, Notice, Toasts, errorText } from './ui.js';

setUnauthorizedHandler(() => {
  rememberReturnTo(location.hash);
  navigate('#/login');
  window.dispatchEvent(new Event('chat-agent:logged-out'));
});

const DISMISSED_KEY = 'chat-agent.dismissed-banners';

/**
 * Whether a host name is this machine's own (loopback): there, links to http://localhost:PORT
 * work, so a missing PUBLIC_URL is no problem yet. `location.hostname` keeps IPv6 brackets.
 */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '[::1]' ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}

/** A message shown as a sentence: it ends with a full stop. */
function sentence(text: string | null): string {
  return !text ? '' : /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Banners about the server's set-up; each can be put away for the rest of the browser session. */
function StatusBanners({ status }: { status: SystemStatus | undefined }) {
  const [dismissed, setDismissed] = useState<string[]>(() => {
    try {
      return JSON.parse(sessionStorage.getItem(DISMISSED_KEY) ?? '[]') as string[];
    } catch {
      return [];
    }
  });
  if (!status) return null;
  const dismiss = (key: string) => {
    const next = [...dismissed, key];
    setDismissed(next);
    sessionStorage.setItem(DISMISSED_KEY, JSON.stringify(next));
  };
  const hide = (key: string) => (
    <button type="button" class="btn btn-small banner-close" onClick={() => dismiss(key)}>
      Dismiss
    </button>
  );
  // Without PUBLIC_URL the server builds links on http://localhost:PORT, which only a browser on
  // the server itself can open; opened at another address, the admin says so.
  const localLinks = !status.public_url_configured && !isLoopbackHost(location.hostname);
  return (
    <div class="banners">
      {status.database.state !== 'ok' && (
        // not dismissable: nothing new is saved (full) or data is at risk (damaged) until it is dealt with
        <Notice kind="error">
          <div class="banner" data-banner="database">
            <p>
              <strong>
                {status.database.state === 'full' ? 'The server’s disk is full.' : 'The database is damaged.'}
              </strong>{' '}
              {status.database.detail}
            </p>
          </div>
        </Notice>
      )}
      {status.backups.scheduled && status.backups.failing && !dismissed.includes('backups') && (
        <Notice kind="warning">
          <div class="banner" data-banner="backups">
            <p>
              <strong>Scheduled backups are failing.</strong> {sentence(status.backups.last_error)}
              {status.backups.last_success_at
                ? ` The last good backup is from ${new Date(status.backups.last_success_at).toLocaleString()}.`
                : ' No scheduled backup has succeeded yet.'}
            </p>
            {hide('backups')}
          </div>
        </Notice>
      )}
      {localLinks && !dismissed.includes('public-url') && (
        <Notice kind="warning">
          <div class="banner" data-banner="public-url">
            <p>
              <strong>PUBLIC_URL is not set.</strong> Embed snippets, share links and the links in lead e-mails point at{' '}
              <code>{status.public_url}</code>, which only works on the server itself. Set{' '}
              <code>PUBLIC_URL={location.origin}</code> (this site's address
              {location.protocol === 'http:' ? '; use the https:// address once HTTPS is set up' : ''}) in the server's
              environment and restart it. See docs/DEPLOY.md, "Configuration".
            </p>
            {hide('public-url')}
          </div>
        </Notice>
      )}
      {status.knowledge_only && !dismissed.includes('provider') && (
        <Notice kind="warning">
          <div class="banner">
            <p>
              <strong>No AI provider is configured.</strong> Agents answer from their knowledge base only (the
              best-matching passages, quoted). An admin adds a provider key in Admin → Server settings (or sets
              OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST on the server) to get written answers.
            </p>
            {hide('provider')}
          </div>
        </Notice>
      )}
      {status.tests.regressions > 0 && (
        <Notice kind="warning">
          <div class="banner">
            <p>
              <strong>
                {status.tests.regressions === 1
                  ? 'A test question that passed before fails now.'
                  : `${status.tests.regressions} test questions that passed before fail now.`}
              </strong>{' '}
              An agent's Tests tab says which, and why (a source deleted or changed, new instructions).
            </p>
          </div>
        </Notice>
      )}
      {!status.mail.configured && !dismissed.includes('mail') && (
        <Notice kind="info">
          <div class="banner">
            <p>
              <strong>E-mail is not configured.</strong> Lead alerts are kept and sent once an admin sets up e-mail in
              Admin → Server settings (or SMTP_URL on the server)
              {status.mail.pending > 0 ? ` (${status.mail.pending} waiting).` : '.'}
            </p>
            {hide('mail')}
          </div>
        </Notice>
      )}
    </div>
  );
}

function TopBar({ user, section, onLogout }: { user: User; section: string; onLogout: () => void }) {
  const link = (to: string, name: string, label: string) => (
    <a
      href={to}
      class={section === name ? 'nav-link active' : 'nav-link'}
      aria-current={section === name ? 'page' : undefined}
    >
      {label}
    </a>
  );
  return (
    <header class="topbar">
      <a class="brand" href="#/agents">
        Chat Agent
      </a>
      <nav class="nav" aria-label="Main">
        {link('#/agents', 'agents', 'Agents')}
        {link('#/inbox', 'inbox', 'Inbox')}
        {link('#/analytics', 'analytics', 'Analytics')}
        {link('#/leads', 'leads', 'Leads')}
        {user.role === 'admin' && link('#/admin', 'admin', 'Admin')}
      </nav>
      <div class="account">
        <AvailabilitySwitch />
        {/* the account page behind the user's own name: one item fewer in a nav that must fit a phone */}
        <a
          href="#/account"
          class={section === 'account' ? 'account-name active' : 'account-name'}
          title={`Account: ${user.email}`}
          // the name starts with the visible text (WCAG 2.5.3: speech users say what they see)
          aria-label={`${user.name} (account)`}
          aria-current={section === 'account' ? 'page' : undefined}
        >
          {user.name}
        </a>
        <button type="button" class="btn btn-small" onClick={onLogout}>
          Log out
        </button>
      </div>
    </header>
  );
}

/** The top-level pages' titles (an agent's page names itself: its tab and the agent's name). */
const PAGE_TITLES: Record<string, string> = {
  agents: 'Agents',
  inbox: 'Inbox',
  analytics: 'Analytics',
  leads: 'Leads',
  account: 'Account',
  admin: 'Admin',
};

function PageTitle({ title }: { title: string }) {
  usePageTitle(title);
  return null;
}

function LoggedIn({ route }: { route: string[] }) {
  const [user, setUser] = useState<User | null>(null);
  const [status, setStatus] = useState<SystemStatus | undefined>(undefined);
  /** bumped to read the status again without a page change (Server settings saved something) */
  const [statusReads, setStatusReads] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useNotifications(route);

  useEffect(() => {
    let live = true;
    get<User>('/api/auth/me')
      .then((u) => live && setUser(u))
      .catch((err) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, []);
  // read again on every page change, and when Server settings saves or removes a value: a key or
  // SMTP saved, a full disk or a failing backup show (or go) without a reload
  const routeKey = route.join('/');
  useEffect(() => {
    let live = true;
    get<SystemStatus>('/api/system/status')
      .then((s) => live && setStatus(s))
      .catch(() => {
        /* the banners are a hint; the pages work without them */
      });
    return () => {
      live = false;
    };
  }, [routeKey, statusReads]);

  const logout = async () => {
    try {
      await api('POST', '/api/auth/logout');
    } catch {
      /* the token is dropped either way */
    }
    clearToken();
    navigate('#/login');
    window.dispatchEvent(new Event('chat-agent:logged-out'));
  };

  if (error)
    return (
      <main class="page">
        <Notice kind="error">{error}</Notice>
      </main>
    );
  if (!user)
    return (
      <main class="page">
        <Loading />
      </main>
    );

  const section = route[0] ?? 'agents';
  const session: SessionValue = { user, status, refreshStatus: () => setStatusReads((n) => n + 1) };
  let page;
  if (section === 'agents' && route[1]) page = <AgentPage id={route[1]} tab={route[2] ?? 'settings'} sub={route[3]} />;
  else if (section === 'inbox') page = <InboxPage chatbotId={route[1]} conversationId={route[2]} />;
  else if (section === 'analytics') page = <DashboardPage />;
  else if (section === 'leads') page = <AccountLeadsPage />;
  else if (section === 'account') page = <AccountPage />;
  else if (section === 'admin')
    page = user.role === 'admin' ? <AdminPage /> : <Notice kind="error">Only administrators can see this page.</Notice>;
  else page = <AgentsPage />;

  return (
    <Session.Provider value={session}>
      <TopBar user={user} section={section} onLogout={logout} />
      <StatusBanners status={status} />
      <main class="page">
        {!(section === 'agents' && route[1]) && <PageTitle title={PAGE_TITLES[section] ?? 'Agents'} />}
        {page}
      </main>
    </Session.Provider>
  );
}

/** Where a route must go instead, given whether someone is logged in; null to show it. */
function redirectFor(section: string | undefined, loggedIn: boolean): string | null {
  if (section === 'reset-password') return null; // an e-mailed reset link works logged in or out
  const authPage = section === 'login' || section === 'register' || section === 'forgot-password' || section === 'join';
  if (loggedIn && authPage) return '#/agents'; // the login page has nothing to do
  if (!loggedIn && !authPage) return '#/login';
  return null;
}

function App() {
  const route = useRoute();
  const [loggedIn, setLoggedIn] = useState(() => getToken() !== null);
  useEffect(() => {
    const out = () => setLoggedIn(false);
    const inn = () => setLoggedIn(true);
    // logging in or out in another tab changes the stored token
    const storage = (e: StorageEvent) => {
      if (e.key === null || e.key === TOKEN_KEY) setLoggedIn(getToken() !== null);
    };
    window.addEventListener('chat-agent:logged-out', out);
    window.addEventListener('chat-agent:logged-in', inn);
    window.addEventListener('storage', storage);
    return () => {
      window.removeEventListener('chat-agent:logged-out', out);
      window.removeEventListener('chat-agent:logged-in', inn);
      window.removeEventListener('storage', storage);
    };
  }, []);

  const section = route[0];
  const redirect = redirectFor(section, loggedIn);
  useEffect(() => {
    // decided again from the hash as it is now: a login may have moved on to its return page
    const target = redirectFor(currentRoute()[0], loggedIn);
    if (!target) return;
    if (!loggedIn) rememberReturnTo(location.hash);
    navigate(target);
  }, [redirect, loggedIn]);
  if (redirect) return null;

  if (!loggedIn || section === 'reset-password') {
    return (
      <>
        {section === 'reset-password' ? (
          <ResetPasswordPage />
        ) : section === 'register' ? (
          <RegisterPage />
        ) : section === 'forgot-password' ? (
          <ForgotPasswordPage />
        ) : section === 'join' ? (
          <JoinPage />
        ) : (
          <LoginPage />
        )}
        <Toasts />
      </>
    );
  }
  // LoggedIn unmounts on logout, so nothing of one account's state survives into the next login
  return (
    <>
      <LoggedIn route={route} />
      <Toasts />
    </>
  );
}

render(<App />, document.getElementById('app')!);
