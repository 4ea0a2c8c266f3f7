import { describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, type TestApp, useSharedTestApp } from '../helpers/app.js';

/**
 * Compatibility with clients written against the original service (issue 22.5): small things
 * those clients do that must not break. docs/API-NOTES.md says what each one reads as.
 */

type Json = Record<string, any>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let t: TestApp;
/** the first account registered: role admin, so it can move the others between plans */
let adminToken: string;

useSharedTestApp({}, async (app) => {
  t = app;
  adminToken = (await registerUser(t.app)).token;
});

async function account(): Promise<{ token: string; id: string }> {
  const { token } = await registerUser(t.app);
  const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
  return { token, id: me.json().id };
}

function call(method: Method, url: string, token: string, payload?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url,
    headers: { ...auth(token), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
}

/** what a client sends for a request without a body: the JSON content type anyway, with no body or Content-Length: 0 */
const EMPTY_BODIES: Array<{ label: string; headers: Record<string, string>; payload?: string }> = [
  { label: 'no body', headers: { 'content-type': 'application/json' } },
  { label: 'Content-Length: 0', headers: { 'content-type': 'application/json', 'content-length': '0' }, payload: '' },
  {
    label: 'charset, Content-Length: 0',
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
    payload: '',
  },
];

describe('Content-Type: application/json with an empty body', () => {
  it.each(EMPTY_BODIES)(
    'is no body on routes that take none: DELETE, toggle, logout ($label)',
    async ({ headers, payload }) => {
      const me = await account();
      const agent = await createAgent(t.app, me.token);
      const send = (method: Method, url: string) =>
        t.app.inject({
          method,
          url,
          headers: { ...auth(me.token), ...headers },
          ...(payload === undefined ? {} : { payload }),
        });

      const toggled = await send('PATCH', `/api/chatbots/${agent.id}/toggle`);
      expect(toggled.statusCode, toggled.body).toBe(200);
      expect(toggled.json().status).toBe('inactive');

      const deleted = await send('DELETE', `/api/chatbots/${agent.id}`);
      expect(deleted.statusCode, deleted.body).toBe(204);
      expect((await call('GET', `/api/chatbots/${agent.id}`, me.token)).statusCode).toBe(404);

      const lead = await call('POST', '/api/leads', me.token, { name: 'Prospect', contact: 'p@example.com' });
      const leadGone = await send('DELETE', `/api/leads/${lead.json().id}`);
      expect(leadGone.statusCode, leadGone.body).toBe(200);

      const out = await send('POST', '/api/auth/logout');
      expect(out.statusCode, out.body).toBe(200);
      expect((await call('GET', '/api/auth/me', me.token)).statusCode).toBe(401);
    },
  );

  it.each(EMPTY_BODIES)(
    'is a 400 "body: required" on routes that need a body, even when every field is optional; the JSON guards stay ($label)',
    async ({ headers, payload }) => {
      const me = await account();
      const agent = await createAgent(t.app, me.token);
      for (const [method, url] of [
        ['POST', '/api/chatbots'],
        ['PUT', `/api/chatbots/${agent.id}`],
        ['POST', '/api/leads'],
      ] as const) {
        const res = await t.app.inject({
          method,
          url,
          headers: { ...auth(me.token), ...headers },
          ...(payload === undefined ? {} : { payload }),
        });
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
        expect(res.json().detail, `${method} ${url}`).toBe('body: required (a JSON object)');
      }
      // only zero bytes are "no body": whitespace, __proto__ / constructor keys and over 1 MiB are refused as before
      const put = (body: string) =>
        t.app.inject({
          method: 'PUT',
          url: `/api/chatbots/${agent.id}`,
          headers: { ...auth(me.token), 'content-type': 'application/json' },
          payload: body,
        });
      const blank = await put('  \n');
      expect([blank.statusCode, blank.json().detail]).toEqual([400, 'body: not valid JSON']);
      expect((await put('{"name":"x","__proto__":{"polluted":true}}')).statusCode).toBe(400);
      expect((await put('{"name":"x","constructor":{"prototype":{"polluted":true}}}')).statusCode).toBe(400);
      const big = await put(JSON.stringify({ description: 'a'.repeat(1024 * 1024) }));
      expect([big.statusCode, big.json().detail]).toEqual([413, 'body: too large']);
      expect((await call('GET', `/api/chatbots/${agent.id}`, me.token)).json()).toEqual(agent);
    },
  );
});

describe('agent fields as the original clients send them', () => {
  it('logo_url, avatar_url and powered_by_text given as "" read as null, on create and on update (free plan)', async () => {
    const me = await account();
    const created = await call('POST', '/api/chatbots', me.token, {
      name: 'Blank bot',
      logo_url: '',
      avatar_url: '',
      powered_by_text: '',
      primary_color: '#112233',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      logo_url: null,
      avatar_url: null,
      powered_by_text: null,
      primary_color: '#112233',
    });

    const set = await call('PUT', `/api/chatbots/${created.json().id}`, me.token, {
      logo_url: 'https://example.com/l.png',
      avatar_url: 'https://example.com/a.png',
    });
    expect(set.statusCode, set.body).toBe(200);
    for (const blank of ['', '   ']) {
      const res = await call('PUT', `/api/chatbots/${created.json().id}`, me.token, {
        logo_url: blank,
        avatar_url: blank,
        powered_by_text: blank,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ logo_url: null, avatar_url: null, powered_by_text: null });
    }
    const row = t.database.sqlite
      .prepare('SELECT logo_url, avatar_url, powered_by_text FROM chatbots WHERE id = ?')
      .get(created.json().id);
    expect(row).toEqual({ logo_url: null, avatar_url: null, powered_by_text: null });
  });

  it('font_size takes small | medium | large (12, 14, 16 px) besides an integer, and answers the integer', async () => {
    const me = await account();
    const agent = await createAgent(t.app, me.token, { font_size: 'large' });
    expect(agent.font_size).toBe(16);
    for (const [word, px] of [
      ['small', 12],
      ['medium', 14],
      ['large', 16],
    ] as const) {
      const res = await call('PUT', `/api/chatbots/${agent.id}`, me.token, { font_size: word });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().font_size).toBe(px);
      expect((await t.app.inject({ method: 'GET', url: `/api/public/chatbot/${agent.id}` })).json().font_size).toBe(px);
    }
    expect((await call('PUT', `/api/chatbots/${agent.id}`, me.token, { font_size: 20 })).json().font_size).toBe(20);
    for (const bad of ['huge', 'Medium', '14', 5, 33, 14.5]) {
      const res = await call('PUT', `/api/chatbots/${agent.id}`, me.token, { font_size: bad });
      expect(res.statusCode, `font_size ${JSON.stringify(bad)}`).toBe(400);
      expect(res.json().detail).toBe('font_size: must be an integer from 10 to 32, or small, medium or large');
    }
    // an unknown bubble_style is still a 400 that names the allowed values
    const bubble = await call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      bubble_style: 'pill',
      font_size: 'small',
    });
    expect(bubble.statusCode).toBe(400);
    expect(bubble.json().detail).toMatch(/^bubble_style: .*"rounded".*"square"/);
    expect((await call('GET', `/api/chatbots/${agent.id}`, me.token)).json().font_size).toBe(20);
  });

  it('a field the plan does not allow passes when it keeps its value or the default; only a change is refused', async () => {
    const me = await account();
    const agent = await createAgent(t.app, me.token);
    const setPlan = async (plan_id: string) => {
      const res = await call('PATCH', `/api/admin/users/${me.id}`, adminToken, { plan_id });
      expect(res.statusCode, res.body).toBe(200);
    };
    // the whole settings form, as a client sends it on every save
    const form = (changes: Json) => ({
      ...agent,
      id: undefined,
      user_id: undefined,
      created_at: undefined,
      updated_at: undefined,
      ...changes,
    });

    // free plan, default branding: sending it back (null or "") is no change
    for (const powered_by_text of [null, '']) {
      const res = await call('PUT', `/api/chatbots/${agent.id}`, me.token, form({ name: 'Renamed', powered_by_text }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ name: 'Renamed', powered_by_text: null });
    }
    // set on a paid plan, then the account went back to free: the stored text may be sent back as it is
    await setPlan('starter');
    expect(
      (await call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: 'Powered by Acme' })).statusCode,
    ).toBe(200);
    await setPlan('free');
    const same = await call(
      'PUT',
      `/api/chatbots/${agent.id}`,
      me.token,
      form({ name: 'Renamed again', powered_by_text: 'Powered by Acme' }),
    );
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json()).toMatchObject({ name: 'Renamed again', powered_by_text: 'Powered by Acme' });
    // an actual change is refused as before: 403 with the plan-limit detail, nothing applied
    const changed = await call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      name: 'Not applied',
      powered_by_text: 'Powered by Other',
    });
    expect(changed.statusCode).toBe(403);
    expect(changed.json().detail).toEqual({ message: expect.any(String), current: 0, max: 0, upgrade_required: true });
    expect((await call('GET', `/api/chatbots/${agent.id}`, me.token)).json()).toMatchObject({
      name: 'Renamed again',
      powered_by_text: 'Powered by Acme',
    });
    // clearing it is always allowed
    const cleared = await call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: null });
    expect(cleared.json().powered_by_text).toBeNull();
  });
});

