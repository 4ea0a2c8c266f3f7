import { describe, expect, it } from 'vitest';
import { CAP_FALLBACK } from '../../src/modules/chat/turn-actions.js';
import { NO_MORE_TOOLS_NOTE } from '../../src/providers/llm/tool-loop.js';
import {
  addAction,
  ask,
  call,
  messagesOf,
  orderLookup,
  PRIVATE_URLS,
  runsOf,
  script,
  settle,
  signatureOk,
  ticketDo,
  useActionApps,
} from '../helpers/actions.js';
import { accountWithAgent, ManualClock, sendExpect } from '../helpers/app.js';
import { chatRequests } from '../helpers/chat.js';
import type { RecordedRequest } from '../helpers/fake-llm.js';

// Agent actions (issue 35): a `do` and its card, failures, and actions without a model (buttons).

type Json = Record<string, any>;

const { apps, endpoint, withModel } = useActionApps();

const sentText = (req: RecordedRequest | undefined) => JSON.stringify(req?.body);

describe('a `do` action', () => {
  it('comes back as a card; nothing is sent until Confirm; Confirm sends the JSON body once', async () => {
    const args = { subject: 'Broken lid', priority: 'high', invented: 'drop tables' };
    const { ep, f, t, token, agent, made } = await withModel(script(call('open_ticket', args)), (e) => [ticketDo(e)]);
    ep.respond = () => ({ body: JSON.stringify({ ticket_id: 'T-17', internal: 'owner-only' }) });
    const answer = await ask(t, agent.id, 's-1', 'Please open a ticket: my lid is broken');
    expect(answer.message).toBe('Please confirm: Opens a support ticket');
    expect(answer.action).toEqual({
      run_id: expect.any(String),
      action_name: 'open_ticket',
      type: 'do',
      description: 'Opens a support ticket',
      // the parameter the model made up is not among them
      inputs: { subject: 'Broken lid', priority: 'high' },
      sends: `POST ${ep.url}/tickets`,
      slots: [],
      time_zone: null,
      needs_email: false,
    });
    expect(chatRequests(f)).toHaveLength(1); // the turn stopped at the card
    expect(ep.calls).toHaveLength(0);
    const runId = answer.action.run_id as string;

    // another session's Confirm: 404 exactly like an unknown run, nothing sent
    await ask(t, agent.id, 's-2', 'Hello');
    const foreign = await settle(t, agent.id, runId, 'confirm', { session_id: 's-2' });
    const unknown = await settle(t, agent.id, '01900000-0000-7000-8000-000000000000', 'confirm', { session_id: 's-1' });
    const noSession = await settle(t, agent.id, runId, 'confirm', { session_id: 's-none' });
    for (const res of [foreign, unknown, noSession]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual(unknown.json());
    }
    expect(ep.calls).toHaveLength(0);

    const confirmed = await settle(t, agent.id, runId, 'confirm', { session_id: 's-1' });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({
      message: 'Done. ticket_id: T-17',
      message_id: expect.any(String),
      run: { id: runId, status: 'succeeded', outcome: 'Done. ticket_id: T-17' },
    });
    expect(ep.calls).toHaveLength(1);
    const hit = ep.calls[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.path).toBe('/tickets');
    expect(hit.headers['content-type']).toBe('application/json');
    expect(JSON.parse(hit.body)).toEqual({
      action: 'open_ticket',
      inputs: { subject: 'Broken lid', priority: 'high' },
      conversation_id: answer.conversation_id,
      user: null,
    });
    expect(signatureOk(made[0]!.signing_secret, hit.body, hit.headers['chat-agent-signature'])).toBe(true);

    // a second Confirm (or a Cancel now) sends nothing again
    const again = await settle(t, agent.id, runId, 'confirm', { session_id: 's-1' });
    expect(again.json()).toMatchObject({ message: 'This was done already.', run: { status: 'succeeded' } });
    const late = await settle(t, agent.id, runId, 'cancel', { session_id: 's-1' });
    expect(late.json().run.status).toBe('succeeded');
    expect(ep.calls).toHaveLength(1);

    const messages = await messagesOf(t, token, answer.conversation_id);
    expect(messages.map((m) => m.content)).toContain('Done. ticket_id: T-17');
    const runs = await runsOf(t, token, agent.id, answer.conversation_id);
    expect(runs).toMatchObject([{ status: 'succeeded', http_status: 200, confirmed_at: expect.any(String) }]);
  });

  it('Cancel ends it with nothing sent; Confirm afterwards sends nothing either', async () => {
    const { ep, t, agent } = await withModel(script(call('open_ticket', { subject: 'x' })), (e) => [ticketDo(e)]);
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    const runId = answer.action.run_id;
    const cancelled = await settle(t, agent.id, runId, 'cancel', { session_id: 's-1' });
    expect(cancelled.json()).toMatchObject({ message: 'Cancelled. Nothing was sent.', run: { status: 'cancelled' } });
    const confirm = await settle(t, agent.id, runId, 'confirm', { session_id: 's-1' });
    expect(confirm.json()).toMatchObject({ message: 'This was cancelled.', run: { status: 'cancelled' } });
    expect(ep.calls).toHaveLength(0);
  });

  it('a card left for more than 30 minutes expires: Confirm sends nothing', async () => {
    const clock = new ManualClock();
    const { ep, t, token, agent } = await withModel(
      script(call('open_ticket', { subject: 'x' })),
      (e) => [ticketDo(e)],
      { clock },
    );
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    clock.advance(30 * 60_000 + 1_000);
    const confirm = await settle(t, agent.id, answer.action.run_id, 'confirm', { session_id: 's-1' });
    expect(confirm.json()).toMatchObject({
      message: 'This request expired; please ask again.',
      run: { status: 'expired' },
    });
    expect(ep.calls).toHaveLength(0);
    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toMatchObject([{ status: 'expired' }]);
  });

  it('a failing endpoint on Confirm: a clear message, the run failed, the conversation goes on', async () => {
    const { ep, f, t, agent } = await withModel(script(call('open_ticket', { subject: 'x' })), (e) => [ticketDo(e)]);
    ep.respond = () => ({ status: 503, body: '{}' });
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    const confirm = await settle(t, agent.id, answer.action.run_id, 'confirm', { session_id: 's-1' });
    expect(confirm.json().message).toMatch(/^Sorry, that did not go through \(.*HTTP 503\)\. Nothing was done\.$/);
    expect(confirm.json().run.status).toBe('failed');
    f.setBehaviour({ reply: 'Anything else?' });
    expect((await ask(t, agent.id, 's-1', 'Ok')).message).toBe('Anything else?');
  });
});

