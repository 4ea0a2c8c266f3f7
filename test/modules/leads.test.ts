import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auth, makeDataDir, ManualClock, registerUser, type TestApp, useSharedTestApp } from '../helpers/app.js';
import { parseCsv } from '../helpers/csv.js';

/**
 * Leads (docs/API.md "Leads": dedup, plan-limit detail; docs/API-NOTES.md "Widget leads", "Account leads":
 * statuses, DELETE body) and the CSV exports, through real HTTP
 * (inject) on a real SQLite file. E-mail alerts are in lead-alerts.test.ts.
 */

type Json = Record<string, any>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** a plan table with room for many requests, so no rate limit can interfere with these tests */
const ROOMY = {
  max_agents: 20,
  max_account_leads: 100,
  monthly_messages: 100000,
  requests_per_minute: 100000,
  requests_per_hour: 1000000,
  custom_branding: false,
};

function dataDirWithPlans(plans: Record<string, unknown>): { dataDir: string; plansFile: string } {
  const dataDir = makeDataDir();
  const plansFile = path.join(dataDir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(plans));
  return { dataDir, plansFile };
}

function client(t: TestApp) {
  const call = (method: Method, url: string, token?: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: token ? auth(token) : {},
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const account = async () => (await registerUser(t.app)).token;
  const agent = async (token: string, body: Json = {}): Promise<Json> => {
    const res = await call('POST', '/api/chatbots', token, { name: 'Lead bot', ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const widgetLead = async (agentId: string, body: Json): Promise<Json> => {
    const res = await call('POST', `/api/public/lead/${agentId}`, undefined, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const accountLead = async (token: string, body: Json): Promise<Json> => {
    const res = await call('POST', '/api/leads', token, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const widgetRows = (agentId: string): number =>
    (
      t.database.sqlite.prepare('SELECT count(*) AS n FROM widget_leads WHERE chatbot_id = ?').get(agentId) as {
        n: number;
      }
    ).n;
  const accountRows = (): number =>
    (t.database.sqlite.prepare('SELECT count(*) AS n FROM account_leads').get() as { n: number }).n;
  return { call, account, agent, widgetLead, accountLead, widgetRows, accountRows };
}

const clock = new ManualClock('2026-03-01T12:00:00.000Z');
let t: TestApp;
let api: ReturnType<typeof client>;

const roomy = dataDirWithPlans({ free: ROOMY });
useSharedTestApp({ clock, dataDir: roomy.dataDir, env: { PLANS_FILE: roomy.plansFile } }, (app) => {
  t = app;
  api = client(t);
});

describe('POST /api/public/lead/{chatbot_id}', () => {
  it('stores a widget lead and answers 200 with it (no token needed)', async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    clock.advance(60_000);
    const res = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, {
      name: 'Jane Doe',
      phone: '+1 (555) 010-0100',
      session_id: 'sess-1',
    });
    expect(res.statusCode, res.body).toBe(200);
    const lead = res.json();
    expect(lead).toEqual({
      id: expect.any(String),
      chatbot_id: agent.id,
      name: 'Jane Doe',
      phone: '+1 (555) 010-0100',
      email: null,
      session_id: 'sess-1',
      conversation_id: null,
      created_at: clock.now().toISOString(),
    });
    expect(lead.created_at).toMatch(ISO);
    expect(api.widgetRows(agent.id)).toBe(1);

    // session_id is optional
    clock.advance(1000);
    const plain = await api.widgetLead(agent.id, { name: 'Bob', phone: '0044 20 7946 0000' });
    expect(plain.session_id).toBeNull();
    expect(plain.id).not.toBe(lead.id);

    const list = await api.call('GET', `/api/chatbot-leads/${agent.id}`, owner);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([plain, lead]);
  });

  it('unknown agent 404, public_access false 403, inactive 400; nothing is stored', async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    const body = { name: 'Jane', phone: '555-0100' };

    const unknown = await api.call('POST', '/api/public/lead/no-such-agent', undefined, body);
    expect(unknown.statusCode).toBe(404);
    expect(typeof unknown.json().detail).toBe('string');

    const closed = await api.call('PUT', `/api/chatbots/${agent.id}`, owner, { public_access: false });
    expect(closed.statusCode, closed.body).toBe(200);
    const forbidden = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, body);
    expect(forbidden.statusCode).toBe(403);
    expect(typeof forbidden.json().detail).toBe('string');

    expect((await api.call('PUT', `/api/chatbots/${agent.id}`, owner, { public_access: true })).statusCode).toBe(200);
    const toggled = await api.call('PATCH', `/api/chatbots/${agent.id}/toggle`, owner);
    expect(toggled.json().status).toBe('inactive');
    const inactive = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, body);
    expect(inactive.statusCode).toBe(400);
    expect(typeof inactive.json().detail).toBe('string');
    expect(api.widgetRows(agent.id)).toBe(0);

    // active again: the same body is accepted, so the refusals above were about the agent's state
    expect((await api.call('PATCH', `/api/chatbots/${agent.id}/toggle`, owner)).json().status).toBe('active');
    await api.widgetLead(agent.id, body);
    expect(api.widgetRows(agent.id)).toBe(1);
  });

  it.each([
    ['name missing', { phone: '555-0100' }, 'name'],
    ['phone missing', { name: 'Jane' }, 'phone'],
    ['name blank', { name: '   ', phone: '555-0100' }, 'name'],
    ['phone blank', { name: 'Jane', phone: '  ' }, 'phone'],
    ['name empty', { name: '', phone: '555-0100' }, 'name'],
    ['name not a string', { name: 42, phone: '555-0100' }, 'name'],
    ['phone not a string', { name: 'Jane', phone: 5550100 }, 'phone'],
  ])('400 when %s, and nothing is stored', async (_label, body, field) => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    const res = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail).toContain(field);
    expect(api.widgetRows(agent.id)).toBe(0);
  });

  it('400 for a body that is not JSON', async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/public/lead/${agent.id}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "Jane",',
    });
    expect(res.statusCode).toBe(400);
    expect(api.widgetRows(agent.id)).toBe(0);
  });
});