describe('POST /api/chatbots takes every field PUT takes', () => {
  const FIELDS: Json = {
    description: 'Answers questions',
    status: 'inactive',
    public_access: false,
    primary_color: '#112233',
    secondary_color: '#abc',
    accent_color: '#A1B2C3',
    widget_position: 'top-left',
    widget_theme: 'dark',
    widget_size: 'large',
    lead_capture_enabled: false,
    email_alerts_enabled: true,
    email_alert_address: 'alerts@example.com',
    rate_limit_enabled: true,
    messages_per_hour: 120,
    logo_url: 'https://example.com/logo.png',
    avatar_url: 'https://cdn.example.com/avatar.png',
    font_family: 'Inter, sans-serif',
    font_size: 18,
    bubble_style: 'square',
    auto_expand: true,
    allowed_domains: ['shop.example.com', 'https://www.example.org/page'],
    daily_message_limit: 500,
    no_answer_message: 'Call us instead.',
    show_sources: false,
  };

  it('stores each of them, with the same normalisation as PUT', async () => {
    const me = await account();
    const res = await call('POST', '/api/chatbots', me.token, {
      name: 'Full bot',
      ...FIELDS,
      system_message: 'Be brief.',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      ...FIELDS,
      allowed_domains: ['shop.example.com', 'www.example.org'],
      instructions: 'Be brief.',
      system_message: 'Be brief.',
    });
    // the save's own `warnings` aside (it sent colours: test/modules/agent-color-warnings.test.ts), GET answers the same agent
    const { warnings, ...created } = res.json();
    expect(Array.isArray(warnings)).toBe(true);
    expect((await call('GET', `/api/chatbots/${created.id}`, me.token)).json()).toEqual(created);
  });

  it('validates them like PUT (400 naming the field, nothing created) and applies the same rules', async () => {
    const me = await account();
    for (const [field, value] of [
      ['primary_color', 'red'],
      ['widget_position', 'middle'],
      ['font_size', 5],
      ['logo_url', 'javascript:alert(1)'],
      ['messages_per_hour', 0],
      ['allowed_domains', ['not a host']],
    ] as const) {
      const res = await call('POST', '/api/chatbots', me.token, { name: 'Bad bot', [field]: value });
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      expect(res.json().detail).toContain(field);
    }
    const noAddress = await call('POST', '/api/chatbots', me.token, { name: 'Bad bot', email_alerts_enabled: true });
    expect([noAddress.statusCode, noAddress.json().detail]).toEqual([
      400,
      'email_alert_address: required when email_alerts_enabled is true',
    ]);
    // branding on a plan without it: refused, not silently dropped
    const branded = await call('POST', '/api/chatbots', me.token, {
      name: 'Bad bot',
      powered_by_text: 'Powered by Acme',
    });
    expect(branded.statusCode).toBe(403);
    expect(branded.json().detail.upgrade_required).toBe(true);
    expect((await call('GET', '/api/chatbots', me.token)).json()).toEqual([]);
  });
});