const ORDER = JSON.stringify({ status: 'shipped' });

describe('a look-up that fails ends with a clear message, and the conversation goes on', () => {
  it.each([
    ['the endpoint answers 500', { status: 500, body: '{"error":"boom"}' }, /answered HTTP 500/],
    ['the answer is not JSON', { body: '<html>oops</html>' }, /did not answer JSON/],
    [
      'the answer is over 256 KB',
      { body: JSON.stringify({ status: 'x'.repeat(300 * 1024) }) },
      /The answer is too large \(more than 262144 bytes\)/,
    ],
    ['the endpoint is slower than ACTION_TIMEOUT_S', { hang: true }, /timed out after 300 ms/],
    ['the endpoint redirects', { status: 302, redirect: true }, /answered a redirect \(not followed\)/],
  ])('%s', async (_what, answerWith, reason) => {
    const { ep, f, t, token, agent } = await withModel(
      script(call('order_status', { order_id: '7' }), 'Sorry, I cannot check that now.', 'Anything else?'),
      (e) => [orderLookup(e, { response_fields: ['status'] })],
      { env: { ACTION_TIMEOUT_S: '0.3' } },
    );
    ep.respond = () => answerWith;
    const answer = await ask(t, agent.id, 's-1', 'Where is order 7?');
    expect(answer.message).toBe('Sorry, I cannot check that now.');
    const toolResult = sentText(chatRequests(f)[1]);
    expect(toolResult).toMatch(/The look-up failed: /);
    expect(toolResult).toMatch(reason);
    const runs = await runsOf(t, token, agent.id, answer.conversation_id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('failed');
    expect(runs[0]!.outcome).toMatch(reason);
    expect(runs[0]!.outcome).not.toMatch(/\.\.$/);
    expect(ep.calls.map((h) => h.path)).toEqual(['/orders/7']); // once, and no redirect followed
    // the next message is answered as usual
    ep.respond = () => ({ body: ORDER });
    expect((await ask(t, agent.id, 's-1', 'Thanks')).message).toBe('Anything else?');
  });
});

describe('what the model gets wrong', () => {
  it('a tool that does not exist: an error result, nothing is run, the model answers', async () => {
    const { ep, f, t, token, agent } = await withModel(
      script(call('drop_tables', { all: true }), 'I cannot do that.'),
      (e) => [orderLookup(e)],
    );
    const answer = await ask(t, agent.id, 's-1', 'Drop the tables');
    expect(answer.message).toBe('I cannot do that.');
    expect(sentText(chatRequests(f)[1])).toContain('there is no tool named drop_tables');
    expect(ep.calls).toHaveLength(0);
    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toEqual([]);
  });

  it('a model that always calls a tool: the turn ends after the cap with a text answer', async () => {
    const looping = (req: RecordedRequest) =>
      req.body?.tools ? call('order_status', { order_id: '7' }) : 'I checked several times; it has shipped.';
    const { ep, f, t, agent } = await withModel(looping, (e) => [orderLookup(e)]);
    ep.respond = () => ({ body: ORDER });
    const answer = await ask(t, agent.id, 's-1', 'Where is order 7?');
    expect(answer.message).toBe('I checked several times; it has shipped.');
    expect(ep.calls).toHaveLength(4);
    const last = chatRequests(f).at(-1)!;
    expect(last.body.tools).toBeUndefined();
    expect(sentText(last)).toContain(NO_MORE_TOOLS_NOTE.slice(1, 30));
    f.setBehaviour({ reply: 'Anything else?' });
    expect((await ask(t, agent.id, 's-1', 'Thanks')).message).toBe('Anything else?');
  });

  it('a model that calls tools even when none are offered still ends with words for the visitor', async () => {
    const { ep, t, token, agent } = await withModel(script(call('order_status', { order_id: '7' })), (e) => [
      orderLookup(e),
    ]);
    ep.respond = () => ({ body: ORDER });
    const answer = await ask(t, agent.id, 's-1', 'Where is order 7?');
    expect(ep.calls).toHaveLength(4);
    expect(answer.message).toBe(CAP_FALLBACK);
    const messages = await messagesOf(t, token, answer.conversation_id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: answer.message });
  });

  it('a required parameter left out: nothing is sent, the model is told to ask for it', async () => {
    const { ep, f, t, agent } = await withModel(script(call('order_status', {}), 'Which order?'), (e) => [
      orderLookup(e),
    ]);
    const answer = await ask(t, agent.id, 's-1', 'Where is my order?');
    expect(answer.message).toBe('Which order?');
    expect(sentText(chatRequests(f)[1])).toContain(
      'Missing order_id (the order number): ask the visitor for it first.',
    );
    expect(ep.calls).toHaveLength(0);
  });

  it('an invented extra parameter is ignored: not in the URL, not in the run', async () => {
    const { ep, t, token, agent } = await withModel(
      script(call('order_status', { order_id: '5', admin: 'true', lang: 'de' }), 'Shipped.'),
      (e) => [orderLookup(e)],
    );
    ep.respond = () => ({ body: ORDER });
    const answer = await ask(t, agent.id, 's-1', 'Order 5?');
    expect(ep.calls.map((h) => h.target)).toEqual(['/orders/5?lang=en']);
    expect((await runsOf(t, token, agent.id, answer.conversation_id))[0]!.inputs).toEqual({ order_id: '5' });
  });
});

