import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { href, navigate } from '../router.js';
import { PROVIDERS } from '../providers.js';
import type { Agent, Provider } from '../types.js';
import { Badge, EmptyState, Field, Loading, Notice, errorText, toast, useAsync, inputValue, useSubmit } from '../ui.js';
import { FIELD_MAX } from '../field-limits.js';

function CreateAgent({ onCreated }: { onCreated: (a: Agent) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [provider, setProvider] = useState<Provider>('openai');
  const { busy, error, submit } = useSubmit(
    async () => {
      const agent = await api<Agent>('POST', '/api/chatbots', {
        name,
        provider,
        ...(description.trim() ? { description } : {}),
      });
      onCreated(agent);
    },
    { keepBusy: true },
  );
  return (
    <form class="card stack" onSubmit={submit} method="post" aria-label="New agent">
      <h2>New agent</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="grid-2">
        <Field label="Name">
          <input
            name="name"
            required
            maxLength={FIELD_MAX.agent.name}
            value={name}
            onInput={(e) => setName(inputValue(e))}
            placeholder="Support assistant"
          />
        </Field>
        <Field label="Provider">
          <select name="provider" value={provider} onChange={(e) => setProvider(inputValue(e) as Provider)}>
            {PROVIDERS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Description (optional)">
        <input
          name="description"
          maxLength={FIELD_MAX.agent.description}
          value={description}
          onInput={(e) => setDescription(inputValue(e))}
        />
      </Field>
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create agent'}
        </button>
      </div>
    </form>
  );
}

export function AgentsPage() {
  const agents = useAsync(() => get<Agent[]>('/api/chatbots'), []);
  const [creating, setCreating] = useState(false);
  const [toggling, setToggling] = useState<string | null>(null);

  const toggle = async (agent: Agent) => {
    setToggling(agent.id);
    try {
      const res = await api<{ status: Agent['status'] }>(
        'PATCH',
        `/api/chatbots/${encodeURIComponent(agent.id)}/toggle`,
      );
      agents.setData((agents.data ?? []).map((a) => (a.id === agent.id ? { ...a, status: res.status } : a)));
      toast(`${agent.name} is now ${res.status}`);
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setToggling(null);
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>Agents</h1>
        <button type="button" class="btn btn-primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {creating ? 'Close' : 'New agent'}
        </button>
      </div>
      {creating && <CreateAgent onCreated={(a) => navigate(href('agents', a.id, 'settings'))} />}
      {agents.error && <Notice kind="error">{agents.error}</Notice>}
      {agents.loading && !agents.data && <Loading />}
      {agents.data && agents.data.length === 0 && (
        <EmptyState>
          <p>No agents yet. Create one to give your website a chat assistant that answers from your own documents.</p>
        </EmptyState>
      )}
      {agents.data && agents.data.length > 0 && (
        <ul class="agent-list">
          {agents.data.map((a) => (
            <li key={a.id} class="card agent-card">
              <div class="agent-card-main">
                <span class="swatch" style={{ background: a.primary_color }} aria-hidden="true" />
                <div class="agent-card-text">
                  <a class="agent-name" href={href('agents', a.id, 'settings')}>
                    {a.name}
                  </a>
                  <span class="muted small">
                    {a.provider} · {a.model}
                  </span>
                </div>
                <Badge kind={a.status === 'active' ? 'ok' : 'off'}>
                  {a.status === 'active' ? 'Active' : 'Inactive'}
                </Badge>
              </div>
              <div class="agent-card-stats">
                <span>
                  <strong>{a.conversations_count}</strong> conversations
                </span>
                <span>
                  <strong>{a.messages_count}</strong> messages
                </span>
                {!a.public_access && <Badge kind="off">Private</Badge>}
              </div>
              <div class="agent-card-actions">
                <a class="btn btn-small" href={href('agents', a.id, 'knowledge')}>
                  Knowledge
                </a>
                <a class="btn btn-small" href={href('agents', a.id, 'conversations')}>
                  Conversations
                </a>
                <a class="btn btn-small" href={href('agents', a.id, 'try')}>
                  Try it
                </a>
                <button type="button" class="btn btn-small" disabled={toggling === a.id} onClick={() => toggle(a)}>
                  {a.status === 'active' ? 'Deactivate' : 'Activate'}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
