import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/webhooks/signing.js';
import { actionBody } from '../helpers/actions.js';
import { secretShownOnce } from '../helpers/actions-admin.js';
import { expectRefusals, shootBothWidths, withPageAs } from '../helpers/admin.js';
import { startTinyServer, type TinyServer } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Actions in the admin UI (issue 35, parts 2 and 3), in real Chromium against the real app and the
 * owner's endpoint on 127.0.0.1: the owner adds a look-up through the agent's Actions tab, copies
 * its signing secret (shown once), edits it, reads the server's refusal of a URL with a
 * placeholder in its host, turns it off and on, and deletes it; adds a do (a URL naming the visitor
 * makes it for verified visitors only) and a booking with the same form. Then a visitor's run of a look-up
 * shows in the transcript among the messages and in the agent's analytics.
 * Screenshots: test-artifacts/actions-*.png.
 */

declare const navigator: any, document: any;

const e2e = useE2eApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, owner: true });
let endpoint: TinyServer;
/** what the endpoint was asked: path and query, and the signature header */
const calls: Array<{ path: string; signature: string }> = [];

const shoot = (page: Page, name: string) => shootBothWidths(page, 'actions', name);

beforeAll(async () => {
  endpoint = e2e.track(
    await startTinyServer((req, res) => {
      calls.push({ path: req.url ?? '', signature: String(req.headers['chat-agent-signature'] ?? '') });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'shipped', internal_note: 'never shown' }));
    }),
  );
  await e2e.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.appUrl });
}, 60_000);

