import { describe, expect, it } from 'vitest';
import {
  actionBody,
  addAction,
  ask,
  askStreamed,
  call,
  identitySecret,
  type Endpoint,
  messagesOf,
  orderLookup,
  PRIVATE_URLS,
  planEnv,
  runsOf,
  script,
  signatureOk,
  ticketDo,
  useActionApps,
} from '../helpers/actions.js';
import { accountWithAgent, createAgent, registerUser, send, sendExpect } from '../helpers/app.js';
import { chatRequests } from '../helpers/chat.js';
import type { FakeProviderName } from '../helpers/fake-llm.js';

// Agent actions (issue 35): the owner's set-up, and look-ups the model runs as tools, through
// the real app, the real SDKs against the fake LLM servers, and a real endpoint on 127.0.0.1.

type Json = Record<string, any>;

const { apps, endpoint, withModel } = useActionApps();

/** An app (private URLs allowed unless `env` says otherwise), an account, an agent, an endpoint. */
async function owner(env: Record<string, string> = PRIVATE_URLS) {
  const t = await apps.start({ env });
  const { token, agent } = await accountWithAgent(t.app);
  return { t, token, agent, ep: await endpoint() };
}

const actionsUrl = (agentId: string) => `/api/chatbots/${agentId}/actions`;