describe('/api/chatbots/ with a trailing slash', () => {
  it('answers GET and POST like /api/chatbots', async () => {
    const me = await account();
    const created = await call('POST', '/api/chatbots/', me.token, { name: 'Slash bot', primary_color: '#123456' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Slash bot', primary_color: '#123456' });
    const list = await call('GET', '/api/chatbots/', me.token);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual((await call('GET', '/api/chatbots', me.token)).json());
    expect(list.json().map((a: Json) => a.id)).toEqual([created.json().id]);
    // still a bearer route
    expect((await t.app.inject({ method: 'GET', url: '/api/chatbots/' })).statusCode).toBe(401);
  });
});

describe('GET /api/leads/stats', () => {
  it("counts the caller's leads by status, and the widget leads of the caller's agents (or of one)", async () => {
    const me = await account();
    const other = await account();
    const empty = await call('GET', '/api/leads/stats', me.token);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toMatchObject({ total: 0, by_status: { New: 0, Contacted: 0, Closed: 0 }, widget_leads: 0 });

    for (const status of ['New', 'New', 'Contacted', undefined]) {
      const res = await call('POST', '/api/leads', me.token, {
        name: 'Prospect',
        contact: 'p@example.com',
        ...(status ? { status } : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await call('POST', '/api/leads', other.token, { name: 'Not mine', contact: 'x@example.com', status: 'Closed' });
    const a = await createAgent(t.app, me.token, { name: 'A' });
    const b = await createAgent(t.app, me.token, { name: 'B' });
    const foreign = await createAgent(t.app, other.token, { name: 'Foreign' });
    for (const [agent, n] of [
      [a, 2],
      [b, 1],
      [foreign, 3],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/public/lead/${agent.id}`,
          payload: { name: `Visitor ${i}`, phone: `+31 6 000 000 ${i}` },
        });
        expect(res.statusCode, res.body).toBe(200);
      }
    }

    const all = await call('GET', '/api/leads/stats', me.token);
    expect(all.json()).toMatchObject({ total: 4, by_status: { New: 3, Contacted: 1, Closed: 0 }, widget_leads: 3 });
    // one agent: its widget leads; account leads belong to no agent, so none count
    const one = await call('GET', `/api/leads/stats?chatbot_id=${a.id}`, me.token);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ total: 0, by_status: { New: 0, Contacted: 0, Closed: 0 }, widget_leads: 2 });
    // another account's agent answers exactly like a missing one
    const theirs = await call('GET', `/api/leads/stats?chatbot_id=${foreign.id}`, me.token);
    const missing = await call('GET', '/api/leads/stats?chatbot_id=no-such-agent', me.token);
    expect([theirs.statusCode, theirs.json()]).toEqual([404, { detail: 'Chatbot not found' }]);
    expect([missing.statusCode, missing.json()]).toEqual([404, { detail: 'Chatbot not found' }]);
    expect((await call('GET', '/api/leads/stats?chatbot_id=', me.token)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/leads/stats' })).statusCode).toBe(401);
    // not taken for a lead id by the lead routes
    expect((await call('PUT', '/api/leads/stats', me.token, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('GET /api/leads/stats, the plan fields (issue 31 owner 10)', () => {
  // BotSmith's own admin client reads these beside ours; without them its Leads page is blank
  it('current_leads, max_leads, percentage_used, can_add_more and plan_name: the account leads against the plan', async () => {
    const me = await account();
    const empty = (await call('GET', '/api/leads/stats', me.token)).json();
    expect(empty).toEqual({
      total: 0,
      by_status: { New: 0, Contacted: 0, Closed: 0 },
      widget_leads: 0,
      current_leads: 0,
      max_leads: 100,
      percentage_used: 0,
      can_add_more: true,
      plan_name: 'free',
    });
    for (let i = 0; i < 3; i++) {
      const res = await call('POST', '/api/leads', me.token, { name: `P${i}`, contact: 'p@example.com' });
      expect(res.statusCode, res.body).toBe(200);
    }
    const agent = await createAgent(t.app, me.token);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/lead/${agent.id}`,
      payload: { name: 'Visitor', phone: '0612345678' },
    });
    expect(res.statusCode, res.body).toBe(200);
    // widget leads are not held to the plan's limit: only the account leads count
    const three = (await call('GET', '/api/leads/stats', me.token)).json();
    expect(three).toMatchObject({ current_leads: 3, max_leads: 100, percentage_used: 3, can_add_more: true });
    // the plan's numbers are the account's, whichever agent is asked about
    const ofAgent = (await call('GET', `/api/leads/stats?chatbot_id=${agent.id}`, me.token)).json();
    expect(ofAgent).toMatchObject({ widget_leads: 1, current_leads: 3, max_leads: 100, plan_name: 'free' });

    // the owner plan has no lead limit: max_leads null, always room
    const owner = (await call('GET', '/api/leads/stats', adminToken)).json();
    expect(owner).toMatchObject({ max_leads: null, percentage_used: 0, can_add_more: true, plan_name: 'owner' });
  });

  it('at the limit: 100 percent and can_add_more false, as POST /api/leads then answers 403', async () => {
    const me = await account();
    // no plan with a small lead limit here: fill the free plan's 100
    for (let i = 0; i < 100; i++) {
      const res = await call('POST', '/api/leads', me.token, { name: `P${i}`, contact: 'p@example.com' });
      expect(res.statusCode, res.body).toBe(200);
    }
    const full = (await call('GET', '/api/leads/stats', me.token)).json();
    expect(full).toMatchObject({ current_leads: 100, max_leads: 100, percentage_used: 100, can_add_more: false });
    expect(
      (await call('POST', '/api/leads', me.token, { name: 'One more', contact: 'x@example.com' })).statusCode,
    ).toBe(403);
  });
});