describe('actions in the admin UI', () => {
  it('adds a look-up through the form, shows its secret once, edits it, shows a refusal, deletes it', async () => {
    const agent = await e2e.newAgent();
    const base = `/api/chatbots/${agent.id}/actions`;
    await withPageAs(
      e2e.browser.context,
      e2e.appUrl,
      e2e.token,
      `#/agents/${agent.id}/actions`,
      async (page, errors) => {
        expect(
          await page
            .getByRole('navigation', { name: 'Agent sections' })
            .getByRole('link', { name: 'Actions' })
            .getAttribute('aria-current'),
        ).toBe('page');
        await page.getByText('No actions yet.').waitFor();
        await page.getByRole('heading', { name: 'What actions do' }).waitFor();

        await page.getByRole('button', { name: 'Add action' }).click();
        const form = page.getByRole('form', { name: 'Add action' });
        expect(await form.getByRole('radio', { name: /^Look-up/ }).isChecked()).toBe(true);
        await form.getByLabel(/^Name/).fill('order_status');
        await form.getByLabel(/^Description/).fill("Looks up an order's status by its number.");
        await form.getByLabel(/^URL template/).fill(`${endpoint.url}/orders/{order_id}`);
        await form.getByRole('button', { name: 'Add parameter' }).click();
        await form.getByLabel('Parameter 1 name').fill('order_id');
        await form.getByLabel('Parameter 1 description').fill('The order number, e.g. 10234');
        await form.getByLabel(/^Response fields/).fill('status');
        await shoot(page, 'add');
        await form.getByRole('button', { name: 'Add action' }).click();

        // the signing secret, once
        const shown = page.getByLabel('Signing secret');
        await shown.waitFor();
        await page.getByRole('button', { name: 'Copy secret' }).click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        const secret = await page.evaluate(() => navigator.clipboard.readText());
        expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
        expect(await shown.inputValue()).toBe(secret);
        const row = page.getByRole('listitem', { name: 'Action order_status' });
        await row.getByText("Looks up an order's status by its number.").waitFor();
        await row.getByText('Look-up').waitFor();
        await shoot(page, 'secret');
        const [created] = await e2e.api('GET', base);
        expect(created).toMatchObject({
          type: 'lookup',
          name: 'order_status',
          url: `${endpoint.url}/orders/{order_id}`,
          parameters: [{ name: 'order_id', description: 'The order number, e.g. 10234', required: true }],
          response_fields: ['status'],
          requires_verified: false,
          enabled: true,
        });
        await secretShownOnce(page, row, secret);

        // edit: a placeholder in the host is refused by the server, its words shown by the form
        await row.getByRole('button', { name: 'Edit' }).click();
        const edit = page.getByRole('form', { name: 'Edit action order_status' });
        expect(await edit.getByRole('radio', { name: /^Do/ }).isDisabled()).toBe(true);
        await edit.getByLabel(/^Description/).fill("Tells an order's status and delivery date.");
        await edit.getByLabel(/^URL template/).fill('http://{order_id}.shop.example/orders');
        const before = errors.length;
        await edit.getByRole('button', { name: 'Save action' }).click();
        await edit
          .getByRole('alert')
          .getByText('url: placeholders may stand only in the path and the query, not in the host')
          .waitFor();
        expectRefusals(errors, before, 400);
        await shoot(page, 'refused');
        await edit.getByLabel(/^URL template/).fill(`${endpoint.url}/orders/{order_id}?lang=en`);
        await edit.getByLabel(/^Response fields/).fill('status\ndelivery.date');
        await edit.getByRole('button', { name: 'Save action' }).click();
        await edit.waitFor({ state: 'detached' });
        // focus goes back to the button that opened the form
        await expect
          .poll(() => row.getByRole('button', { name: 'Edit' }).evaluate((el) => el === document.activeElement))
          .toBe(true);
        await row.getByText("Tells an order's status and delivery date.").waitFor();
        const [edited] = await e2e.api('GET', base);
        expect(edited).toMatchObject({
          id: created.id,
          url: `${endpoint.url}/orders/{order_id}?lang=en`,
          description: "Tells an order's status and delivery date.",
          response_fields: ['status', 'delivery.date'],
        });

        // off and on again
        const enabled = row.getByRole('switch', { name: 'Enabled' });
        await enabled.uncheck();
        await row.getByText('off', { exact: true }).waitFor();
        expect((await e2e.api('GET', `${base}/${created.id}`)).enabled).toBe(false);
        await enabled.check();
        await row.getByText('off', { exact: true }).waitFor({ state: 'detached' });
        expect((await e2e.api('GET', `${base}/${created.id}`)).enabled).toBe(true);

        // delete, after confirming
        await row.getByRole('button', { name: 'Delete' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete the action order_status?' });
        await dialog.getByRole('button', { name: 'Delete action' }).click();
        await page.getByText('No actions yet.').waitFor();
        expect(await e2e.api('GET', base)).toEqual([]);
      },
    );
  });

  it('adds a do for verified visitors and a booking through the same form', async () => {
    const agent = await e2e.newAgent();
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, `#/agents/${agent.id}/actions`, async (page) => {
      await page.getByRole('button', { name: 'Add action' }).click();
      let form = page.getByRole('form', { name: 'Add action' });
      await form.getByRole('radio', { name: /^Do/ }).check();
      await form.getByLabel(/^Name/).fill('cancel_order');
      await form.getByLabel(/^Description/).fill('Cancels an order that has not shipped yet.');
      // a URL naming the visitor runs only for a verified visitor: the box says so and cannot be unticked
      await form.getByLabel(/^URL template/).fill(`${endpoint.url}/customers/{{user.id}}/orders/{order_id}/cancel`);
      const verified = form.getByRole('checkbox', { name: /^Only for verified visitors/ });
      expect(await verified.isChecked()).toBe(true);
      expect(await verified.isDisabled()).toBe(true);
      await form.getByRole('button', { name: 'Add parameter' }).click();
      await form.getByLabel('Parameter 1 name').fill('order_id');
      await form.getByLabel('Parameter 1 description').fill('The order number');
      await form.getByRole('button', { name: 'Add parameter' }).click();
      await form.getByLabel('Parameter 2 name').fill('reason');
      await form.getByLabel('Parameter 2 description').fill('Why, in a few words');
      await form.getByRole('checkbox', { name: 'Required' }).nth(1).uncheck();
      await form.getByRole('button', { name: 'Add action' }).click();
      const shownSecret = page.getByLabel('Signing secret');
      await shownSecret.waitFor();
      const cancelSecret = await shownSecret.inputValue();
      const cancelRow = page.getByRole('listitem', { name: 'Action cancel_order' });
      await cancelRow.getByText('verified visitors').waitFor();
      await secretShownOnce(page, cancelRow, cancelSecret);

      await page.getByRole('button', { name: 'Add action' }).click();
      form = page.getByRole('form', { name: 'Add action' });
      await form.getByRole('radio', { name: /^Booking/ }).check();
      await form.getByText('office hours').waitFor();
      expect(await form.getByLabel(/^URL template/).count()).toBe(0);
      await form.getByLabel(/^Name/).fill('book_call');
      await form.getByLabel(/^Description/).fill('Books a 45-minute call with our team.');
      await form.getByLabel(/^Calendar feed URL/).fill(`${endpoint.url}/calendar.ics`);
      await form.getByLabel(/^Slot length/).fill('45');
      await form.getByLabel(/^Days ahead/).fill('10');
      await shoot(page, 'booking');
      await form.getByRole('button', { name: 'Add action' }).click();
      await page.getByRole('listitem', { name: 'Action book_call' }).getByText('Booking').waitFor();
    });
    const [cancel, booking] = await e2e.api('GET', `/api/chatbots/${agent.id}/actions`);
    expect(cancel).toMatchObject({
      type: 'do',
      url: `${endpoint.url}/customers/{{user.id}}/orders/{order_id}/cancel`,
      parameters: [
        { name: 'order_id', required: true },
        { name: 'reason', required: false },
      ],
      requires_verified: true,
    });
    expect(booking).toMatchObject({
      type: 'booking',
      url: null,
      calendar_url: `${endpoint.url}/calendar.ics`,
      slot_minutes: 45,
      days_ahead: 10,
      parameters: [],
    });
  });

  it("a visitor's look-up shows in the transcript among the messages and in the agent's analytics", async () => {
    const agent = await e2e.newAgent();
    const lookup = actionBody(
      'lookup',
      'order_status',
      "Looks up an order's status by its number.",
      `${endpoint.url}/orders/{order_id}`,
      { order_id: 'The order number' },
      ['status'],
    );
    const action = await e2e.api('POST', `/api/chatbots/${agent.id}/actions`, lookup);
    // the visitor presses the action's button (no model on this server) with an order number
    const res = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}/actions/${action.id}/start`,
      payload: { session_id: 'visitor-1', inputs: { order_id: '10234' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const call = calls.find((c) => c.path === '/orders/10234');
    expect(call, JSON.stringify(calls)).toBeDefined();
    expect(verifySignature(action.signing_secret, call!.path, call!.signature, Math.floor(Date.now() / 1000))).toBe(
      true,
    );
    const [conversation] = await e2e.api('GET', `/api/chat/conversations/${agent.id}`);

    const hash = `#/agents/${agent.id}/conversations/${conversation.id}`;
    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, hash, async (page) => {
      const transcript = page.getByRole('region', { name: 'Transcript' });
      const log = transcript.getByRole('list', { name: 'Messages' });
      const run = log.getByRole('listitem', { name: 'Action order_status' });
      await run.getByText('order_id: 10234').waitFor();
      await run.getByText('done', { exact: true }).waitFor();
      await run.getByText(/HTTP 200/).waitFor();
      // in time order: the run comes before the answer that reports it
      const items = await log.locator(':scope > li').evaluateAll((lis) => lis.map((li) => li.className));
      const at = items.findIndex((c) => c.includes('chat-action'));
      expect(at, items.join(' | ')).toBeGreaterThanOrEqual(0);
      expect(
        items.slice(at + 1).some((c) => c.includes('chat-assistant')),
        items.join(' | '),
      ).toBe(true);
      await shoot(page, 'transcript');

      await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Analytics' }).click();
      const table = page.getByRole('table', { name: 'Action runs' });
      const cells = table.getByRole('row').nth(1).getByRole('cell');
      await cells.first().getByText('order_status').waitFor();
      // action, runs, confirmed (— for a look-up), done, failed, cancelled, expired
      expect((await cells.allInnerTexts()).slice(1)).toEqual(['1', '—', '1', '0', '0', '0']);
      await shoot(page, 'analytics');
    });
  });
});
