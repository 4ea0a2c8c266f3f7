import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/webhooks/signing.js';
import { ask, call, orderLookup, script, settle, ticketDo, useActionApps } from '../helpers/actions.js';
import { chatRequests } from '../helpers/chat.js';

/**
 * The first look at actions (issue 35): a model's tool call becomes a signed GET to the owner's
 * endpoint, and a `do` waits for the visitor's Confirm. The full matrix is actions*.test.ts.
 */
const { withModel } = useActionApps();

describe('actions, first look', () => {
  it('a look-up: the tool call is a signed GET, only the listed fields reach the model', async () => {
    const { ep, f, t, agent, made } = await withModel(
      script(call('order_status', { order_id: 'A/1?x' }), 'Your order has shipped.'),
      (e) => [
        orderLookup(e, {
          description: 'Looks up an order',
          url: `${e.url}/orders/{order_id}`,
          response_fields: ['status'],
        }),
      ],
      { agent: { name: 'Shop' } },
    );
    ep.respond = () => ({ body: JSON.stringify({ status: 'shipped', internal: 'do not show' }) });
    const secret = made[0]!.signing_secret as string;
    const answer = await ask(t, agent.id, 's1', 'Where is my order A/1?x');
    expect(answer).toMatchObject({ message: 'Your order has shipped.', action: null });
    expect(ep.calls).toHaveLength(1);
    expect(ep.calls[0]!.target).toBe('/orders/A%2F1%3Fx');
    const signature = String(ep.calls[0]!.headers['chat-agent-signature']);
    expect(verifySignature(secret, ep.calls[0]!.target, signature, Math.floor(Date.now() / 1000))).toBe(true);
    const second = chatRequests(f)[1]!.body.messages.at(-1);
    expect(second.role).toBe('tool');
    expect(JSON.parse(second.content)).toEqual({ status: 'shipped' });
  });

  it('a do: nothing is sent before Confirm, once after it', async () => {
    const { ep, t, agent } = await withModel(
      script(call('open_ticket', { topic: 'broken lamp' })),
      (e) => [
        ticketDo(e, { parameters: [{ name: 'topic', description: 'what it is about' }], response_fields: ['ticket'] }),
      ],
      { agent: { name: 'Desk' } },
    );
    ep.respond = () => ({ body: JSON.stringify({ ticket: 'T-7' }) });
    const card = (await ask(t, agent.id, 's2', 'My lamp is broken')).action;
    expect(card).toMatchObject({ type: 'do', inputs: { topic: 'broken lamp' }, sends: `POST ${ep.url}/tickets` });
    expect(ep.calls).toHaveLength(0);
    const confirm = (session: string) => settle(t, agent.id, card.run_id, 'confirm', { session_id: session });
    expect((await confirm('someone-else')).statusCode).toBe(404);
    const done = await confirm('s2');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ message: 'Done. ticket: T-7', run: { status: 'succeeded' } });
    expect((await confirm('s2')).json().message).toBe('This was done already.');
    expect(ep.calls).toHaveLength(1);
    expect(JSON.parse(ep.calls[0]!.body)).toMatchObject({ action: 'open_ticket', inputs: { topic: 'broken lamp' } });
  });
});
