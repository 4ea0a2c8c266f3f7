import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLoggedIn, settle, shootBothWidths, withPageAs } from '../helpers/admin.js';
import { apiOk, createAgent, PASSWORD, registerUser } from '../helpers/app.js';
import { watchErrors } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * Admin UI bugs a user found (issue 22.4), each shown in real Chromium against the real app (real
 * SQLite, no AI provider): the top-level Leads page showed none of the widget's leads; an unsaved
 * setting was lost when the tab was switched; Refresh dropped keyboard focus to <body>; the
 * chart's day labels overlapped on a phone. Screens are photographed at desktop width and at
 * 390 px (test-artifacts/admin-fixes-*.png).
 */

// the page's globals inside page.evaluate callbacks (this file compiles without the DOM library)
declare const window: any, document: any, CanvasRenderingContext2D: any, Event: any;

const e2e = useE2eApp();

const ok = (
  token: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: Record<string, unknown>,
): Promise<any> => apiOk(e2e.t.app, token, method, url, payload);

/** What the widget's lead form sends (docs/API-NOTES.md "Widget leads"): the public route, no token. */
async function widgetLead(agentId: string, name: string, phone: string): Promise<void> {
  const res = await e2e.t.app.inject({
    method: 'POST',
    url: `/api/public/lead/${agentId}`,
    payload: { name, phone, session_id: `s-${name}` },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** withPage logged in as `token` at `hash` (see withPageAs). */
const asUser = (token: string, hash: string, use: (page: Page, errors: string[]) => Promise<void>) =>
  withPageAs(e2e.browser.context, e2e.appUrl, token, hash, use);

/** A new page logged in as `token` at `hash`, `width` px wide. */
async function openAs(token: string, hash: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const page = await e2e.browser.context.newPage();
  await page.setViewportSize({ width, height: 800 });
  const errors = watchErrors(page);
  await openLoggedIn(page, e2e.appUrl, token, hash);
  return { page, errors };
}

/** Screenshots at desktop width and at 390 px (the page keeps its size); at 390 px nothing may stick out sideways. */
const shoot = (page: Page, name: string) =>
  shootBothWidths(page, 'admin-fixes', name, { settle: true, narrow: { width: 390, height: 800 }, keepViewport: true });

/** The tag and text of the focused element ("BODY" when focus was dropped). */
const focused = (page: Page) =>
  page.evaluate(() => `${document.activeElement?.tagName}:${(document.activeElement?.textContent ?? '').trim()}`);

describe('admin UI fixes (issue 22.4)', () => {
  it('the top-level Leads page lists the widget leads of all the owner’s agents', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Lena Leads' });
    const shop = await createAgent(e2e.t.app, token, { name: 'Shop helper' });
    const desk = await createAgent(e2e.t.app, token, { name: 'Help desk' });
    await widgetLead(shop.id, 'Vera Visitor', '+47 555 01 234');
    await widgetLead(desk.id, 'Walt Walker', '+44 20 7946 0001');
    // another account's lead stays out of this owner's list
    const other = await registerUser(e2e.t.app);
    await widgetLead(
      (await createAgent(e2e.t.app, other.token, { name: 'Not mine' })).id,
      'Stranger Danger',
      '+1 555 0100',
    );

    await asUser(token, '#/leads', async (page) => {
      await page.getByRole('heading', { name: 'Leads', exact: true }).waitFor();
      const table = page.getByRole('table', { name: 'Widget leads of all agents' });
      await table.getByText('Vera Visitor').waitFor();
      const rows = await table.locator('tbody tr').allInnerTexts();
      expect(rows).toHaveLength(2);
      expect(rows.join('\n')).toContain('+44 20 7946 0001');
      expect(rows.find((r) => r.includes('Vera Visitor'))).toContain('Shop helper');
      expect(rows.find((r) => r.includes('Walt Walker'))).toContain('Help desk');
      expect(rows.join('\n')).not.toContain('Stranger');
      // the agent's name leads to that agent's own Leads tab
      expect(await table.getByRole('link', { name: 'Help desk' }).getAttribute('href')).toBe(
        `#/agents/${desk.id}/leads`,
      );
      // the account's own list is empty, and says so in its own section only
      const own = page.getByRole('region', { name: 'Your own list' });
      await own.getByText('No leads yet.').waitFor();
      expect(
        await page.getByRole('region', { name: 'From your agents’ widgets' }).getByText('No leads yet').count(),
      ).toBe(0);
      await shoot(page, 'leads');
    });
  }, 60_000);

  it('an unsaved setting survives saving another section and switching tabs; leaving warns', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Sam Settings' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Draft keeper' });
    await asUser(token, `#/agents/${agent.id}/settings`, async (page) => {
      const general = page.getByRole('form', { name: 'General' });
      const behaviour = page.getByRole('form', { name: 'Behaviour' });
      await general.getByLabel('Welcome message').fill('Hello from the draft!');
      await behaviour.getByLabel('Instructions').fill('Answer in one sentence.');
      // saving Behaviour keeps the unsaved welcome message in General
      await behaviour.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Behaviour saved').waitFor();
      expect(await general.getByLabel('Welcome message').inputValue()).toBe('Hello from the draft!');

      // a round trip through another tab keeps it too
      await page.getByRole('link', { name: 'Knowledge', exact: true }).click();
      await page.waitForURL(/\/knowledge$/);
      await page.getByRole('link', { name: /^Settings/ }).click();
      await page.waitForURL(/\/settings$/);
      expect(await general.getByLabel('Welcome message').inputValue()).toBe('Hello from the draft!');
      expect(await general.getByRole('button', { name: 'Save' }).isEnabled()).toBe(true);

      // leaving the page while it is unsaved asks first: the browser's own prompt on unload...
      const prevented = await page.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      });
      expect(prevented).toBe(true);
      // ...and a dialog for a link out of the agent; Stay keeps the page and the draft
      await page.getByRole('link', { name: 'Agents', exact: true }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
      await dialog.waitFor();
      await shoot(page, 'settings-leave');
      await dialog.getByRole('button', { name: 'Stay' }).click();
      expect(page.url()).toMatch(/\/settings$/);
      expect(await general.getByLabel('Welcome message').inputValue()).toBe('Hello from the draft!');

      // saved, nothing is pending: no prompt, and links just go
      await general.getByRole('button', { name: 'Save' }).click();
      await page.getByText('General saved').waitFor();
      const stored = await ok(token, 'GET', `/api/chatbots/${agent.id}`);
      expect(stored).toMatchObject({
        welcome_message: 'Hello from the draft!',
        instructions: 'Answer in one sentence.',
      });
      // the page drops its leave guard once the saved state has rendered: polled, not read once
      await expect
        .poll(() =>
          page.evaluate(() => {
            const e = new Event('beforeunload', { cancelable: true });
            window.dispatchEvent(e);
            return e.defaultPrevented;
          }),
        )
        .toBe(false);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shoot(page, 'settings');
      await page.getByRole('link', { name: 'Agents', exact: true }).first().click();
      await page.waitForURL(/#\/agents$/);
    });
  }, 60_000);

  it('keyboard focus stays on Refresh after the list reloads', async () => {
    const { token } = await registerUser(e2e.t.app, { name: 'Kim Keyboard' });
    const agent = await createAgent(e2e.t.app, token, { name: 'Focus bot' });
    await widgetLead(agent.id, 'Fay Focus', '+47 555 09 876');
    await asUser(token, `#/agents/${agent.id}/leads`, async (page) => {
      /** Focuses the Refresh button with the keyboard, presses Enter, waits for the reload. */
      const refreshByKeyboard = async (scope: ReturnType<Page['locator']>, reloaded: string) => {
        const button = scope.getByRole('button', { name: 'Refresh' });
        await button.focus();
        expect(await focused(page)).toBe('BUTTON:Refresh');
        const answered = page.waitForResponse((r) => r.url().includes(reloaded) && r.request().method() === 'GET');
        await page.keyboard.press('Enter');
        await answered;
        await settle(page);
        await settle(page);
        expect(await focused(page), `focus after Refresh (${reloaded})`).toBe('BUTTON:Refresh');
        // and the keyboard still works from there: Enter reloads again
        const again = page.waitForResponse((r) => r.url().includes(reloaded) && r.request().method() === 'GET');
        await page.keyboard.press('Enter');
        await again;
        await settle(page);
        expect(await focused(page)).toBe('BUTTON:Refresh');
      };

      // the agent's Leads tab
      await page.getByRole('table', { name: 'Widget leads' }).getByText('Fay Focus').waitFor();
      await refreshByKeyboard(page.locator('.tab-body'), `/api/chatbot-leads/${agent.id}`);
      // the agent's Conversations tab
      await page.getByRole('link', { name: 'Conversations', exact: true }).click();
      await page.getByText('No conversations yet').waitFor();
      await refreshByKeyboard(page.locator('.tab-body'), `/api/chat/conversations/${agent.id}`);
      // the top-level Leads page
      await page.getByRole('link', { name: 'Leads', exact: true }).first().click();
      await page.getByRole('table', { name: 'Widget leads of all agents' }).getByText('Fay Focus').waitFor();
      await refreshByKeyboard(
        page.getByRole('region', { name: 'From your agents’ widgets' }),
        `/api/chatbot-leads/${agent.id}`,
      );
    });
  }, 60_000);

  describe('chart day labels at 390 px', () => {
    let token: string;
    let agentId: string;

    beforeAll(async () => {
      ({ token } = await registerUser(e2e.t.app, { name: 'Chad Chart' }));
      agentId = (await createAgent(e2e.t.app, token, { name: 'Chart bot' })).id;
    }, 60_000);

    /**
     * uPlot draws its axis labels on a canvas, so the test records each fillText of the last
     * frame drawn (a full clearRect starts a frame) with its box, measured by the same context in
     * the same font, in canvas pixels.
     */
    async function dayLabelBoxes(
      page: Page,
    ): Promise<Array<{ text: string; left: number; right: number; top: number; bottom: number; canvasWidth: number }>> {
      return page.evaluate(() =>
        (window.__labels ?? []).filter((l: { text: string }) =>
          /^[A-Z][a-z]{2} \d{2}$|^\d{4}-\d{2}-\d{2}$/.test(l.text),
        ),
      );
    }

    async function openChart(hash: string, width: number): Promise<{ page: Page; errors: string[] }> {
      const page = await e2e.browser.context.newPage();
      await page.addInitScript(() => {
        const proto = CanvasRenderingContext2D.prototype;
        const fillText = proto.fillText;
        const clearRect = proto.clearRect;
        window.__labels = [];
        proto.clearRect = function (x: number, y: number, w: number, h: number) {
          if (x === 0 && y === 0 && w >= this.canvas.width && h >= this.canvas.height) window.__labels = [];
          return clearRect.call(this, x, y, w, h);
        };
        proto.fillText = function (text: string, x: number, y: number, ...rest: unknown[]) {
          const m = this.measureText(text);
          const tr = this.getTransform();
          const px = tr.a * x + tr.c * y + tr.e;
          const py = tr.b * x + tr.d * y + tr.f;
          const w = m.width * tr.a;
          const left =
            this.textAlign === 'center'
              ? px - w / 2
              : this.textAlign === 'right' || this.textAlign === 'end'
                ? px - w
                : px;
          const h = (m.actualBoundingBoxAscent + m.actualBoundingBoxDescent) * tr.d;
          window.__labels.push({
            text: String(text),
            left,
            right: left + w,
            top: py - h,
            bottom: py + h,
            canvasWidth: this.canvas.width,
          });
          return fillText.call(this, text, x, y, ...rest);
        };
      });
      await page.setViewportSize({ width, height: 800 });
      const errors = watchErrors(page);
      await openLoggedIn(page, e2e.appUrl, token, hash);
      await page.locator('[data-testid="daily-chart"] canvas').waitFor();
      await settle(page);
      await settle(page);
      return { page, errors };
    }

    function expectNoOverlap(labels: Awaited<ReturnType<typeof dayLabelBoxes>>, where: string): void {
      expect(labels.length, `${where}: day labels drawn`).toBeGreaterThanOrEqual(2);
      for (const l of labels) {
        expect(l.left, `${where}: "${l.text}" starts inside the canvas`).toBeGreaterThanOrEqual(0);
        expect(l.right, `${where}: "${l.text}" ends inside the canvas`).toBeLessThanOrEqual(l.canvasWidth);
      }
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) {
          const a = labels[i]!;
          const b = labels[j]!;
          const intersect = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          expect(
            intersect,
            `${where}: "${a.text}" [${a.left.toFixed(0)}-${a.right.toFixed(0)}] and "${b.text}" [${b.left.toFixed(0)}-${b.right.toFixed(0)}] overlap`,
          ).toBe(false);
        }
      }
    }

    for (const [name, hash] of [
      ['dashboard', '#/analytics'],
      ['agent', 'AGENT'],
    ] as const) {
      it(`${name} chart: no two day labels overlap at 390 px, for 7, 30 and 90 days`, async () => {
        const target = hash === 'AGENT' ? `#/agents/${agentId}/analytics` : hash;
        const { page, errors } = await openChart(target, 390);
        try {
          for (const days of [30, 7, 90]) {
            if (days !== 30) {
              await page.getByRole('button', { name: `${days} days` }).click();
              await page.waitForFunction(
                (d) => document.querySelector('[aria-pressed="true"]')?.textContent === `${d} days`,
                days,
              );
              await page.locator('[data-testid="daily-chart"] canvas').waitFor();
              await settle(page);
              await settle(page);
            }
            expectNoOverlap(await dayLabelBoxes(page), `${name}, ${days} days, 390 px`);
          }
          // and at desktop width, with room for more labels, still none overlap
          await page.setViewportSize({ width: 1280, height: 800 });
          await settle(page);
          await settle(page);
          expectNoOverlap(await dayLabelBoxes(page), `${name}, 90 days, 1280 px`);
          await page.getByRole('button', { name: '30 days' }).click();
          await shoot(page, `chart-${name}`);
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      }, 60_000);
    }
  });
});

