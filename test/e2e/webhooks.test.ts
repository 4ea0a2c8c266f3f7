import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { shootBothWidths } from '../helpers/admin.js';
import { PASSWORD, registerUser } from '../helpers/app.js';
import { startTinyServer, type TinyServer } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Webhooks in the admin UI, in real Chromium against the real app and a receiver on 127.0.0.1
 * (issue 23.6): the owner adds a webhook on the Account page, copies the secret shown once, sends a
 * test event, and sees it delivered in the log; the receiver checks the signature with the copied
 * secret. Screenshots at desktop width and 375 px (test-artifacts/webhooks-*.png).
 */

declare const navigator: any;

const e2e = useE2eApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
let receiver: TinyServer;
let secret = '';
const received: Array<{ event: string; verified: boolean; body: string }> = [];

function verify(rawBody: string, header: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=')));
  const ts = Number(parts.t);
  if (!secret || !Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 300 || typeof parts.v1 !== 'string')
    return false;
  const expected = createHmac('sha256', secret).update(`${ts}.${rawBody}`).digest('hex');
  return parts.v1.length === expected.length && timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
}

/** Screenshots at desktop width and at 375 px; at 375 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) => shootBothWidths(page, 'webhooks', name);

beforeAll(async () => {
  receiver = e2e.track(
    await startTinyServer((req, res, body) => {
      const raw = body.toString('utf8');
      const verified = verify(raw, String(req.headers['chat-agent-signature'] ?? ''));
      received.push({ event: String(req.headers['chat-agent-event']), verified, body: raw });
      res.statusCode = verified ? 200 : 401;
      res.end();
    }),
  );
  await e2e.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.appUrl });
}, 60_000);

describe('webhooks in the admin UI', () => {
  it('adds a webhook, copies its secret, sends a test event and sees it delivered', async () => {
    const { email } = await registerUser(e2e.t.app, { name: 'Hook Owner' });
    const page = await e2e.browser.context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${e2e.appUrl}/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/#\/agents$/);
    await page.goto(`${e2e.appUrl}/#/account`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();

    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page.getByRole('checkbox', { name: /conversation\.escalated/ }).check();
    await shoot(page, 'add');
    await page.getByRole('form', { name: 'Add webhook' }).getByRole('button', { name: 'Add webhook' }).click();

    const shown = page.getByLabel('Signing secret');
    await shown.waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await shown.inputValue()).toBe(secret);
    const card = page.getByRole('article', { name: `Webhook ${receiver.url}/hooks` });
    await card.getByText('lead.created, conversation.escalated').waitFor();
    await shoot(page, 'secret');

    // the secret is shown once: after "Done" and a reload it is nowhere on the page
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await card.waitFor();
    expect(await page.content()).not.toContain(secret);

    await card.getByRole('button', { name: 'Send test event' }).click();
    const log = card.getByRole('table', { name: 'Deliveries' });
    // the log opens with the queued ping; once the queue has sent it, Refresh shows it delivered
    await log.getByText('ping').waitFor();
    await e2e.t.app.webhookJobs.idle();
    await card.getByRole('button', { name: 'Refresh' }).click();
    await log.getByText('delivered').waitFor();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ event: 'ping', verified: true });
    expect(JSON.parse(received[0]!.body)).toMatchObject({
      event: 'ping',
      data: { message: 'A test event sent from the admin.' },
    });
    await log.getByText('HTTP 200').waitFor();
    await shoot(page, 'delivered');

    // disabling shows at once
    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByText('Disabled').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
