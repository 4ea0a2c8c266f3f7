import {
  undoMigration0027,
  undoMigration0028,
  undoMigrationInbox,
  undoMigrationNotifications,
  undoMigrationsAfterNotifications,
  undoMigrationOfficeHours,
} from '../helpers/migrations.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INSTRUCTIONS } from '../../src/modules/agents/service.js';
import { updateAgentBody } from '../../src/modules/agents/schemas.js';
import { DEFAULT_MODEL } from '../../src/modules/agents/service.js';
import {
  auth,
  makeDataDir,
  ManualClock,
  registerUser,
  startTestApp,
  type TestApp,
  useSharedTestApp,
  expectKeys,
  jsonOf,
} from '../helpers/app.js';
import { LEAD_FORM_AND_LANGUAGE_DEFAULTS, LEAD_FORM_AND_LANGUAGE_KEYS } from '../helpers/agent-fields.js';

type Json = Record<string, any>;

/** Every field of the Agent plus the widget fields of "Public agent info" (docs/API.md "Objects"). */
const AGENT_KEYS = [
  'id',
  'user_id',
  'name',
  'description',
  'model',
  'provider',
  'temperature',
  'max_tokens',
  'instructions',
  'system_message',
  'status',
  'public_access',
  'messages_count',
  'conversations_count',
  'primary_color',
  'secondary_color',
  'accent_color',
  'welcome_message',
  'widget_position',
  'widget_theme',
  'widget_size',
  'lead_capture_enabled',
  'email_alerts_enabled',
  'email_alert_address',
  'rate_limit_enabled',
  'messages_per_hour',
  'logo_url',
  'avatar_url',
  'font_family',
  'font_size',
  'bubble_style',
  'auto_expand',
  'powered_by_text',
  // beyond the spec: the embedding allowlist and the per-agent daily cap (limits issue)
  'allowed_domains',
  'daily_message_limit',
  // beyond the spec: what visitors read when the knowledge has no answer, and citations shown or not (issue 19)
  'no_answer_message',
  'show_sources',
  // beyond the spec (issue 22): lead form timing and consent, widget language and wording, the
  // visitors' sentence when the month's messages are used up
  ...LEAD_FORM_AND_LANGUAGE_KEYS,
  'unavailable_message',
  // beyond the spec (issue 23): starter questions, greeting bubble, idle resolution, escalation words
  'starter_questions',
  'greeting_message',
  'greeting_delay_s',
  'auto_resolve_after_h',
  'escalation_keywords',
  'handoff_wait_s',
  // beyond the spec (issue 34.4): when a person can be asked for
  'office_hours',
  // beyond the spec (issue 33): the owner's synonyms for the keyword search
  'synonyms',
  // beyond the spec (issue 31): the secondary and accent colours follow the primary until set
  'secondary_follows_primary',
  'accent_follows_primary',
  'created_at',
  'updated_at',
].sort();

const DEFAULT_WELCOME = "Hi! I'm your AI assistant. How can I help you today?";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const PLAN_BASE = {
  max_account_leads: 100,
  monthly_messages: 1000,
  requests_per_minute: 1000,
  requests_per_hour: 100000,
  custom_branding: false,
};

/** [field, value] cases with a short printable label for the test title (long strings shown by length). */
function withLabels(cases: Array<[string, unknown]>): Array<[string, string, any]> {
  const label = (v: unknown): string =>
    JSON.stringify(v, (_k, x) => (typeof x === 'string' && x.length > 40 ? `<${x.length} chars>` : x)) ?? String(v);
  return cases.map(([field, value]) => [field, label(value), value]);
}

/** A data dir holding a PLANS_FILE, for an app started with that plan table. */
function dataDirWithPlans(plans: Record<string, unknown>): { dataDir: string; plansFile: string } {
  const dataDir = makeDataDir();
  const plansFile = path.join(dataDir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(plans));
  return { dataDir, plansFile };
}

/**
 * Small client over one app: every request first moves the manual clock on by a second, so each
 * write gets its own timestamp (and no per-minute request limit is ever reached by one account).
 */
