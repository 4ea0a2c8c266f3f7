import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { usePageTitle } from '../page-title.js';
import { href, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Agent } from '../types.js';
import { Badge, ConfirmDialog, CopyButton, Loading, Notice, errorText, toast, useAsync } from '../ui.js';
import { ActionsTab } from './actions/index.js';
import { AgentAnalyticsTab } from './analytics.js';
import { ChannelsTab } from './channels/index.js';
import { TestsTab } from './tests/index.js';
import { ConversationsTab } from './conversations/index.js';
import { GapsTab } from './gaps.js';
import { KnowledgeTab } from './knowledge/index.js';
import { WidgetLeadsTab } from './leads.js';
import { NO_DRAFTS, SettingsTab, unsavedSettings, type SettingsDrafts, type UpdateDrafts } from './settings/index.js';
import { TryItTab } from './try-it.js';

const TABS: Array<{ id: string; label: string }> = [
  { id: 'settings', label: 'Settings' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'actions', label: 'Actions' },
  { id: 'conversations', label: 'Conversations' },
  { id: 'gaps', label: 'Unanswered' },
  { id: 'try', label: 'Try it' },
  { id: 'leads', label: 'Leads' },
  { id: 'analytics', label: 'Analytics' },
  { id: 'share', label: 'Embed & share' },
  { id: 'channels', label: 'Channels' },
  { id: 'tests', label: 'Tests' },
];

function ShareTab({ agent }: { agent: Agent }) {
  const { status } = useSession();
  const base = status?.public_url ?? location.origin;
  const snippet = `<script src="${base}/widget.js" data-chatbot-id="${agent.id}" defer></script>`;
  const link = `${base}/chat/${encodeURIComponent(agent.id)}`;
  return (
    <div class="stack">
      {!agent.public_access && (
        <Notice kind="warning">
          Public access is off: the widget and the share link show nothing until you turn it on in Settings.
        </Notice>
      )}
      {agent.status === 'inactive' && (
        <Notice kind="warning">This agent is inactive: visitors see it as offline.</Notice>
      )}
      <section class="card stack">
        <h2>Embed on your website</h2>
        <p class="muted">
          Paste this just before the closing &lt;/body&gt; tag of every page that should show the chat button.
        </p>
        <pre class="code" aria-label="Embed snippet">
          <code>{snippet}</code>
        </pre>
        <div class="actions">
          <CopyButton text={snippet} label="Copy snippet" />
        </div>
      </section>
      <section class="card stack">
        <h2>Share link</h2>
        <p class="muted">A full-page chat you can send by e-mail or put behind a button.</p>
        <div class="copy-row">
          <input readOnly value={link} aria-label="Share link" onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={link} label="Copy link" />
          <a class="btn btn-small" href={link} target="_blank" rel="noopener noreferrer">
            Open
          </a>
        </div>
      </section>
    </div>
  );
}

/** Whether a `#/...` route stays on this agent's page (another of its tabs). */
function staysOnAgent(hash: string, agentId: string): boolean {
  const segments = hash
    .replace(/^#\/?/, '')
    .split('?')[0]!
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return segments[0] === 'agents' && segments[1] === agentId;
}

/**
 * Unsaved settings must not be lost without a word. They are kept here, above the tabs, so
 * switching tabs and saving another section keep them (the Settings tab shows a dot meanwhile).
 * Leaving the agent's page is what would lose them, so it asks first: a link out of the page
 * (the top bar, the crumbs, another agent) opens a dialog, and closing or reloading the tab or
 * leaving the site gets the browser's own beforeunload prompt. The browser's Back button is not
 * asked about: with hash routes it fires a hashchange that cannot be cancelled.
 */
function useLeaveGuard(agentId: string, unsaved: boolean, onLeave: (hash: string) => void): void {
  useEffect(() => {
    if (!unsaved) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = ''; // older browsers ask only with returnValue set
    };
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== '_self')) return; // a new tab loses nothing
      const url = new URL(link.href, location.href);
      // another page or site is a full navigation: beforeunload asks
      if (url.origin !== location.origin || url.pathname !== location.pathname || url.search !== location.search)
        return;
      if (!url.hash.startsWith('#/') || staysOnAgent(url.hash, agentId)) return;
      e.preventDefault();
      onLeave(url.hash);
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [agentId, unsaved]);
}