describe('the owner sets up actions', () => {
  it('201 with the signing secret once; list and get never show it; PUT re-checks; DELETE 204', async () => {
    const { t, token, agent, ep } = await owner();
    const made = await addAction(t, token, agent.id, orderLookup(ep));
    expect(made.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(made).toMatchObject({
      type: 'lookup',
      name: 'order_status',
      enabled: true,
      requires_verified: false,
      parameters: [{ name: 'order_id', description: 'the order number', required: true }],
    });
    const listed = await sendExpect(t.app, token, 'GET', actionsUrl(agent.id));
    const got = await sendExpect(t.app, token, 'GET', `${actionsUrl(agent.id)}/${made.id}`);
    for (const shown of [listed, got]) {
      expect(JSON.stringify(shown)).not.toContain(made.signing_secret);
      expect(JSON.stringify(shown)).not.toContain('signing_secret');
    }
    const { signing_secret: _s, ...view } = made;
    expect(got).toEqual(view);
    expect(listed).toEqual([view]);
    // the secret is stored sealed, not as its text
    const stored = t.database.sqlite.prepare('select signing_secret from actions').get() as Json;
    expect(stored.signing_secret).not.toContain(made.signing_secret.slice(6));

    const renamed = await sendExpect(t.app, token, 'PUT', `${actionsUrl(agent.id)}/${made.id}`, {
      description: 'Order status',
    });
    expect(renamed).toMatchObject({ description: 'Order status', name: 'order_status' });
    expect(JSON.stringify(renamed)).not.toContain('signing_secret');
    // the change is checked with the rest: the URL would lose the look-up's parameter
    const bad = await send(t.app, token, 'PUT', `${actionsUrl(agent.id)}/${made.id}`, { url: `${ep.url}/orders` });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().detail).toMatch(/url: .*\{order_id\} is not in it/);
    const retype = await send(t.app, token, 'PUT', `${actionsUrl(agent.id)}/${made.id}`, { type: 'do' });
    expect(retype.statusCode).toBe(400);
    expect(retype.json().detail).toMatch(/^type: /);

    expect((await send(t.app, token, 'DELETE', `${actionsUrl(agent.id)}/${made.id}`)).statusCode).toBe(204);
    expect(await sendExpect(t.app, token, 'GET', actionsUrl(agent.id))).toEqual([]);
    expect((await send(t.app, token, 'GET', `${actionsUrl(agent.id)}/${made.id}`)).statusCode).toBe(404);
  });

  it('409 for a second action of the same name, also by renaming', async () => {
    const { t, token, agent, ep } = await owner();
    await addAction(t, token, agent.id, orderLookup(ep));
    const twice = await send(t.app, token, 'POST', actionsUrl(agent.id), orderLookup(ep));
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toMatch(/^name: .*order_status/);
    const other = await addAction(t, token, agent.id, ticketDo(ep));
    const rename = await send(t.app, token, 'PUT', `${actionsUrl(agent.id)}/${other.id}`, { name: 'order_status' });
    expect(rename.statusCode).toBe(409);
  });

  it.each([
    ['a bad name', { name: 'Order Status' }, /^body\/name|name/],
    ['a placeholder in the host', { url: 'http://{order_id}.shop.example/x?o={order_id}' }, /^url: .*host/],
    ['an undeclared placeholder', { url: 'http://127.0.0.1:9/orders/{order_id}/{other}' }, /^url: \{other\} is not/],
    ['a parameter not in the URL', { url: 'http://127.0.0.1:9/orders' }, /^url: a look-up sends its parameters/],
    ['a stray brace', { url: 'http://127.0.0.1:9/orders/{order_id}/}' }, /^url: a brace/],
    ['not a URL', { url: 'orders/{order_id}' }, /^url: not an absolute URL/],
    ['a user name in the URL', { url: 'http://me:pw@127.0.0.1:9/o/{order_id}' }, /^url: no user name/],
  ])('400 with a clear detail for %s', async (_what, change, detail) => {
    const { t, token, agent, ep } = await owner();
    const res = await send(t.app, token, 'POST', actionsUrl(agent.id), { ...orderLookup(ep), ...change });
    expect(res.statusCode, res.body).toBe(400);
    const said = res.json().detail;
    expect(typeof said === 'string' ? said : JSON.stringify(said)).toMatch(detail);
    expect(await sendExpect(t.app, token, 'GET', actionsUrl(agent.id))).toEqual([]);
  });

  it('400 for a booking without its calendar feed, or with parameters', async () => {
    const { t, token, agent, ep } = await owner();
    const booking = { type: 'booking', name: 'book_call', description: 'Books a call' };
    const none = await send(t.app, token, 'POST', actionsUrl(agent.id), booking);
    expect(none.statusCode).toBe(400);
    expect(none.json().detail).toMatch(/^calendar_url: a booking action needs/);
    const params = await send(t.app, token, 'POST', actionsUrl(agent.id), {
      ...booking,
      calendar_url: `${ep.url}/cal.ics`,
      parameters: [{ name: 'x', description: 'x' }],
    });
    expect(params.statusCode).toBe(400);
    expect(params.json().detail).toMatch(/^parameters: /);
  });

  it('400 for a private or loopback address unless ALLOW_PRIVATE_URLS, as for website sources', async () => {
    const { t, token, agent } = await owner({});
    for (const url of [
      'http://127.0.0.1:8080/orders/{order_id}',
      'http://10.0.0.5/orders/{order_id}',
      'http://[::1]/orders/{order_id}',
      'http://localhost/orders/{order_id}',
    ]) {
      const res = await send(t.app, token, 'POST', actionsUrl(agent.id), {
        ...orderLookup({ url: '' } as Endpoint),
        url,
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().detail, url).toMatch(/^url: /);
    }
    const cal = await send(t.app, token, 'POST', actionsUrl(agent.id), {
      type: 'booking',
      name: 'book_call',
      description: 'Books a call',
      calendar_url: 'http://192.168.1.2/cal.ics',
    });
    expect(cal.statusCode).toBe(400);
    expect(cal.json().detail).toMatch(/^calendar_url: /);
    // the same address as a website source is refused the same way
    const source = await send(t.app, token, 'POST', `/api/sources/chatbot/${agent.id}/website`, {
      url: 'http://127.0.0.1:8080/',
    });
    expect(source.statusCode).toBe(400);
    const action = await send(t.app, token, 'POST', actionsUrl(agent.id), {
      ...orderLookup({ url: 'http://127.0.0.1:8080' } as Endpoint),
    });
    expect(action.json().detail).toBe(source.json().detail);
  });

  it("another account's agent or action answers exactly like a missing one (404), and nothing changes", async () => {
    const { t, token, agent, ep } = await owner();
    const made = await addAction(t, token, agent.id, orderLookup(ep));
    const intruder = await registerUser(t.app);
    const own = await createAgent(t.app, intruder.token, { name: 'Own' });
    const missing = '01900000-0000-7000-8000-000000000000';
    const cases: Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, string, Json | undefined]> = [
      ['GET', actionsUrl(agent.id), actionsUrl(missing), undefined],
      ['POST', actionsUrl(agent.id), actionsUrl(missing), ticketDo(ep)],
      ['GET', `${actionsUrl(agent.id)}/${made.id}`, `${actionsUrl(missing)}/${made.id}`, undefined],
      ['PUT', `${actionsUrl(agent.id)}/${made.id}`, `${actionsUrl(missing)}/${made.id}`, { description: 'x' }],
      ['DELETE', `${actionsUrl(agent.id)}/${made.id}`, `${actionsUrl(missing)}/${made.id}`, undefined],
      // the action's id under the intruder's own agent is no action of that agent
      ['GET', `${actionsUrl(own.id)}/${made.id}`, `${actionsUrl(own.id)}/${missing}`, undefined],
      ['PUT', `${actionsUrl(own.id)}/${made.id}`, `${actionsUrl(own.id)}/${missing}`, { description: 'x' }],
      ['DELETE', `${actionsUrl(own.id)}/${made.id}`, `${actionsUrl(own.id)}/${missing}`, undefined],
      [
        'GET',
        `/api/chatbots/${agent.id}/conversations/${missing}/action-runs`,
        `/api/chatbots/${missing}/conversations/${missing}/action-runs`,
        undefined,
      ],
      ['GET', `/api/analytics/chatbot/${agent.id}/actions`, `/api/analytics/chatbot/${missing}/actions`, undefined],
    ];
    for (const [method, theirs, absent, body] of cases) {
      const foreign = await send(t.app, intruder.token, method, theirs, body);
      const unknown = await send(t.app, intruder.token, method, absent, body);
      expect(foreign.statusCode, `${method} ${theirs}`).toBe(404);
      expect(foreign.json(), `${method} ${theirs}`).toEqual(unknown.json());
    }
    const { signing_secret: _s, ...view } = made;
    expect(await sendExpect(t.app, token, 'GET', actionsUrl(agent.id))).toEqual([view]);
  });
});

