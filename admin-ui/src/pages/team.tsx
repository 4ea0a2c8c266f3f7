import { useState } from 'preact/hooks';
import { api, ApiError, get } from '../api.js';
import { FIELD_MAX } from '../field-limits.js';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Field,
  Notice,
  SubmitButton,
  inputValue,
  toast,
  useAsync,
  useSubmit,
} from '../ui.js';

interface Member {
  user_id: string;
  email: string;
  name: string;
  role: 'owner' | 'manager' | 'operator';
  /** online or away for visitors asking for a person */
  availability: 'online' | 'away';
}

interface Invitation {
  id: string;
  email: string;
  role: 'manager' | 'operator';
  expires_at: string;
  link: string;
}

/**
 * The account's team (docs/API-NOTES.md "Team"): the owner invites teammates and removes them. A
 * section of the Account page shown to the owner only (the team routes answer a teammate 403).
 */
export function TeamSection() {
  const members = useAsync(
    () =>
      get<Member[]>('/api/team/members').catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 403) return null; // a teammate: not theirs to manage
        throw err;
      }),
    [],
  );
  const [invited, setInvited] = useState<Invitation | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  // nothing until the server has said whether this is the owner (a teammate sees no Team section)
  if (members.data === null || (!members.data && !members.error)) return null;
  return (
    <section class="card section stack" aria-labelledby="team-title">
      <div class="section-head">
        <h2 id="team-title">Team</h2>
        <p class="muted">
          Managers can do everything but the team, the plan and the provider keys. Operators answer conversations and
          leads, and read agents and knowledge.
        </p>
      </div>
      {members.error && <Notice kind="error">{members.error}</Notice>}
      {members.data && (
        <ul class="stack" aria-label="Team members">
          {members.data.map((m) => (
            <li key={m.user_id} class="copy-row">
              <span>
                {m.name} <span class="muted">{m.email}</span> <Badge kind={m.role}>{m.role}</Badge>{' '}
                <span class="muted small">{m.availability}</span>
              </span>
              {m.role !== 'owner' && (
                <button type="button" class="btn btn-small" onClick={() => setRemoving(m)}>
                  Remove {m.name}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {invited && (
        <Notice kind="success">
          <div class="stack">
            <span>
              Invitation for {invited.email} ({invited.role}). Send them this link; it works once, for 7 days (it was
              e-mailed too if mail is set up).
            </span>
            <div class="copy-row">
              <input type="text" readOnly value={invited.link} aria-label="Invitation link" />
              <CopyButton text={invited.link} label="Copy link" />
            </div>
          </div>
        </Notice>
      )}
      <InviteForm
        onInvited={(inv) => {
          setInvited(inv);
          void members.reload();
        }}
      />
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            await api('DELETE', `/api/team/members/${removing.user_id}`);
            toast(`${removing.name} was removed from the team.`);
            setRemoving(null);
            await members.reload();
          }}
        >
          <p>They are logged out at once and can no longer log in.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited: (inv: Invitation) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'manager' | 'operator'>('operator');
  const { busy, error, submit } = useSubmit(async () => {
    onInvited(await api<Invitation>('POST', '/api/team/invitations', { email, role }));
    setEmail('');
  });
  return (
    <form onSubmit={submit} method="post" class="stack">
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="E-mail of the teammate">
        <input
          type="email"
          name="invite-email"
          required
          maxLength={FIELD_MAX.email}
          value={email}
          onInput={(e) => setEmail(inputValue(e))}
        />
      </Field>
      <Field label="Role">
        <select value={role} onChange={(e) => setRole(inputValue(e) as 'manager' | 'operator')}>
          <option value="operator">Operator</option>
          <option value="manager">Manager</option>
        </select>
      </Field>
      <SubmitButton busy={busy} label="Invite" busyLabel="Inviting…" />
    </form>
  );
}
