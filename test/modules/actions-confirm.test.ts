import { describe, expect, it } from 'vitest';
import {
  ask,
  askStreamed,
  call,
  identitySecret,
  type Endpoint,
  orderLookup,
  planEnv,
  runsOf,
  script,
  settle,
  signatureOk,
  ticketDo,
  useActionApps,
} from '../helpers/actions.js';
import { ManualClock, sendExpect } from '../helpers/app.js';
import { chatRequests } from '../helpers/chat.js';

// Agent actions (issue 35): more of the Confirm side: streamed cards, two clicks at once, a
// verified visitor's `do`, an action disabled while its card waits, and the analytics of runs.

type Json = Record<string, any>;

const { withModel } = useActionApps();

/** The model asks to open a ticket about a lid, then answers with `then` (the last one again). */
const lidTicket = (...then: string[]) => script(call('open_ticket', { subject: 'Lid' }), ...then);
/** the owner's ticket action only */
const ticketOnly = (ep: Endpoint) => [ticketDo(ep)];

describe('Confirm', () => {
  it('a streamed turn ends with the card in `done`; the deltas say what is asked', async () => {
    const { ep, t, agent } = await withModel(lidTicket(), ticketOnly, { provider: 'anthropic' });
    const { events, done } = await askStreamed(t, agent.id, 's-1', 'Open a ticket');
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(deltas.join('')).toBe('Please confirm: Opens a support ticket');
    expect(done.message).toBe('Please confirm: Opens a support ticket');
    expect(done.action).toMatchObject({ type: 'do', action_name: 'open_ticket', inputs: { subject: 'Lid' } });
    expect(ep.calls).toHaveLength(0);
    const confirmed = await settle(t, agent.id, done.action.run_id, 'confirm', { session_id: 's-1' });
    expect(confirmed.json().run.status).toBe('succeeded');
    expect(ep.calls).toHaveLength(1);
  });

  it('two clicks at once send it once', async () => {
    const { ep, t, agent } = await withModel(lidTicket(), ticketOnly);
    ep.respond = () => ({ body: JSON.stringify({ ticket_id: 'T-1' }) });
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    const runId = answer.action.run_id;
    const both = await Promise.all([
      settle(t, agent.id, runId, 'confirm', { session_id: 's-1' }),
      settle(t, agent.id, runId, 'confirm', { session_id: 's-1' }),
    ]);
    expect(ep.calls).toHaveLength(1);
    const messages = both.map((r) => r.json().message as string).sort();
    expect(messages[0]).toBe('Done. ticket_id: T-1');
    expect(messages[1]).toMatch(/^This (is being handled|was done) already\.$/);
  });

  it("a verified visitor's `do`: {{user.id}} is filled at Confirm from the conversation, without the hash again", async () => {
    const { ep, f, t, token, agent, made } = await withModel(undefined, (e) => [
      { ...ticketDo(e), url: `${e.url}/customers/{{user.id}}/tickets` },
    ]);
    const action = made[0]!;
    ep.respond = () => ({ body: '{}' });
    expect(action.requires_verified).toBe(true);
    const hash = (await identitySecret(t, token, agent.id)).hashOf('cust-42');

    f.setBehaviour({ reply: lidTicket('Please sign in first.') });
    const anonymous = await ask(t, agent.id, 'anon', 'Open a ticket');
    expect(anonymous.action).toBeNull();
    expect(anonymous.message).toBe('Please sign in first.');
    expect(JSON.stringify(chatRequests(f)[1]!.body)).toContain('only for visitors signed in');

    f.setBehaviour({ reply: lidTicket() });
    const user = { id: 'cust-42', hash, name: 'Ada', email: 'ada@example.com' };
    const answer = await ask(t, agent.id, 'ada', 'Open a ticket', { user });
    expect(answer.action.sends).toBe(`POST ${ep.url}/customers/cust-42/tickets`);
    const confirmed = await settle(t, agent.id, answer.action.run_id, 'confirm', { session_id: 'ada' });
    expect(confirmed.json().run.status).toBe('succeeded');
    expect(ep.calls).toHaveLength(1);
    const hit = ep.calls[0]!;
    expect(hit.path).toBe('/customers/cust-42/tickets');
    expect(JSON.parse(hit.body).user).toEqual({ id: 'cust-42', name: 'Ada', email: 'ada@example.com' });
    expect(signatureOk(action.signing_secret, hit.body, hit.headers['chat-agent-signature'])).toBe(true);
  });

  it('an action disabled while its card waits: Confirm sends nothing; it is no longer offered to the model', async () => {
    const { ep, f, t, token, agent, made } = await withModel(lidTicket('Hello again.'), ticketOnly);
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    await sendExpect(t.app, token, 'PUT', `/api/chatbots/${agent.id}/actions/${made[0]!.id}`, { enabled: false });
    const confirm = await settle(t, agent.id, answer.action.run_id, 'confirm', { session_id: 's-1' });
    expect(confirm.json()).toMatchObject({
      message: 'This action is no longer available.',
      run: { status: 'failed' },
    });
    expect(ep.calls).toHaveLength(0);
    expect((await ask(t, agent.id, 's-1', 'Hi')).message).toBe('Hello again.');
    expect(chatRequests(f).at(-1)!.body.tools).toBeUndefined();
  });
});

