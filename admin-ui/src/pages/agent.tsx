import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { href, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Agent } from '../types.js';
import { Badge, ConfirmDialog, CopyButton, Loading, Notice, errorText, toast, useAsync } from '../ui.js';
import { AgentAnalyticsTab } from './analytics.js';
import { ConversationsTab } from './conversations.js';
import { KnowledgeTab } from './knowledge.js';
import { WidgetLeadsTab } from './leads.js';
import { SettingsTab } from './settings.js';
import { TryItTab } from './try-it.js';

const TABS: Array<{ id: string; label: string }> = [
  { id: 'settings', label: 'Settings' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'conversations', label: 'Conversations' },
  { id: 'try', label: 'Try it' },
  { id: 'leads', label: 'Leads' },
  { id: 'analytics', label: 'Analytics' },
  { id: 'share', label: 'Embed & share' },
];

function ShareTab({ agent }: { agent: Agent }) {
  const { status } = useSession();
  const base = status?.public_url ?? location.origin;
  const snippet = `<script src="${base}/widget.js" data-chatbot-id="${agent.id}" defer></script>`;
  const link = `${base}/chat/${encodeURIComponent(agent.id)}`;
  return (
    <div class="stack">
      {!agent.public_access && <Notice kind="warning">Public access is off: the widget and the share link show nothing until you turn it on in Settings.</Notice>}
      {agent.status === 'inactive' && <Notice kind="warning">This agent is inactive: visitors see it as offline.</Notice>}
      <section class="card stack">
        <h2>Embed on your website</h2>
        <p class="muted">Paste this just before the closing &lt;/body&gt; tag of every page that should show the chat button.</p>
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

export function AgentPage({ id, tab, sub }: { id: string; tab: string; sub?: string }) {
  const agent = useAsync(() => get<Agent>(`/api/chatbots/${encodeURIComponent(id)}`), [id]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [toggling, setToggling] = useState(false);

  if (agent.error) return <Notice kind="error">{agent.error}</Notice>;
  if (!agent.data) return <Loading />;
  const a = agent.data;

  const toggle = async () => {
    setToggling(true);
    try {
      const res = await api<{ status: Agent['status']; updated_at: string }>('PATCH', `/api/chatbots/${encodeURIComponent(a.id)}/toggle`);
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

  const current = TABS.some((t) => t.id === tab) ? tab : 'settings';
  let body;
  switch (current) {
    case 'knowledge':
      body = <KnowledgeTab agent={a} />;
      break;
    case 'conversations':
      body = <ConversationsTab agent={a} selected={sub} />;
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
    default:
      body = <SettingsTab agent={a} onSaved={agent.setData} onDelete={() => setConfirmDelete(true)} />;
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
          <a key={t.id} href={href('agents', a.id, t.id)} class={t.id === current ? 'tab active' : 'tab'} aria-current={t.id === current ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <div class="tab-body">{body}</div>
      {confirmDelete && (
        <ConfirmDialog title={`Delete ${a.name}?`} confirmLabel="Delete agent" onConfirm={remove} onCancel={() => setConfirmDelete(false)}>
          <p>This removes the agent with its knowledge sources, conversations and leads. It cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