function client(t: TestApp, clock: ManualClock) {
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    token?: string,
    payload?: unknown,
  ) => {
    clock.advance(1000);
    return t.app.inject({
      method,
      url,
      headers: token ? auth(token) : {},
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  };
  const account = async (): Promise<{ token: string; id: string }> => {
    const { token } = await registerUser(t.app);
    const me = await call('GET', '/api/auth/me', token);
    expect(me.statusCode).toBe(200);
    return { token, id: me.json().id };
  };
  const create = async (token: string, body: Json = {}): Promise<Json> => {
    const res = await call('POST', '/api/chatbots', token, { name: 'Support bot', ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const get = async (token: string, id: string): Promise<Json> => {
    const res = await call('GET', `/api/chatbots/${id}`, token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const list = async (token: string): Promise<Json[]> => {
    const res = await call('GET', '/api/chatbots', token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  return { call, account, create, get, list };
}

const clock = new ManualClock('2026-03-01T12:00:00.000Z');
let t: TestApp;
let api: ReturnType<typeof client>;
/** the first account of the shared app, hence its admin */
let admin: { token: string; id: string };

useSharedTestApp({ clock }, async (app) => {
  t = app;
  api = client(t, clock);
  admin = await api.account();
});

describe('POST /api/chatbots', () => {
  it('creates an agent with every default of docs/API.md, and exactly the Agent fields', async () => {
    const me = await api.account();
    const res = await api.call('POST', '/api/chatbots', me.token, { name: 'Support bot' });
    const now = clock.now().toISOString();
    const agent = jsonOf(res, 201, AGENT_KEYS);

    expect(agent).toEqual({
      id: expect.any(String),
      user_id: me.id,
      name: 'Support bot',
      description: null,
      model: 'gpt-4o-mini',
      provider: 'openai',
      temperature: 0.7,
      max_tokens: 500,
      instructions: DEFAULT_INSTRUCTIONS,
      system_message: DEFAULT_INSTRUCTIONS,
      status: 'active',
      public_access: true,
      messages_count: 0,
      conversations_count: 0,
      primary_color: '#7c3aed',
      secondary_color: '#ec4899',
      accent_color: '#ec4899',
      secondary_follows_primary: true,
      accent_follows_primary: true,
      welcome_message: DEFAULT_WELCOME,
      widget_position: 'bottom-right',
      widget_theme: 'auto',
      widget_size: 'medium',
      lead_capture_enabled: true,
      email_alerts_enabled: false,
      email_alert_address: null,
      rate_limit_enabled: false,
      messages_per_hour: 60,
      logo_url: null,
      avatar_url: null,
      font_family: expect.any(String),
      font_size: 14,
      bubble_style: 'rounded',
      auto_expand: false,
      powered_by_text: null,
      allowed_domains: [],
      daily_message_limit: null,
      no_answer_message: null,
      show_sources: true,
      // a new agent asks for contact details after its first answer (issue 22.6)
      ...LEAD_FORM_AND_LANGUAGE_DEFAULTS,
      unavailable_message: null,
      starter_questions: [],
      greeting_message: null,
      greeting_delay_s: 5,
      auto_resolve_after_h: 24,
      escalation_keywords: [],
      synonyms: [],
      handoff_wait_s: 120,
      office_hours: null,
      created_at: now,
      updated_at: now,
    });
    expect(agent.id.length).toBeGreaterThan(0);
    expect(agent.instructions.trim().length).toBeGreaterThan(0);
    expect(agent.font_family.trim().length).toBeGreaterThan(0);
    expect(agent.created_at).toMatch(ISO);
    expect(agent.updated_at).toMatch(ISO);

    // GET returns the same object, and so does the list
    expect(await api.get(me.token, agent.id)).toEqual(agent);
    expect(await api.list(me.token)).toEqual([agent]);
  });

  it('keeps the optional fields it is given', async () => {
    const me = await api.account();
    const agent = await api.create(me.token, {
      name: 'Sales bot',
      description: 'Answers pricing questions',
      model: 'gpt-4o',
      provider: 'openai',
      instructions: 'Be brief.',
      welcome_message: 'Hello!',
      temperature: 0,
      max_tokens: 16384,
    });
    expect(agent).toMatchObject({
      name: 'Sales bot',
      description: 'Answers pricing questions',
      model: 'gpt-4o',
      provider: 'openai',
      instructions: 'Be brief.',
      system_message: 'Be brief.',
      welcome_message: 'Hello!',
      temperature: 0,
      max_tokens: 16384,
      status: 'active',
    });
    expect(await api.get(me.token, agent.id)).toEqual(agent);
  });

  it('accepts system_message as an alias of instructions; both names come back', async () => {
    const me = await api.account();
    const viaAlias = await api.create(me.token, { system_message: 'Only talk about cats.' });
    expect(viaAlias.instructions).toBe('Only talk about cats.');
    expect(viaAlias.system_message).toBe('Only talk about cats.');
    expect((await api.get(me.token, viaAlias.id)).instructions).toBe('Only talk about cats.');

    const both = await api.create(me.token, { instructions: 'Instructions win.', system_message: 'Alias loses.' });
    expect(both.instructions).toBe('Instructions win.');
    expect(both.system_message).toBe('Instructions win.');
  });

  it.each(['openai', 'anthropic', 'google', 'ollama'] as const)(
    "provider %s without a model gets that provider's default model",
    async (provider) => {
      const me = await api.account();
      const agent = await api.create(me.token, { provider });
      expect(agent.provider).toBe(provider);
      expect(agent.model).toBe(DEFAULT_MODEL[provider]);
      expect(agent.model.length).toBeGreaterThan(0);
      if (provider === 'openai') expect(agent.model).toBe('gpt-4o-mini');
      else expect(agent.model).not.toBe('gpt-4o-mini');
      // an explicit model is kept whatever the provider
      const explicit = await api.create(me.token, { provider, model: 'my-model' });
      expect(explicit).toMatchObject({ provider, model: 'my-model' });
    },
  );

  it.each(
    withLabels([
      ['name', {}],
      ['name', { name: '' }],
      ['name', { name: '   ' }],
      ['name', { name: 'x'.repeat(101) }],
      ['provider', { name: 'Bot', provider: 'foo' }],
      ['temperature', { name: 'Bot', temperature: 2 }],
      ['max_tokens', { name: 'Bot', max_tokens: 0 }],
      ['description', { name: 'Bot', description: 'd'.repeat(2001) }],
      ['instructions', { name: 'Bot', instructions: 'i'.repeat(20001) }],
      ['system_message', { name: 'Bot', system_message: 'i'.repeat(20001) }],
      ['welcome_message', { name: 'Bot', welcome_message: 'w'.repeat(1001) }],
    ]),
  )('rejects a bad %s on create with 400 and creates nothing (%s)', async (field, _label, body) => {
    const me = await api.account();
    const res = await api.call('POST', '/api/chatbots', me.token, body);
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
    expect(res.json().detail).toContain(field);
    expect(await api.list(me.token)).toEqual([]);
  });

  it('ignores fields a client may not set (mass assignment)', async () => {
    const me = await api.account();
    const other = await api.account();
    const res = await api.call('POST', '/api/chatbots', me.token, {
      name: 'Bot',
      id: 'chosen-id',
      user_id: other.id,
      messages_count: 99,
      conversations_count: 7,
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res.statusCode).toBe(201);
    const agent = res.json();
    expect(agent.id).not.toBe('chosen-id');
    expect(agent.user_id).toBe(me.id);
    expect(agent.messages_count).toBe(0);
    expect(agent.conversations_count).toBe(0);
    expect(agent.status).toBe('active');
    expect(agent.created_at).toBe(clock.now().toISOString());
    expect(await api.list(other.token)).toEqual([]);
    expect((await api.call('GET', '/api/chatbots/chosen-id', me.token)).statusCode).toBe(404);
    expect(await api.get(me.token, agent.id)).toEqual(agent);
  });
});

describe('GET /api/chatbots', () => {
  it("lists only the caller's agents, newest first by created_at", async () => {
    const me = await api.account();
    const other = await api.account();
    const base = clock.now().getTime();

    clock.set(new Date(base + 10 * 60_000).toISOString());
    const a = await api.create(me.token, { name: 'A' });
    const foreign = await api.create(other.token, { name: 'Foreign' });
    clock.set(new Date(base + 30 * 60_000).toISOString());
    const c = await api.create(me.token, { name: 'C' });
    // created last in real time (so last by id) but with the earliest created_at
    clock.set(new Date(base + 1 * 60_000).toISOString());
    const b = await api.create(me.token, { name: 'B' });
    clock.set(new Date(base + 40 * 60_000).toISOString());

    const mine = await api.list(me.token);
    expect(mine.map((x) => x.name)).toEqual(['C', 'A', 'B']);
    expect(mine).toEqual([c, a, b]);
    expect(mine.map((x) => x.id)).not.toContain(foreign.id);
    expect(mine.every((x) => x.user_id === me.id)).toBe(true);
    for (const x of mine) expectKeys(x, AGENT_KEYS);

    expect(await api.list(other.token)).toEqual([foreign]);
  });

  it('GET one returns the agent', async () => {
    const me = await api.account();
    const agent = await api.create(me.token, { name: 'One', description: 'first' });
    await api.create(me.token, { name: 'Two' });
    const res = await api.call('GET', `/api/chatbots/${agent.id}`, me.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(agent);
  });
});

/** One update per field: [field, value sent, setup body applied first]. */
const FIELD_UPDATES: Array<[string, unknown, Json?]> = [
  ['name', 'Renamed bot'],
  ['description', 'Now with a description'],
  ['model', 'gpt-4o'],
  ['provider', 'anthropic'],
  ['instructions', 'Answer in French.'],
  ['welcome_message', 'Bonjour!'],
  ['temperature', 0.2],
  ['max_tokens', 1024],
  ['status', 'inactive'],
  ['public_access', false],
  ['primary_color', '#112233'],
  ['secondary_color', '#abc'],
  ['accent_color', '#A1B2C3'],
  ['secondary_follows_primary', false],
  ['accent_follows_primary', false],
  ['widget_position', 'top-left'],
  ['widget_theme', 'dark'],
  ['widget_size', 'large'],
  ['lead_capture_enabled', false],
  ['email_alert_address', 'alerts@example.com'],
  ['email_alerts_enabled', true, { email_alert_address: 'owner@example.com' }],
  ['rate_limit_enabled', true],
  ['messages_per_hour', 120],
  ['logo_url', 'https://example.com/logo.png'],
  ['avatar_url', 'https://cdn.example.com/avatar.png'],
  ['font_family', 'Inter, "Helvetica Neue", sans-serif'],
  ['font_size', 18],
  ['bubble_style', 'square'],
  ['auto_expand', true],
  ['allowed_domains', ['shop.example.com', '*.example.org']],
  ['daily_message_limit', 500],
  ['no_answer_message', 'Sorry, I do not know that. Call us on 010 123 4567.'],
  ['show_sources', false],
  ['lead_form_timing', 'before_chat'],
  ['lead_form_after_messages', 3],
  ['lead_consent_text', 'We keep your number only to call you back about your question.'],
  ['privacy_policy_url', 'https://shop.example.com/privacy'],
  ['language', 'de'],
  ['widget_texts', { placeholder: 'Ihre Frage…', lead_submit: 'Los geht’s' }],
  ['unavailable_message', 'We are closed for the holidays; call 010 123 4567.'],
  ['starter_questions', ['What do you sell?', 'When are you open?']],
  ['greeting_message', 'Questions? Ask me!'],
  ['greeting_delay_s', 10],
  ['auto_resolve_after_h', 48],
  ['escalation_keywords', ['human', 'complaint']],
  ['handoff_wait_s', 300],
  [
    'office_hours',
    {
      time_zone: 'Europe/Berlin',
      days: { mon: [{ from: '09:00', to: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
    },
  ],
  ['synonyms', ['cornetto = croissant']],
];

describe('PUT /api/chatbots/{id}', () => {
  it('covers every updatable field of the update schema', async () => {
    const covered = new Set([...FIELD_UPDATES.map(([f]) => f), 'system_message', 'powered_by_text']);
    expect(Object.keys(updateAgentBody.shape).filter((k) => !covered.has(k))).toEqual([]);
  });

  it.each(FIELD_UPDATES)('changes only %s when only %s is sent', async (field, value, setup) => {
    const me = await api.account();
    let agent = await api.create(me.token);
    if (setup) {
      const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, setup);
      expect(res.statusCode, res.body).toBe(200);
      agent = res.json();
    }
    expect(agent[field]).not.toEqual(value);

    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { [field]: value });
    expect(res.statusCode, res.body).toBe(200);
    const now = clock.now().toISOString();
    const expected: Json = { ...agent, [field]: value, updated_at: now };
    if (field === 'instructions') expected.system_message = value;
    // a secondary or accent colour never set follows the primary; one sent is set from then on
    if (field === 'primary_color') Object.assign(expected, { secondary_color: value, accent_color: value });
    if (field === 'secondary_color') expected.secondary_follows_primary = false;
    if (field === 'accent_color') expected.accent_follows_primary = false;
    const { warnings, ...answer } = res.json();
    expect(answer).toEqual(expected);
    // a save that sends a colour or the theme is told how the colours read (test/modules/agent-color-warnings.test.ts)
    expect(Array.isArray(warnings)).toBe(/color|follows_primary|widget_theme/.test(field));
    expect(now > agent.updated_at).toBe(true);
    expect(await api.get(me.token, agent.id)).toEqual(expected);
  });

  it('system_message updates instructions; instructions wins when both are sent', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { system_message: 'Via the alias.' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...agent,
      instructions: 'Via the alias.',
      system_message: 'Via the alias.',
      updated_at: clock.now().toISOString(),
    });

    const both = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      instructions: 'Real name.',
      system_message: 'Alias.',
    });
    expect(both.statusCode).toBe(200);
    expect(both.json().instructions).toBe('Real name.');
    expect(both.json().system_message).toBe('Real name.');
    expect((await api.get(me.token, agent.id)).instructions).toBe('Real name.');
  });

  it('clears nullable fields with null', async () => {
    const me = await api.account();
    const agent = await api.create(me.token, { description: 'to be removed' });
    const set = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      logo_url: 'https://example.com/l.png',
      avatar_url: 'https://example.com/a.png',
      email_alert_address: 'x@example.com',
    });
    expect(set.statusCode).toBe(200);
    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      description: null,
      logo_url: null,
      avatar_url: null,
      email_alert_address: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      description: null,
      logo_url: null,
      avatar_url: null,
      email_alert_address: null,
    });
    expect(await api.get(me.token, agent.id)).toEqual(res.json());
  });

  const long = (n: number) => 'a'.repeat(n);
  it.each(
    withLabels([
      ['primary_color', 'red'],
      ['primary_color', '#12'],
      ['primary_color', '#gggggg'],
      ['secondary_color', 'red'],
      ['secondary_color', '#12'],
      ['secondary_color', '#gggggg'],
      ['accent_color', 'red'],
      ['accent_color', '#12'],
      ['accent_color', '#gggggg'],
      ['accent_color', '#1234567'],
      ['temperature', 1.5],
      ['temperature', -0.1],
      ['max_tokens', 0],
      ['max_tokens', 16385],
      ['max_tokens', 1.5],
      ['provider', 'foo'],
      ['status', 'paused'],
      ['widget_position', 'middle'],
      ['widget_theme', 'neon'],
      ['widget_size', 'huge'],
      ['name', ''],
      ['name', long(101)],
      ['description', long(2001)],
      ['instructions', long(20001)],
      ['system_message', long(20001)],
      ['welcome_message', long(1001)],
      ['email_alert_address', 'not-an-email'],
      ['email_alert_address', ''],
      ['messages_per_hour', 0],
      ['messages_per_hour', 2.5],
      ['font_size', 5],
      ['bubble_style', 'round'],
      ['logo_url', 'javascript:alert(1)'],
      ['avatar_url', 'javascript:alert(1)'],
      ['logo_url', 'not a url'],
      ['font_family', 'Arial;}body{background:red'],
      ['font_family', 'Arial</style><script>'],
      ['model', ''],
      // wrong types
      ['public_access', 'true'],
      ['lead_capture_enabled', 'yes'],
      ['auto_expand', 1],
      ['rate_limit_enabled', 'false'],
      ['email_alerts_enabled', 0],
      ['temperature', '0.5'],
      ['max_tokens', '500'],
      ['font_size', '14'],
      ['messages_per_hour', '60'],
      ['name', 123],
      ['description', 42],
      ['status', true],
      ['primary_color', 7],
      ['instructions', ['a']],
      ['name', null],
    ]),
  )('rejects %s = %s with 400 naming the field, and leaves the agent unchanged', async (field, _label, value) => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { [field]: value });
    expect(res.statusCode, res.body).toBe(400);
    const detail = res.json().detail;
    expect(typeof detail).toBe('string');
    expect(detail).toContain(field);
    expect(await api.get(me.token, agent.id)).toEqual(agent);
  });

  it('a valid field next to an invalid one is not applied either', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { name: 'New name', temperature: 3 });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain('temperature');
    expect(await api.get(me.token, agent.id)).toEqual(agent);
  });

  it('a body that is not JSON gives 400 and changes nothing', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: { ...auth(me.token), 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(typeof res.json().detail).toBe('string');
    expect(await api.get(me.token, agent.id)).toEqual(agent);
  });

  it('email alerts need an address: alone 400, with one in the same PUT 200, clearing it while on 400', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const put = (body: Record<string, unknown>) => api.call('PUT', `/api/chatbots/${agent.id}`, me.token, body);

    const alone = await put({ email_alerts_enabled: true });
    expect(alone.statusCode).toBe(400);
    expect(typeof alone.json().detail).toBe('string');
    expect(alone.json().detail).toContain('email_alert_address');
    expect(await api.get(me.token, agent.id)).toEqual(agent);

    const withNull = await put({ email_alerts_enabled: true, email_alert_address: null });
    expect(withNull.statusCode).toBe(400);
    expect(withNull.json().detail).toContain('email_alert_address');

    const together = await put({ email_alerts_enabled: true, email_alert_address: 'owner@example.com' });
    expect(together.statusCode, together.body).toBe(200);
    expect(together.json()).toMatchObject({ email_alerts_enabled: true, email_alert_address: 'owner@example.com' });
    const on = together.json();

    const cleared = await put({ email_alert_address: null });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().detail).toContain('email_alert_address');
    expect(await api.get(me.token, agent.id)).toEqual(on);

    // switching alerts off and clearing the address together is fine
    const off = await put({ email_alerts_enabled: false, email_alert_address: null });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ email_alerts_enabled: false, email_alert_address: null });
  });

  it('status can be set with PUT in both directions', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const off = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { status: 'inactive' });
    expect(off.statusCode).toBe(200);
    expect(off.json().status).toBe('inactive');
    expect((await api.get(me.token, agent.id)).status).toBe('inactive');
    const on = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { status: 'active' });
    expect(on.statusCode).toBe(200);
    expect((await api.get(me.token, agent.id)).status).toBe('active');
  });

  it('ignores fields a client may not set (mass assignment)', async () => {
    const me = await api.account();
    const other = await api.account();
    const agent = await api.create(me.token);
    const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, {
      name: 'Still mine',
      id: 'another-id',
      user_id: other.id,
      messages_count: 50,
      conversations_count: 5,
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res.statusCode).toBe(200);
    const expected = { ...agent, name: 'Still mine', updated_at: clock.now().toISOString() };
    expect(res.json()).toEqual(expected);
    expect(await api.get(me.token, agent.id)).toEqual(expected);
    expect(await api.list(other.token)).toEqual([]);
    expect((await api.call('GET', `/api/chatbots/${agent.id}`, other.token)).statusCode).toBe(404);
  });
});

