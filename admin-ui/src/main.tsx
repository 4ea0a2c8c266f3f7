import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, clearToken, get, getToken, rememberReturnTo, setUnauthorizedHandler } from './api.js';
import { AdminPage } from './pages/admin.js';
import { AccountLeadsPage } from './pages/account-leads.js';
import { AgentPage } from './pages/agent.js';
import { AgentsPage } from './pages/agents.js';
import { DashboardPage } from './pages/dashboard.js';
import { LoginPage, RegisterPage } from './pages/login.js';
import { navigate, useRoute } from './router.js';
import { Session, type SessionValue } from './session.js';
import type { SystemStatus, User } from './types.js';
import { Loading, Notice, Toasts, errorText } from './ui.js';

setUnauthorizedHandler(() => {
  rememberReturnTo(location.hash);
  navigate('#/login');
  window.dispatchEvent(new Event('chat-agent:logged-out'));
});

function StatusBanners({ status }: { status: SystemStatus | undefined }) {
  if (!status) return null;
  return (
    <div class="banners">
      {status.knowledge_only && (
        <Notice kind="warning">
          <strong>No AI provider is configured.</strong> Agents answer from their knowledge base only (the best-matching passages, quoted). Set
          OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST on the server to get written answers.
        </Notice>
      )}
      {!status.mail.configured && (
        <Notice kind="info">
          <strong>E-mail is not configured.</strong> Lead alerts are kept and sent once SMTP_URL is set on the server
          {status.mail.pending > 0 ? ` (${status.mail.pending} waiting).` : '.'}
        </Notice>
      )}
    </div>
  );
}

function TopBar({ user, section, onLogout }: { user: User; section: string; onLogout: () => void }) {
  const link = (to: string, name: string, label: string) => (
    <a href={to} class={section === name ? 'nav-link active' : 'nav-link'} aria-current={section === name ? 'page' : undefined}>
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
        {link('#/analytics', 'analytics', 'Analytics')}
        {link('#/leads', 'leads', 'Leads')}
        {user.role === 'admin' && link('#/admin', 'admin', 'Admin')}
      </nav>
      <div class="account">
        <span class="account-name" title={user.email}>
          {user.name}
        </span>
        <button type="button" class="btn btn-small" onClick={onLogout}>
          Log out
        </button>
      </div>
    </header>
  );
}

function LoggedIn({ route }: { route: string[] }) {
  const [user, setUser] = useState<User | null>(null);
  const [status, setStatus] = useState<SystemStatus | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    get<User>('/api/auth/me')
      .then((u) => live && setUser(u))
      .catch((err) => live && setError(errorText(err)));
    get<SystemStatus>('/api/system/status')
      .then((s) => live && setStatus(s))
      .catch(() => {
        /* the banners are a hint; the pages work without them */
      });
    return () => {
      live = false;
    };
  }, []);

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

  if (error) return <main class="page"><Notice kind="error">{error}</Notice></main>;
  if (!user) return <main class="page"><Loading /></main>;

  const section = route[0] ?? 'agents';
  const session: SessionValue = { user, status };
  let page;
  if (section === 'agents' && route[1]) page = <AgentPage id={route[1]} tab={route[2] ?? 'settings'} sub={route[3]} />;
  else if (section === 'analytics') page = <DashboardPage />;
  else if (section === 'leads') page = <AccountLeadsPage />;
  else if (section === 'admin') page = user.role === 'admin' ? <AdminPage /> : <Notice kind="error">Only administrators can see this page.</Notice>;
  else page = <AgentsPage />;

  return (
    <Session.Provider value={session}>
      <TopBar user={user} section={section} onLogout={logout} />
      <StatusBanners status={status} />
      <main class="page">{page}</main>
    </Session.Provider>
  );
}

function App() {
  const route = useRoute();
  const [loggedIn, setLoggedIn] = useState(() => getToken() !== null);
  useEffect(() => {
    const out = () => setLoggedIn(false);
    const inn = () => setLoggedIn(true);
    window.addEventListener('chat-agent:logged-out', out);
    window.addEventListener('chat-agent:logged-in', inn);
    return () => {
      window.removeEventListener('chat-agent:logged-out', out);
      window.removeEventListener('chat-agent:logged-in', inn);
    };
  }, []);

  const section = route[0];
  if (!loggedIn || section === 'login' || section === 'register') {
    if (loggedIn && (section === 'login' || section === 'register')) {
      // already logged in: the login page has nothing to do
      navigate('#/agents');
      return null;
    }
    if (section !== 'login' && section !== 'register') {
      rememberReturnTo(location.hash);
      navigate('#/login');
      return null;
    }
    return (
      <>
        {section === 'register' ? <RegisterPage /> : <LoginPage />}
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
