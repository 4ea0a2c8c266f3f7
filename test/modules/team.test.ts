import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  PASSWORD,
  ROOMY_PLAN,
  createAgent,
  makeDataDir,
  registerUser,
  send,
  type TestApp,
  sendExpect,
  uniqueEmail,
  useTestApps,
  writePlansFile,
} from '../helpers/app.js';
import type { App } from '../../src/app.js';
import { startSmtp } from '../helpers/smtp.js';

/**
 * Teammates (issue 34 part 1, docs/API-NOTES.md "Team"): invitations, joining, the member list,
 * removal, the team roles' gates, plans' max_members and the audit log. Real SQLite, fastify inject.
 */
const apps = useTestApps();

type Role = 'manager' | 'operator';

async function invite(app: App, ownerToken: string, role: Role, email = uniqueEmail('mate')) {
  const body = await sendExpect(app, ownerToken, 'POST', '/api/team/invitations', { email, role }, 201);
  return { ...body, token: new URL(body.link.replace('/#/', '/')).searchParams.get('token') as string };
}

async function join(app: App, token: string, name = 'Mate') {
  return send(app, null, 'POST', '/api/team/join', { token, name, password: PASSWORD });
}

/** An owner and a teammate of `role` who joined; both tokens, and the teammate's user id. */
async function team(app: App, role: Role) {
  const owner = await registerUser(app, { name: 'Owner' });
  const inv = await invite(app, owner.token, role);
  const joined = await join(app, inv.token);
  expect(joined.statusCode, joined.body).toBe(201);
  const token = joined.json().access_token as string;
  const me = await sendExpect(app, token, 'GET', '/api/auth/me');
  return { owner, member: { token, id: me.id as string, email: inv.email as string } };
}