describe('widget lead dedup (same agent, name and phone within 15 s)', () => {
  it('returns the first record with 200 and stores nothing new within the window; a new record after it', async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    const body = { name: 'Jane Doe', phone: '555-0100' };
    const first = await api.widgetLead(agent.id, body);
    const firstAt = clock.now().getTime();

    clock.advance(1);
    const again = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first);

    clock.set(new Date(firstAt + 14_999).toISOString());
    const late = await api.call('POST', `/api/public/lead/${agent.id}`, undefined, {
      ...body,
      session_id: 'another-session',
    });
    expect(late.statusCode).toBe(200);
    expect(late.json()).toEqual(first); // the first record as it was, session_id included
    expect(api.widgetRows(agent.id)).toBe(1);

    clock.set(new Date(firstAt + 15_001).toISOString());
    const fresh = await api.widgetLead(agent.id, body);
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.created_at).toBe(new Date(firstAt + 15_001).toISOString());
    expect(api.widgetRows(agent.id)).toBe(2);

    // the window now runs from the new record: a repeat returns it, not the first one
    clock.advance(5000);
    expect((await api.widgetLead(agent.id, body)).id).toBe(fresh.id);
    expect(api.widgetRows(agent.id)).toBe(2);

    const list = (await api.call('GET', `/api/chatbot-leads/${agent.id}`, owner)).json();
    expect(list.map((l: Json) => l.id)).toEqual([fresh.id, first.id]);
  });

  it('another agent, another phone or another name is a new lead at once', async () => {
    const owner = await api.account();
    const a = await api.agent(owner, { name: 'A' });
    const b = await api.agent(owner, { name: 'B' });
    const body = { name: 'Jane Doe', phone: '555-0100' };
    const first = await api.widgetLead(a.id, body);

    const otherAgent = await api.widgetLead(b.id, body);
    const otherPhone = await api.widgetLead(a.id, { ...body, phone: '555-0199' });
    const otherName = await api.widgetLead(a.id, { ...body, name: 'John Doe' });
    const ids = new Set([first.id, otherAgent.id, otherPhone.id, otherName.id]);
    expect(ids.size).toBe(4);
    expect(otherAgent.chatbot_id).toBe(b.id);
    expect(api.widgetRows(a.id)).toBe(3);
    expect(api.widgetRows(b.id)).toBe(1);
  });
});

