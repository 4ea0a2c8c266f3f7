import type http from 'node:http';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { describeSlot } from '../../src/modules/actions/booking.js';
import { verifySignature } from '../../src/modules/webhooks/signing.js';
import { actionBody } from '../helpers/actions.js';
import { ROOMY_PLAN } from '../helpers/app.js';
import { shot, startSite, startTinyServer, withPage } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import type { FakeToolReply, RecordedRequest } from '../helpers/fake-llm.js';
import { askWidget, FAVICON, openWidget, widgetIdle } from '../helpers/widget-page.js';

/**
 * Actions in the widget (issue 35 parts 2 and 4) in real Chromium, on a third-party page: the
 * model calls a `do` action and the visitor confirms its card before anything is sent; a booking
 * from the owner's iCalendar feed is picked, confirmed and becomes a lead; and without a provider
 * key the actions are buttons, a look-up's form filled and sent. The owner's endpoint and feed are
 * plain HTTP servers on loopback (ALLOW_PRIVATE_URLS), recording what they get.
 */

const e2e = useE2eApp({
  owner: true,
  plans: { free: ROOMY_PLAN },
  env: { ALLOW_PRIVATE_URLS: 'true' },
  llm: { reply: 'Happy to help.', chunks: 2 },
});
const { api, newAgent } = e2e;

interface EndpointCall {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The owner's endpoint: records every request and answers `answer` as JSON. */
async function ownerEndpoint(answer: (call: EndpointCall) => unknown) {
  const calls: EndpointCall[] = [];
  const server = e2e.track(
    await startTinyServer((req, res, body) => {
      const call = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('utf8') };
      calls.push(call);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(call)));
    }),
  );
  return { url: server.url, calls };
}

/** The model calls `name` with `args` once; given the tool's result (never, as the turn pauses) it answers in words. */
function modelCalls(name: string, args: Record<string, unknown>) {
  e2e.llm.setBehaviour({
    reply: (req: RecordedRequest): string | FakeToolReply =>
      (req.body?.messages ?? []).some((m: { role?: string }) => m.role === 'tool')
        ? 'That is done.'
        : { toolCalls: [{ name, arguments: args }] },
  });
}

type Json = Record<string, any>;
/** a tool call of the model: the tool's name and its arguments */
type ToolCall = [name: string, args: Record<string, unknown>];

/** A new agent (`settings` on top) with the owner's endpoint answering `answer`, and the action `body` on it. */
async function agentWithAction(
  answer: (call: EndpointCall) => unknown,
  body: (endpointUrl: string) => Json,
  settings?: Json,
) {
  const agent = await newAgent(settings);
  const endpoint = await ownerEndpoint(answer);
  const action = await api('POST', `/api/chatbots/${agent.id}/actions`, body(endpoint.url));
  return { agent, endpoint, action };
}

/**
 * The model calls `name` with `args`; on a page of the agent's site the visitor asks `question`, and
 * `then` goes on with the card the answer shows (the group named `cardName`).
 */
async function askForCard(
  agentId: string,
  [name, args]: ToolCall,
  question: string,
  cardName: string,
  then: (page: Page, dialog: Locator, card: Locator, url: string) => Promise<void>,
) {
  modelCalls(name, args);
  const url = await e2e.site(agentId, { extraPages: FAVICON });
  await withPage(e2e.browser.context, async (page) => {
    const dialog = await openWidget(page, url);
    await askWidget(page, dialog, question);
    await then(page, dialog, dialog.getByRole('group', { name: cardName }), url);
  });
}

