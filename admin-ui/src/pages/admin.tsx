import { api, get } from '../api.js';
import { useSession } from '../session.js';
import type { User } from '../types.js';
import { Loading, Notice, formatDate, toast, useAsync, inputValue, useBusy } from '../ui.js';
import { ServerSettingsSection } from './server-settings/index.js';

type Patch = Partial<Pick<User, 'role' | 'status' | 'plan_id' | 'plan_expires_at'>>;

function UserRow({
  user,
  plans,
  isMe,
  onChanged,
}: {
  user: User;
  plans: string[];
  isMe: boolean;
  onChanged: (u: User) => void;
}) {
  const { busy, run } = useBusy((text) => {
    // the select shows the stored value again (the row re-renders from the unchanged user)
    onChanged({ ...user });
    toast(text, 'error');
  });
  const planIds = plans.includes(user.plan_id) ? plans : [user.plan_id, ...plans];
  const patch = (p: Patch, what: string) =>
    run(async () => {
      const updated = await api<User>('PATCH', `/api/admin/users/${encodeURIComponent(user.id)}`, p);
      onChanged(updated);
      toast(`${user.name}: ${what}`);
    });
  const expires = user.plan_expires_at ? user.plan_expires_at.slice(0, 10) : '';
  return (
    <tr data-user-id={user.id}>
      <td class="user-cell">
        <strong>{user.name}</strong>
        {isMe && <span class="muted small"> (you)</span>}
        <span class="block small muted">{user.email}</span>
      </td>
      <td data-label="Plan">
        <select
          aria-label={`Plan of ${user.name}`}
          value={user.plan_id}
          disabled={busy}
          onChange={(e) => void patch({ plan_id: inputValue(e) }, `plan set to ${inputValue(e)}`)}
        >
          {planIds.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </td>
      <td data-label="Plan expires">
        <input
          type="date"
          aria-label={`Plan of ${user.name} expires on`}
          value={expires}
          disabled={busy}
          onChange={(e) => {
            const v = inputValue(e);
            void patch(
              { plan_expires_at: v ? `${v}T23:59:59.000Z` : null },
              v ? `plan expires ${v}` : 'plan never expires',
            );
          }}
        />
      </td>
      <td data-label="Status">
        <select
          aria-label={`Status of ${user.name}`}
          value={user.status}
          disabled={busy}
          onChange={(e) => void patch({ status: inputValue(e) as User['status'] }, `status set to ${inputValue(e)}`)}
        >
          <option value="active">active</option>
          <option value="suspended">suspended</option>
          <option value="banned">banned</option>
        </select>
      </td>
      <td data-label="Role">
        <select
          aria-label={`Role of ${user.name}`}
          value={user.role}
          disabled={busy}
          onChange={(e) => void patch({ role: inputValue(e) as User['role'] }, `role set to ${inputValue(e)}`)}
        >
          <option value="user">user</option>
          <option value="admin">admin</option>
        </select>
      </td>
      <td class="small muted" data-label="Last login">
        {formatDate(user.last_login)}
      </td>
    </tr>
  );
}

/** Every account on the server (role admin only): plan, plan expiry, status and role; then the server settings (provider keys, mail). */
export function AdminPage() {
  const { user: me, status } = useSession();
  const users = useAsync(() => get<User[]>('/api/admin/users'), []);
  const plans = status?.plans ?? ['free', 'starter', 'pro'];
  return (
    <>
      <div class="page-head">
        <h1>Users</h1>
        <div class="head-actions">
          {/* the section below the users; a button, since a hash link would be a route */}
          <button
            type="button"
            class="btn btn-small"
            onClick={() => document.getElementById('server-settings')?.scrollIntoView({ behavior: 'smooth' })}
          >
            Server settings
          </button>
          <button type="button" class="btn btn-small" onClick={() => void users.reload()} disabled={users.loading}>
            Refresh
          </button>
        </div>
      </div>
      <p class="muted">
        Changes apply at once. Suspended and banned users cannot log in; their agents keep their data.
      </p>
      {users.error && <Notice kind="error">{users.error}</Notice>}
      {!users.data && users.loading && <Loading />}
      {users.data && (
        <div class="table-wrap">
          <table class="table users-table" aria-label="Users">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Plan</th>
                <th scope="col">Plan expires</th>
                <th scope="col">Status</th>
                <th scope="col">Role</th>
                <th scope="col">Last login</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <UserRow
                  key={`${u.id}`}
                  user={u}
                  plans={plans}
                  isMe={u.id === me.id}
                  onChanged={(nu) => users.setData((users.data ?? []).map((x) => (x.id === nu.id ? nu : x)))}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ServerSettingsSection />
    </>
  );
}