export function AgentPage({ id, tab, sub }: { id: string; tab: string; sub?: string }) {
  const agent = useAsync(() => get<Agent>(`/api/chatbots/${encodeURIComponent(id)}`), [id]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [toggling, setToggling] = useState(false);
  // the settings' drafts, for this agent only (the page stays mounted when a link opens another)
  const [store, setStore] = useState<{ id: string; drafts: SettingsDrafts }>({ id, drafts: NO_DRAFTS });
  const drafts = store.id === id ? store.drafts : NO_DRAFTS;
  const updateDrafts: UpdateDrafts = (change) =>
    setStore((s) => ({ id, drafts: change(s.id === id ? s.drafts : NO_DRAFTS) }));
  const unsaved = agent.data ? unsavedSettings(agent.data, drafts) : [];
  const [leavingTo, setLeavingTo] = useState<string | null>(null);
  useLeaveGuard(id, unsaved.length > 0, setLeavingTo);
  const current = TABS.find((t) => t.id === tab) ?? TABS[0]!;
  usePageTitle(agent.data ? `${current.label}: ${agent.data.name}` : 'Agent');

  if (agent.error) return <Notice kind="error">{agent.error}</Notice>;
  if (!agent.data) return <Loading />;
  const a = agent.data;

  const toggle = async () => {
    setToggling(true);
    try {
      const res = await api<{ status: Agent['status']; updated_at: string }>(
        'PATCH',
        `/api/chatbots/${encodeURIComponent(a.id)}/toggle`,
      );
      agent.setData({ ...a, status: res.status, updated_at: res.updated_at });
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setToggling(false);
    }
  };

  const remove = async () => {
    await api('DELETE', `/api/chatbots/${encodeURIComponent(a.id)}`);
    toast(`${a.name} was deleted`);
    navigate('#/agents');
  };

  let body;
  switch (current.id) {
    case 'knowledge':
      body = <KnowledgeTab agent={a} />;
      break;
    case 'conversations':
      body = <ConversationsTab agent={a} selected={sub} />;
      break;
    case 'gaps':
      body = <GapsTab agent={a} />;
      break;
    case 'actions':
      body = <ActionsTab agent={a} />;
      break;
    case 'try':
      body = <TryItTab agent={a} />;
      break;
    case 'leads':
      body = <WidgetLeadsTab agent={a} />;
      break;
    case 'analytics':
      body = <AgentAnalyticsTab agent={a} />;
      break;
    case 'share':
      body = <ShareTab agent={a} />;
      break;
    case 'channels':
      body = <ChannelsTab agent={a} />;
      break;
    case 'tests':
      body = <TestsTab agent={a} />;
      break;
    default:
      body = (
        <SettingsTab
          agent={a}
          onSaved={agent.setData}
          onDelete={() => setConfirmDelete(true)}
          drafts={drafts}
          updateDrafts={updateDrafts}
        />
      );
  }

  return (
    <>
      <p class="crumbs">
        <a href="#/agents">Agents</a> /
      </p>
      <div class="page-head">
        <h1 class="agent-title">{a.name}</h1>
        <div class="head-actions">
          <Badge kind={a.status === 'active' ? 'ok' : 'off'}>{a.status === 'active' ? 'Active' : 'Inactive'}</Badge>
          <button type="button" class="btn btn-small" onClick={toggle} disabled={toggling}>
            {a.status === 'active' ? 'Deactivate' : 'Activate'}
          </button>
        </div>
      </div>
      <nav class="tabs" aria-label="Agent sections">
        {TABS.map((t) => (
          <a
            key={t.id}
            href={href('agents', a.id, t.id)}
            class={t.id === current.id ? 'tab active' : 'tab'}
            aria-current={t.id === current.id ? 'page' : undefined}
          >
            {t.label}
            {t.id === 'settings' && unsaved.length > 0 && (
              <span class="tab-unsaved" title="Unsaved changes">
                <span class="offscreen"> (unsaved changes)</span>
              </span>
            )}
          </a>
        ))}
      </nav>
      <div class="tab-body">{body}</div>
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete ${a.name}?`}
          confirmLabel="Delete agent"
          onConfirm={remove}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>This removes the agent with its knowledge sources, conversations and leads. It cannot be undone.</p>
        </ConfirmDialog>
      )}
      {leavingTo !== null && (
        <ConfirmDialog
          title="Leave without saving?"
          confirmLabel="Leave"
          cancelLabel="Stay"
          onConfirm={() => {
            setStore({ id, drafts: NO_DRAFTS });
            setLeavingTo(null);
            navigate(leavingTo);
          }}
          onCancel={() => setLeavingTo(null)}
        >
          <p>Your changes to {unsaved.join(', ')} are not saved yet and will be lost.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