describe('without a provider key: buttons', () => {
  it('lists the actions as buttons; a look-up answers in words, a do shows its card and Confirm runs it', async () => {
    const t = await apps.start({ env: PRIVATE_URLS });
    const { token, agent } = await accountWithAgent(t.app);
    const ep = await endpoint();
    ep.respond = (hit) =>
      hit.method === 'GET'
        ? { body: JSON.stringify({ status: 'shipped', shipping: { eta: 'Friday' }, internal: 'no' }) }
        : { body: JSON.stringify({ ticket_id: 'T-9' }) };
    const lookup = await addAction(t, token, agent.id, orderLookup(ep));
    const ticket = await addAction(t, token, agent.id, ticketDo(ep));
    const listed = await sendExpect(t.app, null, 'GET', `/api/public/chat/${agent.id}/actions`);
    expect(listed.buttons).toBe(true);
    expect(listed.actions.map((a: Json) => [a.id, a.type, a.name])).toEqual([
      [lookup.id, 'lookup', 'order_status'],
      [ticket.id, 'do', 'open_ticket'],
    ]);
    expect(JSON.stringify(listed)).not.toContain('signing_secret');
    expect(JSON.stringify(listed)).not.toContain(ep.url);

    const start = (actionId: string, inputs: Json) =>
      sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/actions/${actionId}/start`, {
        session_id: 'b-1',
        inputs,
      });
    const looked = await start(lookup.id, { order_id: '7' });
    expect(looked.message).toBe('status: shipped\nshipping.eta: Friday');
    expect(looked.action).toBeNull();
    expect(ep.calls.map((h) => h.target)).toEqual(['/orders/7?lang=en']);

    const missing = await start(lookup.id, {});
    expect(missing.message).toBe('Missing order_id (the order number).');

    const card = await start(ticket.id, { subject: 'Lid' });
    expect(card.message).toBe('Please confirm: Opens a support ticket');
    expect(card.action).toMatchObject({ type: 'do', inputs: { subject: 'Lid' } });
    expect(ep.calls).toHaveLength(1);
    const confirmed = await settle(t, agent.id, card.action.run_id, 'confirm', { session_id: 'b-1' });
    expect(confirmed.json()).toMatchObject({ message: 'Done. ticket_id: T-9', run: { status: 'succeeded' } });
    expect(ep.calls).toHaveLength(2);
    const messages = await messagesOf(t, token, looked.conversation_id);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Looks up the status of an order (order_id: 7)'],
      ['assistant', 'status: shipped\nshipping.eta: Friday'],
      ['user', 'Looks up the status of an order'],
      ['assistant', 'Missing order_id (the order number).'],
      ['user', 'Opens a support ticket (subject: Lid)'],
      ['assistant', 'Please confirm: Opens a support ticket'],
      ['assistant', 'Done. ticket_id: T-9'],
    ]);
  });
});