describe('the monthly cap at Confirm', () => {
  it('two cards shown while under the cap: the second Confirm past it is refused and sends nothing', async () => {
    const { ep, t, agent } = await withModel(lidTicket(), ticketOnly, { env: planEnv({ monthly_action_runs: 1 }) });
    ep.respond = () => ({ body: '{}' });
    const first = await ask(t, agent.id, 's-1', 'Open a ticket');
    const second = await ask(t, agent.id, 's-2', 'Open a ticket');
    expect(first.action).not.toBeNull();
    expect(second.action).not.toBeNull();
    const one = await settle(t, agent.id, first.action.run_id, 'confirm', { session_id: 's-1' });
    expect(one.json().run.status).toBe('succeeded');
    const two = await settle(t, agent.id, second.action.run_id, 'confirm', { session_id: 's-2' });
    expect(two.json()).toMatchObject({ run: { status: 'failed' } });
    expect(two.json().message).toMatch(/monthly allowance of actions is used up/);
    expect(ep.calls).toHaveLength(1);
  });
});

describe('a card nobody answers', () => {
  it('shows as expired after 30 minutes in the transcript and the analytics, without a click', async () => {
    const clock = new ManualClock();
    const { ep, t, token, agent, made } = await withModel(lidTicket(), ticketOnly, { clock });
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    clock.advance(29 * 60_000);
    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toMatchObject([
      { status: 'awaiting_confirmation' },
    ]);
    clock.advance(2 * 60_000);
    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toMatchObject([
      { status: 'expired', outcome: 'The visitor did not confirm in time.', finished_at: clock.now().toISOString() },
    ]);
    const stats = await sendExpect(t.app, token, 'GET', `/api/analytics/chatbot/${agent.id}/actions`);
    expect(stats.actions).toMatchObject([{ action_id: made[0]!.id, runs: 1, expired: 1 }]);
    // and a late click says so, sending nothing
    const late = await settle(t, agent.id, answer.action.run_id, 'confirm', { session_id: 's-1' });
    expect(late.json()).toMatchObject({
      message: 'This request expired; please ask again.',
      run: { status: 'expired' },
    });
    expect(ep.calls).toHaveLength(0);
  });

  it('deleting the action keeps its runs in the transcript, by name', async () => {
    const { t, token, agent, made } = await withModel(lidTicket(), ticketOnly);
    const answer = await ask(t, agent.id, 's-1', 'Open a ticket');
    await settle(t, agent.id, answer.action.run_id, 'cancel', { session_id: 's-1' });
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/chatbots/${agent.id}/actions/${made[0]!.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(del.statusCode).toBe(204);
    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toMatchObject([
      { action_id: null, action_name: 'open_ticket', status: 'cancelled' },
    ]);
  });
});

describe('the analytics of actions', () => {
  it('per action: runs, confirmed, and how they ended', async () => {
    const clock = new ManualClock();
    const { ep, f, t, token, agent, made } = await withModel(undefined, (e) => [ticketDo(e), orderLookup(e)], {
      clock,
    });
    const [ticket, lookup] = made as [Json, Json];
    let status = 200;
    ep.respond = () => ({ status, body: JSON.stringify({ status: 'shipped', ticket_id: 'T-1' }) });
    const turn = async (session: string, reply: Json) => {
      f.setBehaviour({ reply: script(reply as never, 'Ok.') });
      return ask(t, agent.id, session, 'Please');
    };
    const doCall = call('open_ticket', { subject: 'Lid' });
    const done = await turn('a', doCall);
    await settle(t, agent.id, done.action.run_id, 'confirm', { session_id: 'a' });
    const cancelled = await turn('b', doCall);
    await settle(t, agent.id, cancelled.action.run_id, 'cancel', { session_id: 'b' });
    const expired = await turn('c', doCall);
    clock.advance(31 * 60_000);
    await settle(t, agent.id, expired.action.run_id, 'confirm', { session_id: 'c' });
    await turn('d', call('order_status', { order_id: '1' }));
    status = 500;
    await turn('d', call('order_status', { order_id: '2' }));

    const stats = await sendExpect(t.app, token, 'GET', `/api/analytics/chatbot/${agent.id}/actions?days=30`);
    const byName = Object.fromEntries((stats.actions as Json[]).map((a) => [a.action_name, a]));
    expect(byName.open_ticket).toEqual({
      action_id: ticket.id,
      action_name: 'open_ticket',
      action_type: 'do',
      runs: 3,
      confirmed: 1,
      succeeded: 1,
      failed: 0,
      cancelled: 1,
      expired: 1,
    });
    expect(byName.order_status).toEqual({
      action_id: lookup.id,
      action_name: 'order_status',
      action_type: 'lookup',
      runs: 2,
      confirmed: 0,
      succeeded: 1,
      failed: 1,
      cancelled: 0,
      expired: 0,
    });
    expect(await runsOf(t, token, agent.id, expired.conversation_id)).toMatchObject([{ status: 'expired' }]);
    const bad = await t.app.inject({
      method: 'GET',
      url: `/api/analytics/chatbot/${agent.id}/actions?days=0`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bad.statusCode).toBe(400);
  });
});
