import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import {
  auth,
  createAgent,
  ManualClock,
  PASSWORD,
  registerUser,
  type StartOptions,
  useTestApps,
  expectKeys,
  send,
} from '../helpers/app.js';

const apps = useTestApps();
const start = apps.start;
const tempDirs: string[] = [];
afterEach(async () => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const USER_KEYS = [
  'created_at',
  'email',
  'id',
  'last_login',
  'name',
  'plan_expires_at',
  'plan_id',
  'role',
  'status',
].sort();

interface Account {
  token: string;
  email: string;
  id: string;
}

async function account(app: App, name = 'Someone'): Promise<Account> {
  const { token, email } = await registerUser(app, { name });
  const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
  return { token, email, id: res.json().id };
}

function listUsers(app: App, token?: string) {
  return app.inject({ method: 'GET', url: '/api/admin/users', headers: token ? auth(token) : {} });
}

function patchUser(app: App, token: string | undefined, id: string, payload: unknown) {
  return app.inject({
    method: 'PATCH',
    url: `/api/admin/users/${encodeURIComponent(id)}`,
    headers: token ? auth(token) : {},
    payload: payload as Record<string, unknown>,
  });
}

function me(app: App, token: string) {
  return app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
}

/** An app with an admin (the first account) and two plain users. */
async function withUsers(opts: StartOptions = {}) {
  const t = await start(opts);
  const admin = await account(t.app, 'Admin');
  const alice = await account(t.app, 'Alice');
  const bob = await account(t.app, 'Bob');
  return { t, app: t.app, admin, alice, bob };
}

describe('admin API access', () => {
  it('answers 401 with WWW-Authenticate without a token', async () => {
    const { app, alice } = await withUsers();
    for (const res of [await listUsers(app), await patchUser(app, undefined, alice.id, { role: 'admin' })]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: 'Could not validate credentials' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('answers 403 to a non-admin for listing and for every PATCH, including on themselves', async () => {
    const { app, admin, alice, bob } = await withUsers();
    const list = await listUsers(app, alice.token);
    expect(list.statusCode).toBe(403);
    expect(typeof list.json().detail).toBe('string');
    expect(list.body).not.toContain(bob.email);

    const attempts: Array<[string, unknown]> = [
      [alice.id, { role: 'admin' }], // promote self
      [alice.id, { plan_id: 'pro' }],
      [bob.id, { status: 'banned' }],
      [admin.id, { role: 'user' }],
      [admin.id, { status: 'suspended' }],
      ['no-such-user', { role: 'admin' }], // no 404: does not reveal which ids exist
      [bob.id, { role: 'emperor' }], // no 400: refused before the body is looked at
    ];
    for (const [id, body] of attempts) {
      const res = await patchUser(app, alice.token, id, body);
      expect(res.statusCode, `${id} ${JSON.stringify(body)}`).toBe(403);
    }

    // nothing changed
    const users = (await listUsers(app, admin.token)).json() as any[];
    const byId = new Map(users.map((u) => [u.id, u]));
    expect(byId.get(alice.id)).toMatchObject({ role: 'user', plan_id: 'free', status: 'active' });
    expect(byId.get(bob.id)).toMatchObject({ role: 'user', status: 'active' });
    expect(byId.get(admin.id)).toMatchObject({ role: 'admin', status: 'active' });
  });

  it('lists every user with plan_expires_at and without password_hash', async () => {
    const { app, admin, alice, bob } = await withUsers();
    const res = await listUsers(app, admin.token);
    expect(res.statusCode).toBe(200);
    const users = res.json() as any[];
    expect(users).toHaveLength(3);
    expect(users.map((u) => u.id).sort()).toEqual([admin.id, alice.id, bob.id].sort());
    for (const u of users) {
      expectKeys(u, USER_KEYS);
      expect(u.plan_expires_at).toBeNull();
    }
    expect(res.body).not.toContain('password');
    expect(res.body).not.toContain('$argon2');
    expect(users.find((u) => u.id === admin.id)).toMatchObject({ name: 'Admin', email: admin.email, role: 'admin' });
    expect(users.find((u) => u.id === alice.id)).toMatchObject({
      name: 'Alice',
      email: alice.email,
      role: 'user',
      status: 'active',
    });
  });
});

describe('PATCH /api/admin/users/{user_id}', () => {
  it('changes role, status, plan_id and plan_expires_at and returns the User', async () => {
    const { app, admin, alice } = await withUsers();

    const role = await patchUser(app, admin.token, alice.id, { role: 'admin' });
    expect(role.statusCode).toBe(200);
    expectKeys(role.json(), USER_KEYS);
    expect(role.json()).toMatchObject({
      id: alice.id,
      email: alice.email,
      name: 'Alice',
      role: 'admin',
      status: 'active',
    });

    const status = await patchUser(app, admin.token, alice.id, { status: 'suspended' });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ role: 'admin', status: 'suspended' });

    const plan = await patchUser(app, admin.token, alice.id, { plan_id: 'pro' });
    expect(plan.statusCode).toBe(200);
    expect(plan.json()).toMatchObject({ plan_id: 'pro', status: 'suspended' });

    const expiry = await patchUser(app, admin.token, alice.id, { plan_expires_at: '2030-06-30T23:59:59Z' });
    expect(expiry.statusCode).toBe(200);
    expect(Date.parse(expiry.json().plan_expires_at)).toBe(Date.parse('2030-06-30T23:59:59Z'));

    // several at once
    const all = await patchUser(app, admin.token, alice.id, {
      role: 'user',
      status: 'active',
      plan_id: 'starter',
      plan_expires_at: null,
    });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ role: 'user', status: 'active', plan_id: 'starter', plan_expires_at: null });

    // the change is stored, not only echoed
    const listed = ((await listUsers(app, admin.token)).json() as any[]).find((u) => u.id === alice.id);
    expect(listed).toMatchObject({ role: 'user', status: 'active', plan_id: 'starter', plan_expires_at: null });
    expect((await me(app, alice.token)).json()).toMatchObject({ plan_id: 'starter', plan_expires_at: null });
  });

  it('keeps fields that are not in the body', async () => {
    const { app, admin, alice } = await withUsers();
    await patchUser(app, admin.token, alice.id, { plan_id: 'pro', plan_expires_at: '2031-01-01T00:00:00.000Z' });
    const res = await patchUser(app, admin.token, alice.id, { status: 'banned' });
    expect(res.json()).toMatchObject({ status: 'banned', plan_id: 'pro', role: 'user' });
    expect(Date.parse(res.json().plan_expires_at)).toBe(Date.parse('2031-01-01T00:00:00.000Z'));
    const empty = await patchUser(app, admin.token, alice.id, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({ status: 'banned', plan_id: 'pro' });
  });

  it('accepts a timestamp with an offset as the same instant', async () => {
    const { app, admin, alice } = await withUsers();
    const res = await patchUser(app, admin.token, alice.id, { plan_expires_at: '2030-01-01T02:00:00+02:00' });
    expect(res.statusCode).toBe(200);
    expect(Date.parse(res.json().plan_expires_at)).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(res.json().plan_expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });

  it('does not let the body change anything but role, status and plan', async () => {
    const { app, admin, alice } = await withUsers();
    const res = await patchUser(app, admin.token, alice.id, {
      email: 'hijack@example.com',
      name: 'Renamed',
      id: 'other-id',
      password_hash: 'x',
      password: 'new password 123',
      created_at: '2000-01-01T00:00:00Z',
    });
    expect([200, 400]).toContain(res.statusCode);
    const after = (await me(app, alice.token)).json();
    expect(after).toMatchObject({ id: alice.id, email: alice.email, name: 'Alice' });
    expect(after.created_at).not.toBe('2000-01-01T00:00:00Z');
    // the password is unchanged
    const login = await send(app, null, 'POST', '/api/auth/login', { email: alice.email, password: PASSWORD });
    expect(login.statusCode).toBe(200);
  });

  it('answers 400 for an unknown plan_id and leaves the user alone', async () => {
    const { app, admin, alice } = await withUsers();
    const res = await patchUser(app, admin.token, alice.id, { plan_id: 'platinum' });
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
    expect(res.json().detail).toContain('plan_id');
    // a valid field alongside is not applied either
    const mixed = await patchUser(app, admin.token, alice.id, { plan_id: 'platinum', role: 'admin' });
    expect(mixed.statusCode).toBe(400);
    expect((await me(app, alice.token)).json()).toMatchObject({ plan_id: 'free', role: 'user' });
  });

  it('checks plan_id against PLANS_FILE when one is given', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chat-agent-plans-'));
    tempDirs.push(dir);
    const file = path.join(dir, 'plans.json');
    const plan = {
      max_agents: 1,
      max_account_leads: 5,
      monthly_messages: 10,
      requests_per_minute: 60,
      requests_per_hour: 600,
      custom_branding: false,
    };
    writeFileSync(file, JSON.stringify({ basic: plan, gold: { ...plan, max_agents: 5, custom_branding: true } }));
    const { app, admin, alice } = await withUsers({ env: { PLANS_FILE: file, DEFAULT_PLAN: 'basic' } });
    expect((await me(app, alice.token)).json().plan_id).toBe('basic');
    // the built-in names are gone
    expect((await patchUser(app, admin.token, alice.id, { plan_id: 'pro' })).statusCode).toBe(400);
    const gold = await patchUser(app, admin.token, alice.id, { plan_id: 'gold' });
    expect(gold.statusCode).toBe(200);
    expect(gold.json().plan_id).toBe('gold');
  });

  it('answers 404 for an unknown user id', async () => {
    const { app, admin } = await withUsers();
    const res = await patchUser(app, admin.token, 'no-such-user', { role: 'admin' });
    expect(res.statusCode).toBe(404);
    expect(typeof res.json().detail).toBe('string');
    expect(
      (await patchUser(app, admin.token, '00000000-0000-0000-0000-000000000000', { status: 'banned' })).statusCode,
    ).toBe(404);
  });

  it.each([
    ['role', { role: 'superuser' }],
    ['role', { role: 'ADMIN' }],
    ['role', { role: 1 }],
    ['status', { status: 'deleted' }],
    ['status', { status: null }],
    ['plan_id', { plan_id: '' }],
    ['plan_id', { plan_id: 7 }],
    ['plan_expires_at', { plan_expires_at: 'next tuesday' }],
    ['plan_expires_at', { plan_expires_at: 1735689600 }],
    ['plan_expires_at', { plan_expires_at: '2030-13-45T99:00:00Z' }],
  ])('answers 400 naming %s for %j', async (field, body) => {
    const { app, admin, alice } = await withUsers();
    const res = await patchUser(app, admin.token, alice.id, body);
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
    expect(res.json().detail).toContain(field);
    expect((await me(app, alice.token)).json()).toMatchObject({
      role: 'user',
      status: 'active',
      plan_id: 'free',
      plan_expires_at: null,
    });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const { app, admin, alice } = await withUsers();
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${alice.id}`,
      headers: { ...auth(admin.token), 'content-type': 'application/json' },
      payload: '{"role": ',
    });
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
  });
});

describe('the last active admin', () => {
  it.each([
    [{ role: 'user' }],
    [{ status: 'suspended' }],
    [{ status: 'banned' }],
    [{ role: 'user', status: 'active' }],
  ])('cannot remove themselves with %j while alone', async (body) => {
    const { app, admin } = await withUsers();
    const res = await patchUser(app, admin.token, admin.id, body);
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
    expect((await me(app, admin.token)).json()).toMatchObject({ role: 'admin', status: 'active' });
    expect((await listUsers(app, admin.token)).statusCode).toBe(200);
  });

  it('may change their own plan or re-affirm their role while alone', async () => {
    const { app, admin } = await withUsers();
    const res = await patchUser(app, admin.token, admin.id, { role: 'admin', status: 'active', plan_id: 'pro' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ role: 'admin', status: 'active', plan_id: 'pro' });
  });

  it('can step down once another active admin exists, and then loses the admin API', async () => {
    const { app, admin, alice, bob } = await withUsers();
    expect((await patchUser(app, admin.token, alice.id, { role: 'admin' })).statusCode).toBe(200);

    const down = await patchUser(app, admin.token, admin.id, { role: 'user' });
    expect(down.statusCode).toBe(200);
    expect(down.json().role).toBe('user');
    // the existing token loses admin rights at once
    expect((await listUsers(app, admin.token)).statusCode).toBe(403);
    expect((await me(app, admin.token)).json().role).toBe('user');

    // alice is now the last admin and the same rule holds for her
    expect((await patchUser(app, alice.token, alice.id, { status: 'suspended' })).statusCode).toBe(400);
    expect((await patchUser(app, alice.token, bob.id, { status: 'suspended' })).statusCode).toBe(200);
    // she can restore the first account
    expect((await patchUser(app, alice.token, admin.id, { role: 'admin' })).statusCode).toBe(200);
    expect((await listUsers(app, admin.token)).statusCode).toBe(200);
  });

  it('can suspend themselves once another admin exists', async () => {
    const { app, admin, alice } = await withUsers();
    await patchUser(app, admin.token, alice.id, { role: 'admin' });
    const res = await patchUser(app, admin.token, admin.id, { status: 'suspended' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ role: 'admin', status: 'suspended' });
    expect((await listUsers(app, admin.token)).statusCode).toBe(403);
    expect((await patchUser(app, alice.token, admin.id, { status: 'active' })).statusCode).toBe(200);
    expect((await listUsers(app, admin.token)).statusCode).toBe(200);
  });

  it('counts only active admins: a suspended second admin does not let the last one leave', async () => {
    const { app, admin, alice } = await withUsers();
    await patchUser(app, admin.token, alice.id, { role: 'admin' });
    expect((await patchUser(app, admin.token, alice.id, { status: 'suspended' })).statusCode).toBe(200);
    expect((await patchUser(app, admin.token, admin.id, { role: 'user' })).statusCode).toBe(400);
    expect((await patchUser(app, admin.token, admin.id, { status: 'banned' })).statusCode).toBe(400);
    expect((await me(app, admin.token)).json()).toMatchObject({ role: 'admin', status: 'active' });
  });

  it('one admin may demote another while two are active', async () => {
    const { app, admin, alice } = await withUsers();
    await patchUser(app, admin.token, alice.id, { role: 'admin' });
    const res = await patchUser(app, alice.token, admin.id, { role: 'user' });
    expect(res.statusCode).toBe(200);
    // and now alice is alone
    expect((await patchUser(app, alice.token, alice.id, { role: 'user' })).statusCode).toBe(400);
  });
});

describe('a suspended or banned account', () => {
  it("has its agents answer visitors as an inactive agent does (no chat on the operator's key, no leads); reinstated, they answer again", async () => {
    const { app, admin, alice } = await withUsers();
    const agent = await createAgent(app, alice.token);
    const chat = (session: string) =>
      app.inject({
        method: 'POST',
        url: `/api/public/chat/${agent.id}`,
        payload: { message: 'Hello?', session_id: session },
      });
    const lead = () =>
      app.inject({ method: 'POST', url: `/api/public/lead/${agent.id}`, payload: { name: 'Ann', phone: '555 0100' } });
    const info = () => app.inject({ method: 'GET', url: `/api/public/chatbot/${agent.id}` });
    expect((await chat('before')).statusCode).toBe(200);
    expect((await info()).json().status).toBe('active');

    for (const status of ['suspended', 'banned']) {
      expect((await patchUser(app, admin.token, alice.id, { status })).statusCode).toBe(200);
      const refused = await chat(`during-${status}`);
      expect(refused.statusCode, status).toBe(400);
      expect(refused.json().detail).toBe('This chatbot is inactive');
      expect((await lead()).statusCode, status).toBe(400);
      expect((await info()).json().status, status).toBe('inactive');
    }
    const stored = await app.inject({ method: 'GET', url: `/api/chatbots/${agent.id}`, headers: auth(admin.token) });
    expect(stored.statusCode).toBe(404); // (another account's agent) nothing leaked by the check

    expect((await patchUser(app, admin.token, alice.id, { status: 'active' })).statusCode).toBe(200);
    expect((await chat('after')).statusCode).toBe(200);
    expect((await lead()).statusCode).toBe(200);
    expect((await info()).json().status).toBe('active');
  });
});

describe('role and plan changes take effect', () => {
  it('a promoted user can use the admin API with the token they already hold', async () => {
    const { app, admin, alice, bob } = await withUsers();
    expect((await listUsers(app, alice.token)).statusCode).toBe(403);
    expect((await patchUser(app, admin.token, alice.id, { role: 'admin' })).statusCode).toBe(200);

    const list = await listUsers(app, alice.token);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(3);
    const patched = await patchUser(app, alice.token, bob.id, { plan_id: 'pro' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().plan_id).toBe('pro');

    // demoted again, the same token loses it at once
    expect((await patchUser(app, admin.token, alice.id, { role: 'user' })).statusCode).toBe(200);
    expect((await listUsers(app, alice.token)).statusCode).toBe(403);
  });

  it('plan_expires_at in the past gives 402 on agent creation; null or a future date lifts it', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const { app, admin, alice, bob } = await withUsers({ clock });

    const past = await patchUser(app, admin.token, alice.id, { plan_expires_at: '2026-02-28T00:00:00Z' });
    expect(past.statusCode).toBe(200);
    const refused = await send(app, alice.token, 'POST', '/api/chatbots', { name: 'Bot' });
    expect(refused.statusCode).toBe(402);
    expect(typeof refused.json().detail).toBe('string');
    // nothing was created
    expect((await app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(alice.token) })).json()).toEqual([]);
    // other accounts are not affected
    await createAgent(app, bob.token);

    expect((await patchUser(app, admin.token, alice.id, { plan_expires_at: null })).json().plan_expires_at).toBeNull();
    await createAgent(app, alice.token);

    // a date in the future works until the clock passes it
    await patchUser(app, admin.token, alice.id, { plan_expires_at: '2026-03-01T14:00:00Z' });
    clock.advance(3600 * 1000);
    await createAgent(app, alice.token);
    clock.advance(3600 * 1000); // exactly at the expiry
    const atExpiry = await send(app, alice.token, 'POST', '/api/chatbots', { name: 'Late bot' });
    expect(atExpiry.statusCode).toBe(402);
    clock.advance(3600 * 1000);
    const expired = await send(app, alice.token, 'POST', '/api/chatbots', { name: 'Late bot' });
    expect(expired.statusCode).toBe(402);
    // the list shows the expiry to the admin
    const listed = ((await listUsers(app, admin.token)).json() as any[]).find((u) => u.id === alice.id);
    expect(Date.parse(listed.plan_expires_at)).toBe(Date.parse('2026-03-01T14:00:00Z'));
  });

  it('plan_id changes the agent limit', async () => {
    const { app, admin, alice } = await withUsers();
    for (let i = 0; i < 3; i++) await createAgent(app, alice.token, { name: `Bot ${i}` });
    const over = await send(app, alice.token, 'POST', '/api/chatbots', { name: 'Bot 3' });
    expect(over.statusCode).toBe(403);
    expect(over.json().detail).toMatchObject({ current: 3, max: 3, upgrade_required: true });

    expect((await patchUser(app, admin.token, alice.id, { plan_id: 'starter' })).statusCode).toBe(200);
    await createAgent(app, alice.token, { name: 'Bot 3' });
  });
});