describe('secondary and accent colours follow the primary until set (issue 31 point 6)', () => {
  const colors = (a: Json) => [
    a.primary_color,
    a.secondary_color,
    a.accent_color,
    a.secondary_follows_primary,
    a.accent_follows_primary,
  ];
  const publicColors = async (id: string) => {
    const res = await api.call('GET', `/api/public/chatbot/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const info = res.json();
    return [info.primary_color, info.secondary_color, info.accent_color];
  };

  it('setting only the primary moves both; a colour set stays; null follows again; a form sent back whole keeps following', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    expect(colors(agent)).toEqual(['#7c3aed', '#ec4899', '#ec4899', true, true]);
    const put = async (body: Json) => {
      const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };

    // only the primary: no brown-to-pink header, no pink focus ring
    expect(colors(await put({ primary_color: '#8b4513' }))).toEqual(['#8b4513', '#8b4513', '#8b4513', true, true]);
    expect(await publicColors(agent.id)).toEqual(['#8b4513', '#8b4513', '#8b4513']);

    // the settings form sent back whole with a new primary: the colours it showed were following
    const whole = await put({
      primary_color: '#0f766e',
      secondary_color: '#8b4513',
      accent_color: '#8b4513',
      name: 'Shop',
    });
    expect(colors(whole)).toEqual(['#0f766e', '#0f766e', '#0f766e', true, true]);

    // a secondary set by the owner stays when the primary changes; the accent still follows
    expect(colors(await put({ secondary_color: '#FACC15' }))).toEqual(['#0f766e', '#FACC15', '#0f766e', false, true]);
    expect(colors(await put({ primary_color: '#1d4ed8' }))).toEqual(['#1d4ed8', '#FACC15', '#1d4ed8', false, true]);
    expect(await publicColors(agent.id)).toEqual(['#1d4ed8', '#FACC15', '#1d4ed8']);

    // null: follows the primary again
    expect(colors(await put({ secondary_color: null }))).toEqual(['#1d4ed8', '#1d4ed8', '#1d4ed8', true, true]);

    // *_follows_primary false keeps the colour shown, even the one it had while following
    expect(colors(await put({ accent_follows_primary: false, accent_color: '#1d4ed8' }))).toEqual([
      '#1d4ed8',
      '#1d4ed8',
      '#1d4ed8',
      true,
      false,
    ]);
    expect(colors(await put({ primary_color: '#7c3aed' }))).toEqual(['#7c3aed', '#ec4899', '#1d4ed8', true, false]);
    expect(colors(await put({ accent_follows_primary: true }))).toEqual(['#7c3aed', '#ec4899', '#ec4899', true, true]);

    // an agent created with its own secondary keeps it
    const own = await api.create(me.token, { primary_color: '#111111', secondary_color: '#222222' });
    expect(colors(own)).toEqual(['#111111', '#222222', '#111111', false, true]);
    expect((await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { secondary_color: 'pink' })).statusCode).toBe(
      400,
    );
  });
});

describe('agents from before colours followed the primary (migration 0026)', () => {
  it('a secondary or accent still the default pink follows the primary from now on; one chosen stays', async () => {
    const dataDir = makeDataDir();
    const before = await startTestApp({ dataDir });
    const { token } = await registerUser(before.app);
    const make = async (name: string) => {
      const res = await before.app.inject({
        method: 'POST',
        url: '/api/chatbots',
        headers: auth(token),
        payload: { name },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const ids = { fresh: await make('Untouched'), brown: await make('Brown'), chosen: await make('Chosen') };
    // the database as the release before left it: no follow columns, colours as the owners set
    // them, and 0026 not yet applied (actions, identity, notifications, the inbox, office hours, 0028 and 0027, the ones
    // after it, are undone first: the migrator runs only those newer than the newest it has applied)
    const db = before.database.sqlite;
    undoMigrationsAfterNotifications(db);
    undoMigrationNotifications(db);
    undoMigrationInbox(db);
    undoMigrationOfficeHours(db);
    undoMigration0028(db);
    undoMigration0027(db);
    const set = db.prepare('UPDATE chatbots SET primary_color = ?, secondary_color = ?, accent_color = ? WHERE id = ?');
    set.run('#8b4513', '#ec4899', '#ec4899', ids.brown);
    set.run('#0f766e', '#1d4ed8', '#ec4899', ids.chosen);
    db.exec('ALTER TABLE chatbots DROP COLUMN secondary_follows_primary');
    db.exec('ALTER TABLE chatbots DROP COLUMN accent_follows_primary');
    db.exec('ALTER TABLE sources DROP COLUMN title'); // 0026 adds it too
    db.prepare(
      'DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)',
    ).run();
    await before.close();

    const after = await startTestApp({ dataDir }); // the migration runs again at start
    try {
      const colors = async (id: string) => {
        const res = await after.app.inject({ method: 'GET', url: `/api/chatbots/${id}`, headers: auth(token) });
        expect(res.statusCode, res.body).toBe(200);
        const a = res.json();
        return [
          a.primary_color,
          a.secondary_color,
          a.accent_color,
          a.secondary_follows_primary,
          a.accent_follows_primary,
        ];
      };
      expect(await colors(ids.fresh)).toEqual(['#7c3aed', '#ec4899', '#ec4899', true, true]);
      expect(await colors(ids.brown)).toEqual(['#8b4513', '#8b4513', '#8b4513', true, true]);
      expect(await colors(ids.chosen)).toEqual(['#0f766e', '#1d4ed8', '#0f766e', false, true]);
    } finally {
      await after.cleanup();
    }
  });
});

describe('powered_by_text (custom branding)', () => {
  it('free plan: setting it gives 403 with the plan-limit detail object and changes nothing', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    // "" and blank read as null, the default branding (api-compat.test.ts)
    for (const text of ['Powered by Acme']) {
      const res = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: text });
      expect(res.statusCode, `powered_by_text ${JSON.stringify(text)}: ${res.body}`).toBe(403);
      const detail = res.json().detail;
      expect(Object.keys(detail).sort()).toEqual(['current', 'max', 'message', 'upgrade_required']);
      expect(detail).toEqual({
        message: expect.any(String),
        current: expect.any(Number),
        max: expect.any(Number),
        upgrade_required: true,
      });
      expect(detail.message.length).toBeGreaterThan(0);
      expect(await api.get(me.token, agent.id)).toEqual(agent);
    }
    // null means default branding, which every plan may ask for
    const reset = await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: null });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().powered_by_text).toBeNull();
  });

  it('a plan with custom_branding (DEFAULT_PLAN=starter) may set and clear it', async () => {
    const starterClock = new ManualClock();
    const s = await startTestApp({ clock: starterClock, env: { DEFAULT_PLAN: 'starter' } });
    try {
      const c = client(s, starterClock);
      const me = await c.account();
      const agent = await c.create(me.token);
      const res = await c.call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: 'Powered by Acme' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        ...agent,
        powered_by_text: 'Powered by Acme',
        updated_at: starterClock.now().toISOString(),
      });
      expect((await c.get(me.token, agent.id)).powered_by_text).toBe('Powered by Acme');

      const tooLong = await c.call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: 'p'.repeat(101) });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.json().detail).toContain('powered_by_text');

      const cleared = await c.call('PUT', `/api/chatbots/${agent.id}`, me.token, { powered_by_text: null });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json().powered_by_text).toBeNull();
    } finally {
      await s.cleanup();
    }
  });
});

describe('PATCH /api/chatbots/{id}/toggle', () => {
  it('flips active <-> inactive and returns exactly id, name, status, updated_at', async () => {
    const me = await api.account();
    const agent = await api.create(me.token, { name: 'Toggler' });

    const first = await api.call('PATCH', `/api/chatbots/${agent.id}/toggle`, me.token);
    expect(first.statusCode).toBe(200);
    const t1 = clock.now().toISOString();
    expect(Object.keys(first.json()).sort()).toEqual(['id', 'name', 'status', 'updated_at']);
    expect(first.json()).toEqual({ id: agent.id, name: 'Toggler', status: 'inactive', updated_at: t1 });
    expect(await api.get(me.token, agent.id)).toEqual({ ...agent, status: 'inactive', updated_at: t1 });

    const second = await api.call('PATCH', `/api/chatbots/${agent.id}/toggle`, me.token);
    expect(second.statusCode).toBe(200);
    const t2 = clock.now().toISOString();
    expect(second.json()).toEqual({ id: agent.id, name: 'Toggler', status: 'active', updated_at: t2 });
    expect(t2 > t1).toBe(true);
    expect(await api.get(me.token, agent.id)).toEqual({ ...agent, status: 'active', updated_at: t2 });
  });

  it('toggles an agent made inactive by PUT back to active', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    expect((await api.call('PUT', `/api/chatbots/${agent.id}`, me.token, { status: 'inactive' })).statusCode).toBe(200);
    const res = await api.call('PATCH', `/api/chatbots/${agent.id}/toggle`, me.token);
    expect(res.json().status).toBe('active');
  });
});

describe('DELETE /api/chatbots/{id}', () => {
  it('answers 204 with no body; the agent is gone from GET and the list; a second DELETE is 404', async () => {
    const me = await api.account();
    const keep = await api.create(me.token, { name: 'Keep' });
    const doomed = await api.create(me.token, { name: 'Doomed' });

    const res = await api.call('DELETE', `/api/chatbots/${doomed.id}`, me.token);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    expect((await api.call('GET', `/api/chatbots/${doomed.id}`, me.token)).statusCode).toBe(404);
    expect(await api.list(me.token)).toEqual([keep]);
    const again = await api.call('DELETE', `/api/chatbots/${doomed.id}`, me.token);
    expect(again.statusCode).toBe(404);
    expect(typeof again.json().detail).toBe('string');
    expect((await api.call('PUT', `/api/chatbots/${doomed.id}`, me.token, { name: 'Back' })).statusCode).toBe(404);
    expect((await api.call('PATCH', `/api/chatbots/${doomed.id}/toggle`, me.token)).statusCode).toBe(404);
  });
});

describe('another account and unknown ids', () => {
  it('another account gets the same 404 as for a nonexistent id on GET, PUT, DELETE, toggle and the identity secret; the agent is untouched', async () => {
    const owner = await api.account();
    const intruder = await api.account();
    const agent = await api.create(owner.token, { name: 'Private' });
    await api.create(intruder.token, { name: 'Intruder own' });
    const missing = '01900000-0000-7000-8000-000000000000';

    const requests: Array<['GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', (id: string) => string, Json | undefined]> = [
      ['GET', (id) => `/api/chatbots/${id}`, undefined],
      ['PUT', (id) => `/api/chatbots/${id}`, { name: 'Hacked', status: 'inactive' }],
      ['DELETE', (id) => `/api/chatbots/${id}`, undefined],
      ['PATCH', (id) => `/api/chatbots/${id}/toggle`, undefined],
      // verified visitors' identity secret (issue 35.5)
      ['GET', (id) => `/api/chatbots/${id}/identity-secret`, undefined],
      ['POST', (id) => `/api/chatbots/${id}/identity-secret`, undefined],
      ['DELETE', (id) => `/api/chatbots/${id}/identity-secret`, undefined],
      // agent actions (issue 35); the action's own id is checked in modules/actions.test.ts
      ['GET', (id) => `/api/chatbots/${id}/actions`, undefined],
      [
        'POST',
        (id) => `/api/chatbots/${id}/actions`,
        { type: 'do', name: 'open_ticket', description: 'Opens a ticket', url: 'https://shop.example/tickets' },
      ],
      ['GET', (id) => `/api/chatbots/${id}/actions/${missing}`, undefined],
      ['PUT', (id) => `/api/chatbots/${id}/actions/${missing}`, { description: 'Changed' }],
      ['DELETE', (id) => `/api/chatbots/${id}/actions/${missing}`, undefined],
      ['GET', (id) => `/api/chatbots/${id}/conversations/${missing}/action-runs`, undefined],
      ['GET', (id) => `/api/analytics/chatbot/${id}/actions`, undefined],
    ];
    for (const [method, url, body] of requests) {
      const foreign = await api.call(method, url(agent.id), intruder.token, body);
      const unknown = await api.call(method, url(missing), intruder.token, body);
      expect(foreign.statusCode, `${method} foreign`).toBe(404);
      expect(unknown.statusCode, `${method} unknown`).toBe(404);
      expect(foreign.json()).toEqual(unknown.json());
      expect(typeof foreign.json().detail).toBe('string');
      expect(foreign.json().detail).not.toContain(agent.id);
    }

    expect(await api.get(owner.token, agent.id)).toEqual(agent);
    expect(await api.list(owner.token)).toEqual([agent]);
    expect((await api.list(intruder.token)).map((a) => a.name)).toEqual(['Intruder own']);
  });

  it('the owner gets 404 for ids that do not exist', async () => {
    const me = await api.account();
    await api.create(me.token);
    for (const id of ['does-not-exist', '01900000-0000-7000-8000-000000000000']) {
      expect((await api.call('GET', `/api/chatbots/${id}`, me.token)).statusCode).toBe(404);
      expect((await api.call('PUT', `/api/chatbots/${id}`, me.token, { name: 'x' })).statusCode).toBe(404);
      expect((await api.call('DELETE', `/api/chatbots/${id}`, me.token)).statusCode).toBe(404);
      expect((await api.call('PATCH', `/api/chatbots/${id}/toggle`, me.token)).statusCode).toBe(404);
    }
  });
});

describe('plan limits', () => {
  it('built-in free plan allows 3 agents; the 4th is 403 with the limit detail', async () => {
    const me = await api.account();
    for (let i = 1; i <= 3; i++) await api.create(me.token, { name: `Bot ${i}` });
    const res = await api.call('POST', '/api/chatbots', me.token, { name: 'Bot 4' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toStrictEqual({
      detail: { message: expect.any(String), current: 3, max: 3, upgrade_required: true },
    });
    expect(await api.list(me.token)).toHaveLength(3);
  });

  it('PLANS_FILE plan with max_agents 2: the 3rd create is 403 with exactly the limit detail; deleting one frees a slot', async () => {
    const { dataDir, plansFile } = dataDirWithPlans({ tiny: { ...PLAN_BASE, max_agents: 2 } });
    const tinyClock = new ManualClock();
    const s = await startTestApp({ clock: tinyClock, dataDir, env: { PLANS_FILE: plansFile, DEFAULT_PLAN: 'tiny' } });
    try {
      const c = client(s, tinyClock);
      const me = await c.account();
      const other = await c.account();
      const first = await c.create(me.token, { name: 'One' });
      await c.create(me.token, { name: 'Two' });

      const third = await c.call('POST', '/api/chatbots', me.token, { name: 'Three' });
      expect(third.statusCode).toBe(403);
      expect(third.json()).toStrictEqual({
        detail: { message: expect.any(String), current: 2, max: 2, upgrade_required: true },
      });
      expect(third.json().detail.message.length).toBeGreaterThan(0);
      expect(await c.list(me.token)).toHaveLength(2);

      // the limit is per account
      await c.create(other.token, { name: 'Other one' });

      expect((await c.call('DELETE', `/api/chatbots/${first.id}`, me.token)).statusCode).toBe(204);
      const again = await c.create(me.token, { name: 'Three again' });
      expect(again.name).toBe('Three again');
      expect((await c.list(me.token)).map((a) => a.name)).toEqual(['Three again', 'Two']);
      expect((await c.call('POST', '/api/chatbots', me.token, { name: 'Four' })).statusCode).toBe(403);
    } finally {
      await s.cleanup();
    }
  });

  it('an expired plan gives 402 on create; a future expiry allows it; expiry follows the clock', async () => {
    const me = await api.account();
    const setExpiry = async (value: string | null) => {
      const res = await api.call('PATCH', `/api/admin/users/${me.id}`, admin.token, { plan_expires_at: value });
      expect(res.statusCode, res.body).toBe(200);
    };

    await setExpiry(new Date(clock.now().getTime() - 24 * 3600_000).toISOString());
    const expired = await api.call('POST', '/api/chatbots', me.token, { name: 'Nope' });
    expect(expired.statusCode).toBe(402);
    expect(typeof expired.json().detail).toBe('string');
    expect(await api.list(me.token)).toEqual([]);

    await setExpiry(new Date(clock.now().getTime() + 30 * 60_000).toISOString());
    const ok = await api.call('POST', '/api/chatbots', me.token, { name: 'Yes' });
    expect(ok.statusCode, ok.body).toBe(201);

    // the same future date is in the past once the clock passes it
    clock.advance(60 * 60_000);
    expect((await api.call('POST', '/api/chatbots', me.token, { name: 'Later' })).statusCode).toBe(402);

    await setExpiry(null);
    expect((await api.call('POST', '/api/chatbots', me.token, { name: 'No expiry' })).statusCode).toBe(201);
    expect((await api.list(me.token)).map((a) => a.name)).toEqual(['No expiry', 'Yes']);
  });
});

describe('authentication', () => {
  it('every agents route answers 401 without a token or with a bad one, and changes nothing', async () => {
    const me = await api.account();
    const agent = await api.create(me.token);
    const routes: Array<['GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', string, Json | undefined]> = [
      ['GET', '/api/chatbots', undefined],
      ['POST', '/api/chatbots', { name: 'Anon' }],
      ['GET', `/api/chatbots/${agent.id}`, undefined],
      ['PUT', `/api/chatbots/${agent.id}`, { name: 'Anon' }],
      ['DELETE', `/api/chatbots/${agent.id}`, undefined],
      ['PATCH', `/api/chatbots/${agent.id}/toggle`, undefined],
    ];
    for (const [method, url, payload] of routes) {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: `Basic ${me.token}` }]) {
        clock.advance(1000);
        const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json()).toEqual({ detail: 'Could not validate credentials' });
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    }
    expect(await api.list(me.token)).toEqual([agent]);
  });
});