/** The tool results a provider's request carries, as text (each SDK's own wire format). */
const sentText = (body: unknown) => JSON.stringify(body);

/** the owner's order look-up only */
const lookupOnly = (ep: Endpoint) => [orderLookup(ep)];

const ORDER = { status: 'shipped', shipping: { eta: 'Friday', carrier: 'Parcel Co' }, internal: 'owner-only-note' };

describe('the actions offered to the model', () => {
  it('follow the owner at once: an action disabled, enabled again, then deleted (the list is kept between turns)', async () => {
    const { f, t, token, agent, made } = await withModel(() => 'Noted.', lookupOnly);
    const toolNames = () =>
      ((chatRequests(f).at(-1)!.body.tools ?? []) as Array<{ function: { name: string } }>).map((x) => x.function.name);
    const url = `${actionsUrl(agent.id)}/${made[0]!.id}`;
    await ask(t, agent.id, 'k1', 'Where is order 1?');
    expect(toolNames()).toEqual(['order_status']);
    await sendExpect(t.app, token, 'PUT', url, { ...orderLookupFields(made[0]!), enabled: false });
    await ask(t, agent.id, 'k2', 'Where is order 2?');
    expect(toolNames()).toEqual([]);
    await sendExpect(t.app, token, 'PUT', url, { ...orderLookupFields(made[0]!), enabled: true });
    await ask(t, agent.id, 'k3', 'Where is order 3?');
    expect(toolNames()).toEqual(['order_status']);
    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(204);
    await ask(t, agent.id, 'k4', 'Where is order 4?');
    expect(toolNames()).toEqual([]);
  });
});

