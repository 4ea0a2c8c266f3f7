import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/webhooks/signing.js';
import { auth, useTestApps } from '../helpers/app.js';
import { chatRequests, providerSetup, publicChat } from '../helpers/chat.js';

/**
 * The first look at actions (issue 35): a model's tool call becomes a signed GET to the owner's
 * endpoint, and a `do` waits for the visitor's Confirm. The full matrix is actions*.test.ts.
 */
const apps = useTestApps({ env: { ALLOW_PRIVATE_URLS: 'true' } });

async function endpoint(answer: (req: http.IncomingMessage, body: string) => unknown) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer(req, body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  apps.before({ close: () => new Promise<void>((r) => server.close(() => r())) });
  return { url, seen };
}

describe('actions, first look', () => {
  it('a look-up: the tool call is a signed GET, only the listed fields reach the model', async () => {
    const shop = await endpoint(() => ({ status: 'shipped', internal: 'do not show' }));
    let step = 0;
    const { f, t, token, agent } = await providerSetup(
      apps,
      'openai',
      'sk-test',
      { name: 'Shop' },
      {
        behaviour: {
          reply: () =>
            step++ === 0
              ? { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A/1?x' } }] }
              : 'Your order has shipped.',
        },
      },
    );
    const created = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${agent.id}/actions`,
      headers: auth(token),
      payload: {
        type: 'lookup',
        name: 'order_status',
        description: 'Looks up an order',
        url: `${shop.url}/orders/{order_id}`,
        parameters: [{ name: 'order_id', description: 'the order number' }],
        response_fields: ['status'],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const secret = created.json().signing_secret as string;
    const res = await publicChat(t, agent.id, { message: 'Where is my order A/1?x', session_id: 's1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Your order has shipped.', action: null });
    expect(shop.seen).toHaveLength(1);
    expect(shop.seen[0]!.url).toBe('/orders/A%2F1%3Fx');
    const signature = String(shop.seen[0]!.headers['chat-agent-signature']);
    expect(verifySignature(secret, shop.seen[0]!.url, signature, Math.floor(Date.now() / 1000))).toBe(true);
    const second = chatRequests(f)[1]!.body.messages.at(-1);
    expect(second.role).toBe('tool');
    expect(JSON.parse(second.content)).toEqual({ status: 'shipped' });
  });

  it('a do: nothing is sent before Confirm, once after it', async () => {
    const desk = await endpoint(() => ({ ticket: 'T-7' }));
    const { t, token, agent } = await providerSetup(
      apps,
      'openai',
      'sk-test',
      { name: 'Desk' },
      {
        behaviour: { reply: { toolCalls: [{ name: 'open_ticket', arguments: { topic: 'broken lamp' } }] } },
      },
    );
    const created = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${agent.id}/actions`,
      headers: auth(token),
      payload: {
        type: 'do',
        name: 'open_ticket',
        description: 'Opens a support ticket',
        url: `${desk.url}/tickets`,
        parameters: [{ name: 'topic', description: 'what it is about' }],
        response_fields: ['ticket'],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const res = await publicChat(t, agent.id, { message: 'My lamp is broken', session_id: 's2' });
    expect(res.statusCode, res.body).toBe(200);
    const card = res.json().action;
    expect(card).toMatchObject({ type: 'do', inputs: { topic: 'broken lamp' }, sends: `POST ${desk.url}/tickets` });
    expect(desk.seen).toHaveLength(0);
    const confirm = (session: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${agent.id}/action-runs/${card.run_id}/confirm`,
        payload: { session_id: session },
      });
    expect((await confirm('someone-else')).statusCode).toBe(404);
    const done = await confirm('s2');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ message: 'Done. ticket: T-7', run: { status: 'succeeded' } });
    expect((await confirm('s2')).json().message).toBe('This was done already.');
    expect(desk.seen).toHaveLength(1);
    expect(JSON.parse(desk.seen[0]!.body)).toMatchObject({ action: 'open_ticket', inputs: { topic: 'broken lamp' } });
  });
});
