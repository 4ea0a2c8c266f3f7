import { useEffect, useRef, useState } from 'preact/hooks';
import { SecretOnce } from '../../secret-once.js';
import { api, get } from '../../api.js';
import type { Agent, AgentAction } from '../../types.js';
import { Badge, ConfirmDialog, EmptyState, Loading, Notice, toast, useAsync, useBusy } from '../../ui.js';
import { ActionForm } from './form.js';
import { KINDS, kindLabel } from './model.js';

/** at most this many actions an agent (src/modules/actions/service.ts) */
const MAX_ACTIONS = 20;

/**
 * The agent's actions (issue 35): look-ups, do's and bookings the agent runs against the owner's
 * own endpoints or calendar, set up here without code. A new action's signing secret is shown once,
 * as a new webhook's is.
 */
export function ActionsTab({ agent }: { agent: Agent }) {
  const base = `/api/chatbots/${encodeURIComponent(agent.id)}/actions` as const;
  const actions = useAsync(() => get<AgentAction[]>(base), [agent.id]);
  /** 'new': the add form is open; an id: that action's edit form */
  const [editing, setEditing] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<AgentAction | null>(null);
  const list = actions.data ?? [];

  const replace = (saved: AgentAction) => actions.setData(list.map((a) => (a.id === saved.id ? saved : a)));

  const remove = async () => {
    if (!deleting) return;
    await api('DELETE', `${base}/${encodeURIComponent(deleting.id)}`);
    toast(`${deleting.name} was deleted`);
    setDeleting(null);
    if (editing === deleting.id) setEditing(null);
    await actions.reload();
  };

  return (
    <div class="stack-lg">
      <ActionsHelp />
      <section class="card stack" aria-labelledby="actions-title">
        <div class="section-head-row">
          <h2 id="actions-title">Actions</h2>
          <span class="small muted">
            {list.length} of {MAX_ACTIONS}
          </span>
        </div>
        {secret && (
          <SecretOnce secret={secret.secret} onDone={() => setSecret(null)}>
            The signing secret of {secret.name}. It is shown only now: copy it into your endpoint, which checks the
            Chat-Agent-Signature header with it.
          </SecretOnce>
        )}
        {actions.error && <Notice kind="error">{actions.error}</Notice>}
        {!actions.data && actions.loading && <Loading />}
        {actions.data && list.length === 0 && editing !== 'new' && (
          <EmptyState>No actions yet. Without them the agent only answers from its knowledge.</EmptyState>
        )}
        {list.length > 0 && (
          <ul class="sources" aria-label="Actions">
            {list.map((a) => (
              <ActionRow
                key={a.id}
                agentId={agent.id}
                action={a}
                editing={editing === a.id}
                onEdit={() => setEditing(editing === a.id ? null : a.id)}
                onChanged={replace}
                onDelete={() => setDeleting(a)}
              />
            ))}
          </ul>
        )}
        {editing === 'new' ? (
          <ActionForm
            agentId={agent.id}
            onCancel={() => setEditing(null)}
            onCreated={async (created) => {
              const { signing_secret, ...shown } = created;
              setEditing(null);
              setSecret({ name: created.name, secret: signing_secret });
              actions.setData([...list, shown]);
              toast('Action added');
              await actions.reload();
            }}
          />
        ) : (
          actions.data &&
          list.length < MAX_ACTIONS && (
            <div class="actions">
              <button type="button" class="btn btn-primary" onClick={() => setEditing('new')}>
                Add action
              </button>
            </div>
          )
        )}
      </section>
      {deleting && (
        <ConfirmDialog
          title={`Delete the action ${deleting.name}?`}
          confirmLabel="Delete action"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>The agent can no longer use it. Its past runs stay in the transcripts.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What actions are, in plain words, and how the owner's endpoint knows a request is ours. */
function ActionsHelp() {
  return (
    <section class="card stack" aria-labelledby="actions-help-title">
      <h2 id="actions-help-title">What actions do</h2>
      <p class="muted">
        Actions let the agent go beyond answering: it calls your own system while it chats, and the visitor sees what it
        did in the conversation.
      </p>
      <dl class="action-kinds">
        {KINDS.map((k) => (
          <div key={k.type}>
            <dt>{k.label}</dt>
            <dd>{k.what}</dd>
          </div>
        ))}
      </dl>
      <p class="muted small">
        Every request to your endpoint is signed like a webhook's, in the header <code>Chat-Agent-Signature</code>:{' '}
        <code>t=&lt;unix time&gt;,v1=&lt;signature&gt;</code>, the signature being the HMAC-SHA256, keyed with the
        action's signing secret, of the time, a dot and the signed text (a do's JSON body; a look-up's path and query).
        Check it to know a request comes from this server. The secret is shown once, when you add the action.
      </p>
    </section>
  );
}

function ActionRow({
  agentId,
  action: a,
  editing,
  onEdit,
  onChanged,
  onDelete,
}: {
  agentId: string;
  action: AgentAction;
  editing: boolean;
  onEdit: () => void;
  onChanged: (saved: AgentAction) => void;
  onDelete: () => void;
}) {
  const { busy, run } = useBusy((text) => toast(text, 'error'));
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // the form closed (saved or cancelled): focus back on the button that opened it
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const path = `/api/chatbots/${encodeURIComponent(agentId)}/actions/${encodeURIComponent(a.id)}` as const;
  // the switch shows the new state at once; back to the server's answer when it comes (or fails)
  const [switching, setSwitching] = useState<boolean | null>(null);
  const toggle = (enabled: boolean) => {
    setSwitching(enabled);
    return run(async () => {
      try {
        onChanged(await api<AgentAction>('PUT', path, { enabled }));
      } finally {
        setSwitching(null);
      }
      toast(enabled ? `${a.name} is on` : `${a.name} is off`);
    });
  };
  return (
    <li class="source" aria-label={`Action ${a.name}`}>
      <div class="source-main">
        <span class="source-kind">{kindLabel(a.type)}</span>
        <code class="source-name">{a.name}</code>
        {a.requires_verified && <Badge kind="info">verified visitors</Badge>}
        {!a.enabled && <Badge kind="off">off</Badge>}
      </div>
      <span class="small">{a.description}</span>
      <span class="muted small action-target">{a.type === 'booking' ? a.calendar_url : a.url}</span>
      <div class="actions action-row-controls">
        <label class="check small grow">
          <input
            type="checkbox"
            role="switch"
            checked={switching ?? a.enabled}
            disabled={busy}
            onChange={(e) => void toggle(e.currentTarget.checked)}
          />{' '}
          Enabled
        </label>
        <button type="button" class="btn btn-small" ref={editButton} onClick={onEdit} aria-expanded={editing}>
          {editing ? 'Close' : 'Edit'}
        </button>
        <button type="button" class="btn btn-small btn-danger-text" onClick={onDelete}>
          Delete
        </button>
      </div>
      {editing && (
        <ActionForm
          agentId={agentId}
          action={a}
          onCancel={onEdit}
          onSaved={async (saved) => {
            onChanged(saved);
            onEdit();
            toast('Action saved');
          }}
        />
      )}
    </li>
  );
}