describe('GET /api/chatbot-leads/{chatbot_id}', () => {
  it("lists the agent's widget leads newest first, and only that agent's", async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    const other = await api.agent(owner, { name: 'Other' });
    const made: Json[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      clock.advance(60_000);
      made.push(await api.widgetLead(agent.id, { name, phone: '555-0100' }));
    }
    await api.widgetLead(other.id, { name: 'Elsewhere', phone: '555-0100' });

    const res = await api.call('GET', `/api/chatbot-leads/${agent.id}`, owner);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((l: Json) => l.name)).toEqual(['Third', 'Second', 'First']);
    expect(res.json()).toEqual([...made].reverse());

    const empty = await api.agent(owner, { name: 'Empty' });
    expect((await api.call('GET', `/api/chatbot-leads/${empty.id}`, owner)).json()).toEqual([]);
  });

  it("another account's agent is 404 exactly as an unknown one; no token is 401", async () => {
    const owner = await api.account();
    const stranger = await api.account();
    const agent = await api.agent(owner);
    await api.widgetLead(agent.id, { name: 'Secret', phone: '555-0100' });

    const foreign = await api.call('GET', `/api/chatbot-leads/${agent.id}`, stranger);
    const unknown = await api.call('GET', '/api/chatbot-leads/no-such-agent', stranger);
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
    expect(foreign.body).not.toContain('Secret');

    const anonymous = await api.call('GET', `/api/chatbot-leads/${agent.id}`);
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('account leads: /api/leads', () => {
  it('POST answers 200 with status New by default, or the given status; GET lists them newest first', async () => {
    const me = await api.account();
    const meId = (await api.call('GET', '/api/auth/me', me)).json().id;
    clock.advance(60_000);
    const plain = await api.accountLead(me, { name: 'Ann', contact: 'ann@example.com' });
    expect(plain).toEqual({
      id: expect.any(String),
      user_id: meId,
      name: 'Ann',
      contact: 'ann@example.com',
      status: 'New',
      notes: null,
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    });
    clock.advance(60_000);
    const contacted = await api.accountLead(me, {
      name: 'Ben',
      contact: '+1 555 0101',
      notes: 'called once',
      status: 'Contacted',
    });
    expect(contacted).toMatchObject({ name: 'Ben', contact: '+1 555 0101', notes: 'called once', status: 'Contacted' });
    clock.advance(60_000);
    const closed = await api.accountLead(me, { name: 'Cy', contact: 'cy@example.com', status: 'Closed' });
    expect(closed.status).toBe('Closed');

    const list = await api.call('GET', '/api/leads', me);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([closed, contacted, plain]);

    // another account sees none of them
    const stranger = await api.account();
    expect((await api.call('GET', '/api/leads', stranger)).json()).toEqual([]);
    expect((await api.call('GET', '/api/leads')).statusCode).toBe(401);
  });

  it.each([
    ['an unknown status', { name: 'Ann', contact: 'a@example.com', status: 'Open' }, 'status'],
    ['a lower-case status', { name: 'Ann', contact: 'a@example.com', status: 'new' }, 'status'],
    ['no name', { contact: 'a@example.com' }, 'name'],
    ['a blank name', { name: '  ', contact: 'a@example.com' }, 'name'],
    ['no contact', { name: 'Ann' }, 'contact'],
    ['notes not a string', { name: 'Ann', contact: 'a@example.com', notes: 5 }, 'notes'],
  ])('POST with %s is 400 and stores nothing', async (_label, body, field) => {
    const me = await api.account();
    const before = api.accountRows();
    const res = await api.call('POST', '/api/leads', me, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail).toContain(field);
    expect(api.accountRows()).toBe(before);
    expect((await api.call('GET', '/api/leads', me)).json()).toEqual([]);
  });

  it('PUT changes only the fields sent, each on its own, and moves updated_at', async () => {
    const me = await api.account();
    let lead = await api.accountLead(me, { name: 'Ann', contact: 'ann@example.com', notes: 'first note' });
    const createdAt = lead.created_at;
    const changes: Json[] = [
      { name: 'Ann Smith' },
      { contact: '+44 20 7946 0000' },
      { status: 'Contacted' },
      { notes: 'second note' },
      { notes: null },
      { status: 'Closed' },
    ];
    for (const patch of changes) {
      clock.advance(90_000);
      const res = await api.call('PUT', `/api/leads/${lead.id}`, me, patch);
      expect(res.statusCode, res.body).toBe(200);
      const updated = res.json();
      expect(updated).toEqual({ ...lead, ...patch, updated_at: clock.now().toISOString() });
      expect(updated.created_at).toBe(createdAt);
      expect(updated.updated_at > lead.updated_at).toBe(true);
      lead = updated;
    }
    // the stored row is what PUT answered
    expect((await api.call('GET', '/api/leads', me)).json()).toEqual([lead]);

    // an empty body changes nothing but the timestamp
    clock.advance(1000);
    const noop = (await api.call('PUT', `/api/leads/${lead.id}`, me, {})).json();
    expect(noop).toEqual({ ...lead, updated_at: clock.now().toISOString() });
  });

  it('PUT with an invalid value is 400 and changes nothing', async () => {
    const me = await api.account();
    const lead = await api.accountLead(me, { name: 'Ann', contact: 'ann@example.com' });
    clock.advance(1000);
    for (const bad of [{ status: 'Won' }, { name: '' }, { contact: '   ' }, { status: 'Closed', name: 7 }]) {
      const res = await api.call('PUT', `/api/leads/${lead.id}`, me, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    expect((await api.call('GET', '/api/leads', me)).json()).toEqual([lead]);
  });

  it('DELETE answers exactly {success, message, lead_id} and removes the lead', async () => {
    const me = await api.account();
    const keep = await api.accountLead(me, { name: 'Keep', contact: 'k@example.com' });
    const gone = await api.accountLead(me, { name: 'Gone', contact: 'g@example.com' });
    const res = await api.call('DELETE', `/api/leads/${gone.id}`, me);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({ success: true, message: 'Lead deleted', lead_id: gone.id });
    expect((await api.call('GET', '/api/leads', me)).json()).toEqual([keep]);

    const twice = await api.call('DELETE', `/api/leads/${gone.id}`, me);
    expect(twice.statusCode).toBe(404);
    const put = await api.call('PUT', `/api/leads/${gone.id}`, me, { name: 'Back' });
    expect(put.statusCode).toBe(404);
  });

  it("another account's lead id is 404 on PUT and DELETE, exactly as an unknown id, and nothing changes", async () => {
    const owner = await api.account();
    const stranger = await api.account();
    const lead = await api.accountLead(owner, { name: 'Owned', contact: 'o@example.com', notes: 'private' });
    clock.advance(1000);

    const putForeign = await api.call('PUT', `/api/leads/${lead.id}`, stranger, { name: 'Hijacked', status: 'Closed' });
    const putUnknown = await api.call('PUT', '/api/leads/no-such-lead', stranger, {
      name: 'Hijacked',
      status: 'Closed',
    });
    expect(putForeign.statusCode).toBe(404);
    expect(putUnknown.statusCode).toBe(404);
    expect(putForeign.json()).toEqual(putUnknown.json());

    const delForeign = await api.call('DELETE', `/api/leads/${lead.id}`, stranger);
    const delUnknown = await api.call('DELETE', '/api/leads/no-such-lead', stranger);
    expect(delForeign.statusCode).toBe(404);
    expect(delUnknown.statusCode).toBe(404);
    expect(delForeign.json()).toEqual(delUnknown.json());

    expect((await api.call('GET', '/api/leads', owner)).json()).toEqual([lead]);
    expect((await api.call('PUT', `/api/leads/${lead.id}`)).statusCode).toBe(401);
    expect((await api.call('DELETE', `/api/leads/${lead.id}`)).statusCode).toBe(401);
    expect((await api.call('GET', '/api/leads', owner)).json()).toEqual([lead]);
  });
});

describe('account lead plan limit (PLANS_FILE)', () => {
  let small: TestApp;
  let sapi: ReturnType<typeof client>;
  const few = dataDirWithPlans({ free: { ...ROOMY, max_account_leads: 2 } });
  useSharedTestApp({ clock, dataDir: few.dataDir, env: { PLANS_FILE: few.plansFile } }, (app) => {
    small = app;
    sapi = client(small);
  });

  it('the third POST is 403 with the limit detail; after a delete POST works again', async () => {
    const me = await sapi.account();
    const one = await sapi.accountLead(me, { name: 'One', contact: '1@example.com' });
    await sapi.accountLead(me, { name: 'Two', contact: '2@example.com' });

    const third = await sapi.call('POST', '/api/leads', me, { name: 'Three', contact: '3@example.com' });
    expect(third.statusCode).toBe(403);
    expect(third.json()).toEqual({
      detail: { message: expect.any(String), current: 2, max: 2, upgrade_required: true },
    });
    expect(third.json().detail.message.length).toBeGreaterThan(0);
    expect((await sapi.call('GET', '/api/leads', me)).json()).toHaveLength(2);

    // the limit is per account
    const other = await sapi.account();
    await sapi.accountLead(other, { name: 'Theirs', contact: 't@example.com' });

    expect((await sapi.call('DELETE', `/api/leads/${one.id}`, me)).statusCode).toBe(200);
    const again = await sapi.accountLead(me, { name: 'Three', contact: '3@example.com' });
    expect(again.name).toBe('Three');
    expect((await sapi.call('POST', '/api/leads', me, { name: 'Four', contact: '4@example.com' })).statusCode).toBe(
      403,
    );
    expect(
      (await sapi.call('GET', '/api/leads', me))
        .json()
        .map((l: Json) => l.name)
        .sort(),
    ).toEqual(['Three', 'Two']);
  });
});

describe('CSV exports', () => {
  const NASTY = ['=HYPERLINK("http://x")', '+1', '-2', '@SUM(A1)'];

  it('GET /api/leads/export.csv: text/csv, a header row, formulas neutralised, quotes and commas escaped', async () => {
    const me = await api.account();
    const stranger = await api.account();
    await api.accountLead(stranger, { name: 'Not mine', contact: 'x@example.com' });
    const made: Json[] = [];
    for (const name of [...NASTY, 'Doe, "JJ" Jr']) {
      clock.advance(1000);
      made.push(
        await api.accountLead(me, {
          name,
          contact: `${made.length}@example.com`,
          notes: 'line one\nline two, "quoted"',
        }),
      );
    }

    const res = await api.call('GET', '/api/leads/export.csv', me);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const text = res.body.replace(/^\uFEFF/, '');
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(['id', 'name', 'contact', 'status', 'notes', 'created_at', 'updated_at']);
    expect(rows).toHaveLength(1 + made.length);
    expect(text).not.toContain('Not mine');

    const byId = new Map(rows.slice(1).map((r) => [r[0], r]));
    for (const lead of made) {
      const row = byId.get(lead.id)!;
      expect(row, lead.name).toBeDefined();
      const expectedName = /^[=+\-@]/.test(lead.name) ? `'${lead.name}` : lead.name;
      expect(row).toEqual([
        lead.id,
        expectedName,
        lead.contact,
        'New',
        'line one\nline two, "quoted"',
        lead.created_at,
        lead.updated_at,
      ]);
    }
    // no cell of the file starts with a formula character
    for (const row of rows) for (const cell of row) expect(cell, cell).not.toMatch(/^[=+\-@]/);
    // the raw escaping, as a spreadsheet reads it
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(text).toContain(`"Doe, ""JJ"" Jr"`);
    expect(text).toContain(`,'+1,`);
    expect(text).toContain(`,'-2,`);
    expect(text).toContain(`,'@SUM(A1),`);

    expect((await api.call('GET', '/api/leads/export.csv')).statusCode).toBe(401);
  });

  it('GET /api/chatbot-leads/{id}/export.csv: the same rules, owner only', async () => {
    const owner = await api.account();
    const stranger = await api.account();
    const agent = await api.agent(owner);
    const made: Json[] = [];
    for (const name of [...NASTY, 'Doe, "JJ" Jr']) {
      clock.advance(1000);
      made.push(await api.widgetLead(agent.id, { name, phone: '-555 0100', session_id: 's,"1"' }));
    }

    const res = await api.call('GET', `/api/chatbot-leads/${agent.id}/export.csv`, owner);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const text = res.body.replace(/^\uFEFF/, '');
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(['id', 'name', 'phone', 'session_id', 'created_at']);
    // newest first, like the JSON list
    expect(rows.slice(1).map((r) => r[0])).toEqual([...made].reverse().map((l) => l.id));
    for (const lead of made) {
      const row = rows.find((r) => r[0] === lead.id)!;
      const expectedName = /^[=+\-@]/.test(lead.name) ? `'${lead.name}` : lead.name;
      expect(row).toEqual([lead.id, expectedName, "'-555 0100", 's,"1"', lead.created_at]);
    }
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(text).toContain(`"s,""1"""`);

    const foreign = await api.call('GET', `/api/chatbot-leads/${agent.id}/export.csv`, stranger);
    const unknown = await api.call('GET', '/api/chatbot-leads/no-such-agent/export.csv', stranger);
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
    expect(foreign.body).not.toContain('HYPERLINK');
    expect((await api.call('GET', `/api/chatbot-leads/${agent.id}/export.csv`)).statusCode).toBe(401);

    // an agent with no leads exports just the header
    const empty = await api.agent(owner, { name: 'Empty' });
    const bare = await api.call('GET', `/api/chatbot-leads/${empty.id}/export.csv`, owner);
    expect(parseCsv(bare.body.replace(/^\uFEFF/, ''))).toEqual([['id', 'name', 'phone', 'session_id', 'created_at']]);
  });
});

describe('a widget lead and its conversation (issue 31 owner 8)', () => {
  const chat = async (agentId: string, session_id: string) => {
    const res = await api.call('POST', `/api/public/chat/${agentId}`, undefined, { message: 'Hello', session_id });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().conversation_id as string;
  };

  it("conversation_id is the conversation of the lead's session: before or after the first message, null without one", async () => {
    const owner = await api.account();
    const agent = await api.agent(owner);
    // the lead form comes before the first message: no conversation yet
    const first = await api.widgetLead(agent.id, { name: 'Form first', phone: '0612345678', session_id: 'sess-a' });
    expect(first.conversation_id).toBeNull();
    const conversationA = await chat(agent.id, 'sess-a');
    // a lead left during a conversation has it at once
    await chat(agent.id, 'sess-b');
    const during = await api.widgetLead(agent.id, { name: 'Mid chat', phone: '0612345679', session_id: 'sess-b' });
    expect(during.conversation_id).toEqual(expect.any(String));
    const noSession = await api.widgetLead(agent.id, { name: 'No session', phone: '0612345670' });
    expect(noSession.conversation_id).toBeNull();

    const list: Json[] = (await api.call('GET', `/api/chatbot-leads/${agent.id}`, owner)).json();
    const byName = new Map(list.map((l) => [l.name, l.conversation_id]));
    expect(Object.fromEntries(byName)).toEqual({
      'Form first': conversationA,
      'Mid chat': during.conversation_id,
      'No session': null,
    });
    // the id opens the transcript
    const transcript = await api.call('GET', `/api/chat/messages/${conversationA}`, owner);
    expect(transcript.statusCode, transcript.body).toBe(200);

    // the same session at another agent is another conversation: not linked
    const other = await api.agent(owner);
    await chat(other.id, 'sess-c');
    const elsewhere = await api.widgetLead(agent.id, { name: 'Elsewhere', phone: '0612345671', session_id: 'sess-c' });
    expect(elsewhere.conversation_id).toBeNull();
  });

  it("DELETE /api/leads/{id} deletes a widget lead of the caller's agents (200, the spec's body); another account's is 404 like a missing one", async () => {
    const owner = await api.account();
    const stranger = await api.account();
    const agent = await api.agent(owner);
    const lead = await api.widgetLead(agent.id, { name: 'Remove me', phone: '0612345672', session_id: 'sess-d' });
    const kept = await api.widgetLead(agent.id, { name: 'Keep me', phone: '0612345673' });

    const foreign = await api.call('DELETE', `/api/leads/${lead.id}`, stranger);
    const missing = await api.call('DELETE', '/api/leads/no-such-lead', stranger);
    expect([foreign.statusCode, foreign.json()]).toEqual([missing.statusCode, missing.json()]);
    expect(foreign.statusCode).toBe(404);
    expect(api.widgetRows(agent.id)).toBe(2);

    const del = await api.call('DELETE', `/api/leads/${lead.id}`, owner);
    expect([del.statusCode, del.json()]).toEqual([200, { success: true, message: 'Lead deleted', lead_id: lead.id }]);
    expect((await api.call('GET', `/api/chatbot-leads/${agent.id}`, owner)).json().map((l: Json) => l.id)).toEqual([
      kept.id,
    ]);
    expect((await api.call('DELETE', `/api/leads/${lead.id}`, owner)).statusCode).toBe(404);
    expect((await api.call('DELETE', `/api/leads/${lead.id}`)).statusCode).toBe(401);
  });
});

describe('deleting an agent', () => {
  it("deletes its widget leads and no other agent's", async () => {
    const owner = await api.account();
    const doomed = await api.agent(owner, { name: 'Doomed' });
    const kept = await api.agent(owner, { name: 'Kept' });
    await api.widgetLead(doomed.id, { name: 'A', phone: '555-0001' });
    await api.widgetLead(doomed.id, { name: 'B', phone: '555-0002' });
    const survivor = await api.widgetLead(kept.id, { name: 'C', phone: '555-0003' });
    expect(api.widgetRows(doomed.id)).toBe(2);

    const del = await api.call('DELETE', `/api/chatbots/${doomed.id}`, owner);
    expect(del.statusCode).toBe(204);
    expect((await api.call('GET', `/api/chatbot-leads/${doomed.id}`, owner)).statusCode).toBe(404);
    expect(api.widgetRows(doomed.id)).toBe(0);
    expect(
      (await api.call('POST', `/api/public/lead/${doomed.id}`, undefined, { name: 'A', phone: '555-0001' })).statusCode,
    ).toBe(404);
    expect((await api.call('GET', `/api/chatbot-leads/${kept.id}`, owner)).json()).toEqual([survivor]);
  });
});