function calendar(...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//booking//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

const plus30 = (iso: string) => new Date(Date.parse(iso) + 30 * 60_000).toISOString();

describe('actions in the widget', () => {
  it('a do action: the card shows what will be sent, nothing is sent until the visitor confirms, then once, signed', async () => {
    const { agent, endpoint, action } = await agentWithAction(
      () => ({ ticket: 'T-1001', internal_note: 'not for the visitor' }),
      (at) =>
        actionBody(
          'do',
          'create_ticket',
          'Open a support ticket',
          `${at}/tickets`,
          { subject: 'What the ticket is about' },
          ['ticket'],
        ),
    );
    const ask: ToolCall = ['create_ticket', { subject: 'Broken tap' }];
    const question = 'My tap is broken, please open a ticket.';
    await askForCard(
      agent.id,
      ask,
      question,
      'Action to confirm: Open a support ticket',
      async (page, dialog, card, url) => {
        await card.waitFor();
        expect(await dialog.locator('.msg.assistant').last().innerText()).toContain(
          'Please confirm: Open a support ticket',
        );
        expect(await card.locator('dt').allInnerTexts()).toEqual(['subject']);
        expect(await card.locator('dd').allInnerTexts()).toEqual(['Broken tap']);
        await card.getByText(`Will send: POST ${endpoint.url}/tickets`).waitFor();
        // shown, not sent
        expect(endpoint.calls).toEqual([]);
        await shot(dialog, 'widget-action-card.png');

        // the visitor goes on to another page of the site (here: the same again): the card is still there
        const again = await openWidget(page, url);
        const kept = again.getByRole('group', { name: 'Action to confirm: Open a support ticket' });
        await kept.getByText(`Will send: POST ${endpoint.url}/tickets`).waitFor();
        await kept.getByRole('button', { name: 'Confirm' }).click();
        await again.locator('.msg.assistant', { hasText: 'Done. ticket: T-1001' }).waitFor();
        await kept.getByRole('status').getByText('Done', { exact: true }).waitFor();
        // no longer actionable, also when shown again
        expect(await kept.getByRole('button').count()).toBe(0);
        const later = await openWidget(page, url);
        await later.locator('.msg.assistant', { hasText: 'Done. ticket: T-1001' }).waitFor();
        const ended = later.getByRole('group', { name: 'Action to confirm: Open a support ticket' });
        expect(await ended.getByRole('status').innerText()).toBe('Done');
        expect(await ended.getByRole('button').count()).toBe(0);
      },
    );

    expect(endpoint.calls).toHaveLength(1);
    const [call] = endpoint.calls;
    expect(call).toMatchObject({ method: 'POST', url: '/tickets' });
    expect(call!.headers['chat-agent-action']).toBe('create_ticket');
    const signature = String(call!.headers['chat-agent-signature']);
    expect(verifySignature(action.signing_secret, call!.body, signature, Math.floor(Date.now() / 1000))).toBe(true);
    expect(JSON.parse(call!.body)).toMatchObject({ action: 'create_ticket', inputs: { subject: 'Broken tap' } });
  }, 90_000);

  it('Cancel on a do card: nothing is sent, the card says Cancelled', async () => {
    const { agent, endpoint } = await agentWithAction(
      () => ({ ok: true }),
      (at) =>
        actionBody('do', 'cancel_order', 'Cancel an order', `${at}/orders/{order_id}/cancel`, {
          order_id: 'The order number',
        }),
    );
    const ask: ToolCall = ['cancel_order', { order_id: '1003' }];
    await askForCard(
      agent.id,
      ask,
      'Cancel order 1003',
      'Action to confirm: Cancel an order',
      async (_page, dialog, card) => {
        await card.getByText(`Will send: POST ${endpoint.url}/orders/1003/cancel`).waitFor();
        await card.getByRole('button', { name: 'Cancel' }).click();
        await dialog.locator('.msg.assistant', { hasText: 'Cancelled. Nothing was sent.' }).waitFor();
        await card.getByRole('status').getByText('Cancelled', { exact: true }).waitFor();
        expect(await card.getByRole('button').count()).toBe(0);
      },
    );
    expect(endpoint.calls).toEqual([]);
  }, 90_000);

  it('a booking: the visitor picks a free time, gives an e-mail and confirms; a time taken meanwhile is picked again; the booking is a lead', async () => {
    const agent = await newAgent();
    // one event long past, and whatever the owner's calendar gets meanwhile (`taken`)
    const taken: string[] = [];
    const ics = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const event = (uid: string, start: string, end: string) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20200101T000000Z',
      'SUMMARY:Busy',
      `DTSTART:${ics(start)}`,
      `DTEND:${ics(end)}`,
      'END:VEVENT',
    ];
    const feed = e2e.track(
      await startSite({
        '/team.ics': () => ({
          type: 'text/calendar; charset=utf-8',
          body: calendar(
            ...event('past', '2020-03-02T10:00:00.000Z', '2020-03-02T11:00:00.000Z'),
            ...taken.flatMap((start, i) => event(`taken-${i}`, start, plus30(start))),
          ),
        }),
      }),
    );
    await api('POST', `/api/chatbots/${agent.id}/actions`, {
      type: 'booking',
      name: 'book_call',
      description: 'Book a call with our team',
      calendar_url: `${feed.url}/team.ics`,
    });
    const cardName = 'Book a time: Book a call with our team';
    await askForCard(agent.id, ['book_call', {}], 'Can I book a call?', cardName, async (_page, dialog, card) => {
      await card.getByRole('group', { name: 'Pick a time (UTC)' }).waitFor();
      const radios = card.getByRole('radio');
      expect(await radios.count()).toBeGreaterThan(2);
      // labelled in the visitor's locale and the card's zone: the start's time of day in UTC
      const hhmm = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit' });
      const first = await radios.nth(1).inputValue();
      expect(await card.locator('label.slot').nth(1).innerText()).toContain(hhmm.format(new Date(first)));
      await radios.nth(1).check();
      await card.getByRole('textbox', { name: 'Your e-mail (for the invitation)' }).fill('ada@example.com');
      await card.getByRole('textbox', { name: 'Your name (optional)' }).fill('Ada Lovelace');
      await shot(dialog, 'widget-booking-card.png');

      // someone takes that time before the visitor confirms: the card stays, saying so
      taken.push(first);
      await card.getByRole('button', { name: 'Confirm' }).click();
      await card.getByRole('status').getByText('That time is no longer free; please pick another.').waitFor();
      expect(await card.getByRole('button', { name: 'Confirm' }).isEnabled()).toBe(true);

      const start = await radios.nth(2).inputValue();
      await radios.nth(2).check();
      await card.getByRole('button', { name: 'Confirm' }).click();
      const booked = `Booked: ${describeSlot({ start, end: plus30(start) }, 'UTC')}. An invitation is on its way to ada@example.com.`;
      await dialog.locator('.msg.assistant', { hasText: booked }).waitFor();
      await card.getByRole('status').getByText('Done', { exact: true }).waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      expect(await radios.nth(2).isDisabled()).toBe(true);
      await shot(dialog, 'widget-booking-done.png');
    });

    const leads = await api('GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({ name: 'Ada Lovelace' });
    expect(leads[0].conversation_id).toEqual(expect.any(String));
  }, 90_000);

  it('without a provider key the actions are buttons: a look-up form is filled and its result shows', async () => {
    // the agent's provider has no key on this server: no model to call its actions
    const { agent, endpoint } = await agentWithAction(
      () => ({ status: 'shipped', carrier_secret: 'never shown' }),
      (at) =>
        actionBody(
          'lookup',
          'order_status',
          'Check an order',
          `${at}/orders/{order_id}`,
          { order_id: 'Order number' },
          ['status'],
        ),
      { provider: 'anthropic' },
    );
    const modelCallsBefore = e2e.llm.requests.length;
    const url = await e2e.site(agent.id, { extraPages: FAVICON });

    await withPage(e2e.browser.context, async (page) => {
      const dialog = await openWidget(page, url);
      const buttons = dialog.getByRole('group', { name: 'Actions' });
      await buttons.getByRole('button', { name: 'Check an order' }).click();
      const form = dialog.getByRole('form', { name: 'Check an order' });
      const field = form.getByRole('textbox', { name: 'Order number' });
      expect(await field.getAttribute('required')).not.toBeNull();
      await field.fill('1003');
      await shot(dialog, 'widget-action-buttons.png');
      await form.getByRole('button', { name: 'Continue' }).click();
      await dialog.locator('.msg.user', { hasText: 'Check an order (order_id: 1003)' }).waitFor();
      await dialog.locator('.msg.assistant', { hasText: 'status: shipped' }).waitFor();
      await widgetIdle(page);
      expect(await form.count()).toBe(0);
      expect(await dialog.getByText('never shown').count()).toBe(0);
      await shot(dialog, 'widget-action-lookup.png');
    });

    expect(endpoint.calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /orders/1003']);
    expect(e2e.llm.requests.length).toBe(modelCallsBefore);
  }, 90_000);
});