describe('usage against the plan (issue 22.3)', () => {
  it("the dashboard shows the month's messages, storage and agents against the plan; the server's owner reads unlimited", async () => {
    // the first account of this app is the server's owner (plan `owner`); later ones get `free`
    await registerUser(e2e.t.app);
    const member = await registerUser(e2e.t.app);
    const first = e2e.t.database.sqlite
      .prepare(`SELECT email, plan_id FROM users ORDER BY created_at, rowid LIMIT 1`)
      .get() as { email: string; plan_id: string };
    expect(first.plan_id).toBe('owner');
    const login = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: first.email, password: PASSWORD },
    });
    const owner = { token: login.json().access_token as string };
    const agents = [];
    for (const name of ['One', 'Two', 'Three']) agents.push(await createAgent(e2e.t.app, member.token, { name }));
    for (const session of ['a', 'b']) {
      const res = await e2e.t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${agents[0]!.id}`,
        payload: { message: 'Are you open today?', session_id: session },
      });
      expect(res.statusCode).toBe(200);
    }

    const { page, errors } = await openAs(member.token, '#/analytics');
    const panel = page.getByRole('region', { name: /Usage/ });
    await panel.getByText('2 of 1,000').waitFor();
    const agentsMeter = panel.locator('[data-usage="Agents"]');
    expect(await agentsMeter.textContent()).toContain('3 of 3');
    expect(await agentsMeter.textContent()).toContain('Used up.');
    expect(await panel.locator('[data-usage="Knowledge storage"]').textContent()).toContain('of 200.0 MB');
    await shoot(page, 'usage');
    expect(errors).toEqual([]);
    await page.close();

    const own = await openAs(owner.token, '#/analytics');
    const ownPanel = own.page.getByRole('region', { name: /Usage/ });
    await ownPanel.getByText('(plan: owner)', { exact: false }).waitFor();
    expect(await ownPanel.locator('[data-usage="Messages to agents this month"]').textContent()).toContain(
      '(unlimited)',
    );
    expect(await ownPanel.getByRole('progressbar').count()).toBe(0);
    await own.page.close();
  });
});