/** what PUT takes of an action as the API returned it */
function orderLookupFields(made: Record<string, unknown>) {
  const { id: _id, signing_secret: _secret, created_at: _c, updated_at: _u, ...fields } = made;
  return fields;
}

describe('a look-up the model calls', () => {
  const providers: Array<[FakeProviderName, boolean]> = [
    ['openai', false],
    ['anthropic', true],
    ['google', false],
    ['ollama', true],
  ];
  it.each(providers)(
    '%s (streamed: %s): signed GET, value encoded in the path, only the listed fields back to the model',
    async (provider, streamed) => {
      const value = '7/../../admin?x=1#frag';
      const { ep, f, t, token, agent, made } = await withModel(
        script(call('order_status', { order_id: value }), 'It ships Friday.'),
        lookupOnly,
        { provider, agent: { name: 'Shop' } },
      );
      const action = made[0]!;
      ep.respond = () => ({ body: JSON.stringify(ORDER) });
      const answer = streamed
        ? (await askStreamed(t, agent.id, 's-1', 'Where is order 7?')).done
        : await ask(t, agent.id, 's-1', 'Where is order 7?');
      expect(answer.message).toBe('It ships Friday.');
      expect(answer.action).toBeNull();

      expect(ep.calls).toHaveLength(1);
      const hit = ep.calls[0]!;
      expect(hit.method).toBe('GET');
      expect(hit.target).toBe(`/orders/${encodeURIComponent(value)}?lang=en`);
      expect(decodeURIComponent(hit.path.split('/')[2]!)).toBe(value);
      expect(hit.headers['chat-agent-action']).toBe('order_status');
      expect(signatureOk(action.signing_secret, hit.target, hit.headers['chat-agent-signature'])).toBe(true);
      expect(signatureOk('whsec_wrong', hit.target, hit.headers['chat-agent-signature'])).toBe(false);

      const requests = chatRequests(f);
      expect(requests).toHaveLength(2);
      expect(sentText(requests[0]!.body)).toContain('order_status'); // offered as a tool
      const second = sentText(requests[1]!.body);
      expect(second).toContain('shipped');
      expect(second).toContain('Friday');
      expect(second).not.toContain('Parcel Co');
      expect(second).not.toContain('owner-only-note');

      const messages = await messagesOf(t, token, answer.conversation_id);
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['user', 'Where is order 7?'],
        ['assistant', 'It ships Friday.'],
      ]);
      const runs = await runsOf(t, token, agent.id, answer.conversation_id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        action_id: action.id,
        action_name: 'order_status',
        action_type: 'lookup',
        inputs: { order_id: value },
        status: 'succeeded',
        http_status: 200,
      });
      expect(runs[0]).not.toHaveProperty('result');
    },
  );

  it('a value that is a dot segment is refused, the endpoint is not called, the model answers in words', async () => {
    const { ep, f, t, token, agent } = await withModel(
      script(call('order_status', { order_id: '..' }), 'Which order?'),
      lookupOnly,
    );
    const answer = await ask(t, agent.id, 's-1', 'Where is order ..?');
    expect(answer.message).toBe('Which order?');
    expect(ep.calls).toHaveLength(0);
    expect(sentText(chatRequests(f)[1]!.body)).toContain('order_id may not be');
    const runs = await runsOf(t, token, agent.id, answer.conversation_id);
    expect(runs).toMatchObject([{ status: 'failed' }]);
  });
});