const countUsers = (t: TestApp) =>
  (t.database.sqlite.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;

describe('invitations and joining', () => {
  it('an invitation answers 201 with a 7-day single-use link; joining answers like register', async () => {
    const clock = new ManualClock();
    const t = await apps.start({ clock, env: { PUBLIC_URL: 'https://chat.example.com' } });
    const owner = await registerUser(t.app);
    const email = uniqueEmail('Mate').toUpperCase();
    const body = await sendExpect(
      t.app,
      owner.token,
      'POST',
      '/api/team/invitations',
      { email, role: 'operator' },
      201,
    );
    expect(Object.keys(body).sort()).toEqual(['email', 'expires_at', 'id', 'link', 'role']);
    expect(body.email).toBe(email.toLowerCase());
    expect(body.role).toBe('operator');
    expect(body.expires_at).toBe(new Date(clock.now().getTime() + 7 * 86400_000).toISOString());
    expect(body.link).toMatch(/^https:\/\/chat\.example\.com\/#\/join\?token=[\w-]{40,}$/);
    const token = body.link.split('token=')[1];
    // only a hash of the token is stored
    const dump = JSON.stringify(t.database.sqlite.prepare('SELECT * FROM team_invitations').all());
    expect(dump).not.toContain(token);

    const joined = await join(t.app, token, 'Olga');
    expect(joined.statusCode, joined.body).toBe(201);
    expect(Object.keys(joined.json()).sort()).toEqual(['access_token', 'token_type']);
    const me = await sendExpect(t.app, joined.json().access_token, 'GET', '/api/auth/me');
    expect(me).toMatchObject({ name: 'Olga', email: email.toLowerCase(), role: 'user' });
    // the teammate logs in with their own e-mail and password
    await sendExpect(t.app, null, 'POST', '/api/auth/login', { email, password: PASSWORD });
  });

  it('joining works whatever REGISTRATION says', async () => {
    const t = await apps.start({ env: { REGISTRATION: 'first-only' } });
    const owner = await registerUser(t.app);
    const refused = await send(t.app, null, 'POST', '/api/auth/register', {
      name: 'X',
      email: uniqueEmail(),
      password: PASSWORD,
    });
    expect(refused.statusCode).toBe(403);
    const inv = await invite(t.app, owner.token, 'manager');
    expect((await join(t.app, inv.token)).statusCode).toBe(201);
  });

  it('the invitation is e-mailed when mail is configured', async () => {
    const smtp = apps.after(await startSmtp());
    const t = await apps.start({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'team@chat-agent.test' } });
    const owner = await registerUser(t.app, { name: 'Ann Owner' });
    const inv = await invite(t.app, owner.token, 'manager');
    const mail = await smtp.waitFor(1);
    expect(mail.to).toEqual([inv.email]);
    expect(mail.body).toContain(inv.link);
    expect(mail.body).toContain('Ann Owner');
  });

  it('bad input: unknown role, an address with an account, an existing member: 4xx, nothing stored', async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'operator');
    const other = await registerUser(t.app);
    const invitations = () => t.database.sqlite.prepare('SELECT count(*) AS n FROM team_invitations').get();
    const before = invitations();
    for (const role of ['agent', 'admin', 'owner', '', 'MANAGER']) {
      const res = await send(t.app, owner.token, 'POST', '/api/team/invitations', { email: uniqueEmail(), role });
      expect(res.statusCode, role).toBe(400);
      expect(res.json().detail).toMatch(/role/);
    }
    expect((await send(t.app, owner.token, 'POST', '/api/team/invitations', { role: 'manager' })).statusCode).toBe(400);
    const taken = await send(t.app, owner.token, 'POST', '/api/team/invitations', {
      email: other.email,
      role: 'manager',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().detail).toMatch(/already has an account/);
    const again = await send(t.app, owner.token, 'POST', '/api/team/invitations', {
      email: member.email,
      role: 'manager',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/already a member/);
    const self = await send(t.app, owner.token, 'POST', '/api/team/invitations', {
      email: owner.email,
      role: 'manager',
    });
    expect(self.statusCode).toBe(409);
    expect(invitations()).toEqual(before);
  });

  it('a used, unknown or expired token is 400 and creates nothing; a weak password keeps the link usable', async () => {
    const clock = new ManualClock();
    const t = await apps.start({ clock });
    const owner = await registerUser(t.app);
    const inv = await invite(t.app, owner.token, 'operator');
    const weak = await send(t.app, null, 'POST', '/api/team/join', {
      token: inv.token,
      name: 'M',
      password: 'password',
    });
    expect(weak.statusCode).toBe(400);
    expect((await join(t.app, inv.token)).statusCode).toBe(201);
    const users = countUsers(t);
    for (const token of [inv.token, 'not-a-token']) {
      const res = await join(t.app, token);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe('token: invalid, already used or expired');
    }
    const late = await invite(t.app, owner.token, 'manager');
    clock.advance(7 * 86400_000 + 1);
    expect((await join(t.app, late.token)).statusCode).toBe(400);
    expect(countUsers(t)).toBe(users);
    expect((await send(t.app, null, 'POST', '/api/team/join', { name: 'M', password: PASSWORD })).statusCode).toBe(400);
  });

  it('two joins with one token at once: one account, the other 400', async () => {
    const t = await apps.start();
    const owner = await registerUser(t.app);
    const inv = await invite(t.app, owner.token, 'operator');
    const users = countUsers(t);
    const answers = await Promise.all([join(t.app, inv.token, 'One'), join(t.app, inv.token, 'Two')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    expect(countUsers(t)).toBe(users + 1);
  });

  it("a teammate stands with the owner's account: suspended owner, refused teammate", async () => {
    const t = await apps.start();
    const admin = await registerUser(t.app);
    const { owner, member } = await team(t.app, 'manager');
    const ownerId = (await sendExpect(t.app, owner.token, 'GET', '/api/auth/me')).id;
    await sendExpect(t.app, admin.token, 'PATCH', `/api/admin/users/${ownerId}`, { status: 'suspended' });
    const res = await send(t.app, member.token, 'GET', '/api/chatbots');
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatch(/suspended/);
  });

  it('max_members: past the plan limit the invitation is the plan-limit 403; a plans file without it gets 5', async () => {
    const dataDir = makeDataDir();
    const PLANS_FILE = writePlansFile(dataDir, { small: { ...ROOMY_PLAN, max_members: 1 } as typeof ROOMY_PLAN });
    const t = await apps.start({ dataDir, env: { PLANS_FILE, DEFAULT_PLAN: 'small' } });
    const owner = await registerUser(t.app);
    await invite(t.app, owner.token, 'manager');
    const res = await send(t.app, owner.token, 'POST', '/api/team/invitations', {
      email: uniqueEmail(),
      role: 'operator',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatchObject({ current: 1, max: 1, upgrade_required: true });
    expect(res.json().detail.message).toMatch(/Team limit/);

    const t2 = await apps.start({
      env: { PLANS_FILE: writePlansFile(makeDataDir(), { p: ROOMY_PLAN }), DEFAULT_PLAN: 'p' },
    });
    expect(t2.config.plans.p!.max_members).toBe(5);
    expect(t2.config.plans).not.toHaveProperty('free');
    expect((await apps.start()).config.plans.free!.max_members).toBe(2);
  });
});

describe('members', () => {
  it('lists the owner and the teammates; removing one ends their sessions at once', async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'manager');
    const ownerMe = await sendExpect(t.app, owner.token, 'GET', '/api/auth/me');
    const list = await sendExpect(t.app, owner.token, 'GET', '/api/team/members');
    expect(list).toEqual([
      {
        user_id: ownerMe.id,
        email: owner.email,
        name: 'Owner',
        display_name: 'Owner',
        role: 'owner',
        availability: 'online',
      },
      {
        user_id: member.id,
        email: member.email,
        name: 'Mate',
        display_name: 'Mate',
        role: 'manager',
        availability: 'online',
      },
    ]);
    const res = await send(t.app, owner.token, 'DELETE', `/api/team/members/${member.id}`);
    expect(res.statusCode).toBe(204);
    expect((await send(t.app, member.token, 'GET', '/api/chatbots')).statusCode).toBe(401);
    expect(await sendExpect(t.app, owner.token, 'GET', '/api/team/members')).toHaveLength(1);
    // the address is free again: it can be invited anew
    await invite(t.app, owner.token, 'operator', member.email);
  });

  it('the owner cannot be removed (409); a user outside the account is 404, as a missing one', async () => {
    const t = await apps.start();
    const a = await team(t.app, 'manager');
    const b = await team(t.app, 'manager');
    const ownerId = (await sendExpect(t.app, a.owner.token, 'GET', '/api/auth/me')).id;
    const own = await send(t.app, a.owner.token, 'DELETE', `/api/team/members/${ownerId}`);
    expect(own.statusCode).toBe(409);
    expect(own.json().detail).toMatch(/owner/);
    const otherOwnerId = (await sendExpect(t.app, b.owner.token, 'GET', '/api/auth/me')).id;
    for (const id of [b.member.id, otherOwnerId, '0190c2e0-0000-7000-8000-000000000000']) {
      const res = await send(t.app, a.owner.token, 'DELETE', `/api/team/members/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().detail).toBe('Member not found');
    }
    await sendExpect(t.app, b.member.token, 'GET', '/api/chatbots');
  });
});

describe('team roles', () => {
  it('an operator: 403 on agent creation, the team routes and provider keys; 200 on conversations, leads, reads', async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'operator');
    const agent = await createAgent(t.app, owner.token);
    const refused: Array<[string, string, unknown?]> = [
      ['POST', '/api/chatbots', { name: 'Mine' }],
      ['PUT', `/api/chatbots/${agent.id}`, { name: 'Renamed' }],
      ['DELETE', `/api/chatbots/${agent.id}`],
      ['POST', '/api/team/invitations', { email: uniqueEmail(), role: 'operator' }],
      ['GET', '/api/team/members'],
      ['DELETE', `/api/team/members/${member.id}`],
      ['PUT', '/api/admin/settings/providers/openai', { api_key: 'sk-test-1234567890' }],
      ['GET', '/api/admin/settings'],
      ['POST', `/api/sources/chatbot/${agent.id}/text`, { name: 'N', content: 'Some text here.' }],
      ['POST', '/api/webhooks', { url: 'https://example.com/hook', events: ['lead.created'] }],
    ];
    for (const [method, url, body] of refused) {
      const res = await send(t.app, member.token, method as 'GET', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(typeof res.json().detail, `${method} ${url}`).toBe('string');
    }
    for (const url of [
      `/api/chat/conversations/${agent.id}`,
      '/api/leads',
      `/api/chatbot-leads/${agent.id}`,
      '/api/chatbots',
      `/api/chatbots/${agent.id}`,
      `/api/sources/chatbot/${agent.id}`,
      `/api/chatbots/${agent.id}/gaps`,
      '/api/auth/me',
    ]) {
      expect((await send(t.app, member.token, 'GET', url)).statusCode, url).toBe(200);
    }
    const lead = await sendExpect(t.app, member.token, 'POST', '/api/leads', {
      name: 'Ada',
      contact: 'ada@example.com',
    });
    expect(lead.name).toBe('Ada');
    // the agent is unchanged and the owner still sees it
    expect((await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agent.id}`)).name).toBe(agent.name);
  });

  it("a manager creates an agent the owner sees; the team routes stay the owner's; never the server admin", async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'manager');
    const agent = await createAgent(t.app, member.token, { name: 'Made by the manager' });
    const list = await sendExpect(t.app, owner.token, 'GET', '/api/chatbots');
    expect(list.map((a: { id: string }) => a.id)).toContain(agent.id);
    for (const [method, url] of [
      ['GET', '/api/team/members'],
      ['POST', '/api/team/invitations'],
      ['GET', '/api/admin/users'],
      ['PUT', '/api/admin/settings/providers/openai'],
    ] as const) {
      expect((await send(t.app, member.token, method, url, method === 'GET' ? undefined : {})).statusCode, url).toBe(
        403,
      );
    }
    // the owner (the first account) is the server admin; the manager's own role stays user
    await sendExpect(t.app, owner.token, 'GET', '/api/admin/users');
    expect((await sendExpect(t.app, member.token, 'GET', '/api/auth/me')).role).toBe('user');
  });

  it('a teammate made server admin reaches the users list, never the provider keys or mail settings', async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'manager');
    await sendExpect(t.app, owner.token, 'PATCH', `/api/admin/users/${member.id}`, { role: 'admin' });
    await sendExpect(t.app, member.token, 'GET', '/api/admin/users');
    for (const url of ['/api/admin/settings', '/api/admin/settings/providers/openai', '/api/admin/settings/smtp']) {
      const res = await send(
        t.app,
        member.token,
        url === '/api/admin/settings' ? 'GET' : 'PUT',
        url,
        url === '/api/admin/settings' ? undefined : {},
      );
      expect(res.statusCode, url).toBe(403);
    }
    await sendExpect(t.app, owner.token, 'GET', '/api/admin/settings');
  });

  it('a member of account A reaches nothing of account B (404, as a missing id)', async () => {
    const t = await apps.start();
    const a = await team(t.app, 'manager');
    const b = await registerUser(t.app);
    const bAgent = await createAgent(t.app, b.token);
    for (const [method, url] of [
      ['GET', `/api/chatbots/${bAgent.id}`],
      ['PUT', `/api/chatbots/${bAgent.id}`],
      ['DELETE', `/api/chatbots/${bAgent.id}`],
      ['GET', `/api/chat/conversations/${bAgent.id}`],
      ['GET', `/api/sources/chatbot/${bAgent.id}`],
      ['GET', `/api/chatbot-leads/${bAgent.id}`],
    ] as const) {
      const res = await send(t.app, a.member.token, method, url, method === 'PUT' ? { name: 'x' } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await sendExpect(t.app, a.member.token, 'GET', '/api/chatbots')).toEqual([]);
    expect((await sendExpect(t.app, b.token, 'GET', `/api/chatbots/${bAgent.id}`)).name).toBe(bAgent.name);
  });

  it("self routes are the actor's: logout ends only the member's session; password changes their own", async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'operator');
    await sendExpect(t.app, member.token, 'POST', '/api/auth/password', {
      current_password: PASSWORD,
      new_password: 'another good passphrase',
    });
    await sendExpect(t.app, null, 'POST', '/api/auth/login', {
      email: member.email,
      password: 'another good passphrase',
    });
    await sendExpect(t.app, null, 'POST', '/api/auth/login', { email: owner.email, password: PASSWORD });
    await sendExpect(t.app, member.token, 'POST', '/api/auth/logout');
    expect((await send(t.app, member.token, 'GET', '/api/auth/me')).statusCode).toBe(401);
    expect((await send(t.app, owner.token, 'GET', '/api/auth/me')).statusCode).toBe(200);
  });

  it('the audit log records who made each change (2xx writes only)', async () => {
    const t = await apps.start();
    const { owner, member } = await team(t.app, 'manager');
    const agent = await createAgent(t.app, member.token);
    await send(t.app, member.token, 'PUT', `/api/chatbots/${agent.id}`, { temperature: 7 }); // 400: not recorded
    await sendExpect(t.app, owner.token, 'PATCH', `/api/chatbots/${agent.id}/toggle`);
    const ownerId = (await sendExpect(t.app, owner.token, 'GET', '/api/auth/me')).id;
    const rows = t.database.sqlite
      .prepare(
        "SELECT account_id, actor_user_id, method, route, params, status FROM audit_log WHERE route LIKE '/api/chatbots%' ORDER BY id",
      )
      .all();
    expect(rows).toEqual([
      {
        account_id: ownerId,
        actor_user_id: member.id,
        method: 'POST',
        route: '/api/chatbots',
        params: '{}',
        status: 201,
      },
      {
        account_id: ownerId,
        actor_user_id: ownerId,
        method: 'PATCH',
        route: '/api/chatbots/:chatbot_id/toggle',
        params: JSON.stringify({ chatbot_id: agent.id }),
        status: 200,
      },
    ]);

    // deleting (erasing) an object leaves no id of it in the log: the rows that named it keep the rest
    const res = await send(t.app, member.token, 'DELETE', `/api/chatbots/${agent.id}`);
    expect(res.statusCode).toBe(204);
    const after = t.database.sqlite
      .prepare(
        "SELECT actor_user_id, method, route, params FROM audit_log WHERE route LIKE '/api/chatbots%' ORDER BY id",
      )
      .all();
    expect(after).toEqual([
      { actor_user_id: member.id, method: 'POST', route: '/api/chatbots', params: '{}' },
      { actor_user_id: ownerId, method: 'PATCH', route: '/api/chatbots/:chatbot_id/toggle', params: '{}' },
      { actor_user_id: member.id, method: 'DELETE', route: '/api/chatbots/:chatbot_id', params: '{}' },
    ]);
    expect(JSON.stringify(t.database.sqlite.prepare('SELECT * FROM audit_log').all())).not.toContain(agent.id);
  });
});