describe('a value in the query', () => {
  it('is percent-encoded: it cannot add a parameter or a fragment', async () => {
    const term = 'lid&lang=de#top';
    const { ep, t, agent, made } = await withModel(script(call('search_faq', { term }), 'Found it.'), (e) => [
      actionBody('lookup', 'search_faq', 'Searches the FAQ', `${e.url}/search?q={term}&lang=en`, {
        term: 'words to search for',
      }),
    ]);
    await ask(t, agent.id, 's-1', 'Lids?');
    expect(ep.calls.map((h) => h.target)).toEqual(['/search?q=lid%26lang%3Dde%23top&lang=en']);
    const query = new URL(`http://x${ep.calls[0]!.target}`).searchParams;
    expect(query.getAll('lang')).toEqual(['en']);
    expect(query.get('q')).toBe(term);
    expect(
      signatureOk(made[0]!.signing_secret, ep.calls[0]!.target, ep.calls[0]!.headers['chat-agent-signature']),
    ).toBe(true);
  });
});

describe('the monthly cap', () => {
  it('with monthly_action_runs 1 the second look-up is refused with the cap message; the endpoint is called once', async () => {
    const lookup = call('order_status', { order_id: '1' });
    const { ep, f, t, token, agent } = await withModel(
      script(lookup, 'Shipped.', lookup, 'Sorry, I cannot check now.'),
      lookupOnly,
      { env: planEnv({ monthly_action_runs: 1 }) },
    );
    ep.respond = () => ({ body: JSON.stringify(ORDER) });
    await ask(t, agent.id, 's-1', 'Order 1?');
    const second = await ask(t, agent.id, 's-1', 'And again?');
    expect(second.message).toBe('Sorry, I cannot check now.');
    expect(ep.calls).toHaveLength(1);
    expect(sentText(chatRequests(f)[3]!.body)).toContain('monthly allowance of actions is used up');
    const runs = await runsOf(t, token, agent.id, second.conversation_id);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    expect(runs[1]!.outcome).toMatch(/monthly allowance/);
  });
});

describe('an action for verified visitors', () => {
  it('{{user.id}} runs only with a valid hash and is filled with the id; anonymous or a wrong hash is refused', async () => {
    const { ep, f, t, token, agent, made } = await withModel(undefined, (e) => [
      actionBody(
        'lookup',
        'my_orders',
        'Counts the signed-in customer orders',
        `${e.url}/customers/{{user.id}}/orders`,
        {},
        ['count'],
      ),
    ]);
    const action = made[0]!;
    ep.respond = () => ({ body: JSON.stringify({ count: 3 }) });
    expect(action.requires_verified).toBe(true);
    const { hashOf } = await identitySecret(t, token, agent.id);

    f.setBehaviour({ reply: script(call('my_orders'), 'Please sign in first.') });
    await ask(t, agent.id, 'anon', 'How many orders do I have?');
    f.setBehaviour({ reply: script(call('my_orders'), 'Please sign in first.') });
    const wrong = { id: 'cust 42', hash: hashOf('cust 43') };
    await ask(t, agent.id, 'wrong', 'How many orders do I have?', { user: wrong });
    expect(ep.calls).toHaveLength(0);
    const refusals = chatRequests(f).filter((_r, i) => i % 2 === 1);
    for (const r of refusals) expect(sentText(r.body)).toContain('only for visitors signed in');

    f.setBehaviour({ reply: script(call('my_orders'), 'You have 3 orders.') });
    const user = { id: 'cust 42', hash: hashOf('cust 42') };
    const ok = await ask(t, agent.id, 'verified', 'How many orders do I have?', { user });
    expect(ok.message).toBe('You have 3 orders.');
    expect(ep.calls.map((h) => h.target)).toEqual(['/customers/cust%2042/orders']);
    expect(signatureOk(action.signing_secret, ep.calls[0]!.target, ep.calls[0]!.headers['chat-agent-signature'])).toBe(
      true,
    );
  });
});
