import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectRefusals, openLoggedIn } from '../helpers/admin.js';
import { ROOMY_PLAN } from '../helpers/app.js';
import { withPage } from '../helpers/browser.js';
import { contrastRatio } from '../../widget/src/shared/contrast.js';
import { expectNoSeriousViolations, WIDGET } from '../helpers/axe.js';
import { ask, useE2eApp } from '../helpers/e2e.js';
import { FAVICON, openWidget, widgetAnimationsDone, widgetTurnDone } from '../helpers/widget-page.js';

/**
 * WCAG 2.1 AA in real Chromium, checked by axe-core (test/helpers/axe.ts): the widget closed, open,
 * and after an answer (with a link and its sources) with the lead form asked in the conversation;
 * the share page; the admin pages. With the default colours and with owners' palettes, light,
 * dark and saturated, in both schemes: no serious or critical violation.
 */

const e2e = useE2eApp({
  owner: true,
  plans: { free: ROOMY_PLAN },
  llm: { reply: 'We are open 8:00 to 18:00. See [our hours page](https://example.com/hours).', chunks: 3 },
});
const { api, newAgent } = e2e;

/** Owners' palettes (the agent's colour fields); each is checked in the light and the dark scheme. */
const PALETTES: Record<string, Record<string, string>> = {
  default: {},
  // the issue's: emerald with amber, white text measured 2.53:1 and links 1.95:1
  saturated: { primary_color: '#10b981', accent_color: '#f59e0b' },
  'saturated orange and cyan': { primary_color: '#f97316', secondary_color: '#06b6d4', accent_color: '#22d3ee' },
  light: { primary_color: '#fde68a', secondary_color: '#fbcfe8', accent_color: '#fef08a' },
  dark: { primary_color: '#1e1b4b', secondary_color: '#0f172a', accent_color: '#1e3a8a' },
  // a dark end and a light end: no one text colour reads on both as chosen
  'dark to light': { primary_color: '#1e3a8a', secondary_color: '#fde047', accent_color: '#6b7280' },
};

/** An agent with `palette` in `theme`, knowledge to cite, and the lead form asked after the first answer. */
async function agentWith(palette: Record<string, string>, theme: 'light' | 'dark') {
  const agent = await newAgent({ ...palette, widget_theme: theme, lead_capture_enabled: true });
  await api('POST', `/api/sources/chatbot/${agent.id}/text`, {
    name: 'Opening hours',
    content: 'Acme opening hours: Monday to Friday, 8:00 to 18:00.',
  });
  return agent;
}

async function widgetJourney(page: Page, url: string, label: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: /chat/i }).first().waitFor();
  await expectNoSeriousViolations(page, `${label}, closed`, WIDGET);
  const dialog = await openWidget(page, url);
  // colours are measured once the window's opening fade is over
  await widgetAnimationsDone(page);
  await expectNoSeriousViolations(page, `${label}, open`, WIDGET);
  await ask(page, dialog.getByRole('textbox', { name: 'Type your message' }), 'When are you open?', 1);
  await dialog.getByRole('link', { name: 'our hours page' }).waitFor();
  await dialog.getByRole('textbox', { name: 'Name' }).waitFor();
  await widgetAnimationsDone(page);
  await expectNoSeriousViolations(page, `${label}, after an answer, with the lead form`, WIDGET);
}

describe('the widget meets WCAG 2.1 AA whatever colours the owner picks', () => {
  for (const [name, palette] of Object.entries(PALETTES)) {
    for (const theme of ['light', 'dark'] as const) {
      it(`${name} colours, ${theme} scheme: closed, open, after an answer with the lead form`, async () => {
        const agent = await agentWith(palette, theme);
        const url = await e2e.site(agent.id, { extraPages: FAVICON });
        await withPage(e2e.browser.context, (page) => widgetJourney(page, url, `${name}/${theme}`));
      }, 60_000);
    }
  }
});

/** `rgb(r, g, b)` (a computed colour) as `#rrggbb`. */
function hexOf(rgb: string): string {
  const m = /rgba?\((\d+), (\d+), (\d+)/.exec(rgb);
  if (!m) throw new Error(`not a colour: ${rgb}`);
  return `#${m
    .slice(1, 4)
    .map((c) => Number(c).toString(16).padStart(2, '0'))
    .join('')}`;
}

interface Ring {
  name: string;
  outline: string;
  offset: number;
  band: string;
  /** the colours around the ring: the window, the element's own background, the header's ends */
  around: string[];
}

/** Tabs through the open widget's window and reads each focused element's ring and what is around it. */
async function focusRings(page: Page, count: number): Promise<Ring[]> {
  const rings: Ring[] = [];
  for (let i = 0; i < count; i++) {
    await page.keyboard.press('Tab');
    rings.push(
      await page.evaluate(`(() => {
        const root = document.querySelector('${WIDGET}').shadowRoot;
        const el = root.activeElement;
        const s = getComputedStyle(el);
        const vars = getComputedStyle(root.querySelector('.root'));
        const around = [getComputedStyle(root.querySelector('.panel')).backgroundColor];
        if (!/rgba(0, 0, 0, 0)/.test(s.backgroundColor)) around.push(s.backgroundColor);
        if (el.closest('.header')) around.push(vars.getPropertyValue('--primary'), vars.getPropertyValue('--secondary'));
        return {
          name: el.getAttribute('aria-label') || el.tagName,
          outline: s.outlineStyle + ' ' + s.outlineWidth + ' ' + s.outlineColor,
          offset: parseFloat(s.outlineOffset),
          band: s.boxShadow,
          around,
        };
      })()`),
    );
  }
  return rings;
}

/** The colour `value` (rgb() or #hex) as #rrggbb. */
const asHex = (value: string) => (value.trim().startsWith('#') ? value.trim() : hexOf(value));

describe('focus rings and field borders reach 3:1 whatever the colours (WCAG 1.4.11)', () => {
  for (const name of ['default', 'saturated', 'light', 'dark', 'dark to light']) {
    for (const theme of ['light', 'dark'] as const) {
      it(`${name} colours, ${theme} scheme`, async () => {
        const agent = await agentWith(PALETTES[name]!, theme);
        const url = await e2e.site(agent.id, { extraPages: FAVICON });
        await withPage(e2e.browser.context, async (page) => {
          await page.goto(url);
          const launcher = page.getByRole('button', { name: /chat/i }).first();
          await launcher.focus();
          await page.keyboard.press('Enter');
          await widgetAnimationsDone(page);
          const rings = await focusRings(page, 5);
          expect(new Set(rings.map((r) => r.name))).toEqual(
            new Set(['Start a new conversation', 'Close chat', 'Messages', 'Type your message', 'Send message']),
          );
          for (const ring of rings) {
            // two tones: a near-black outline around a white band, 17:1 to each other
            expect(ring.outline, ring.name).toBe('solid 2px rgb(17, 24, 39)');
            expect(ring.band, ring.name).toMatch(/^rgb\(255, 255, 255\) 0px 0px 0px 2px( inset)?$/);
            for (const colour of ring.around.map(asHex)) {
              const best = Math.max(contrastRatio('#111827', colour), contrastRatio('#ffffff', colour));
              expect(best, `${ring.name}: the ring beside ${colour}`).toBeGreaterThanOrEqual(3);
            }
          }
          // the message list's ring is drawn inside its edges: the window around it cannot clip it
          expect(rings.find((r) => r.name === 'Messages')!.offset).toBeLessThan(0);

          // the fields' borders against the window and, for the form in the conversation, its card
          const borders = async (selector: string) =>
            (await page.evaluate(`(() => {
              const root = document.querySelector('${WIDGET}').shadowRoot;
              return [...root.querySelectorAll('${selector}')].map((el) => [
                getComputedStyle(el).borderTopColor,
                getComputedStyle(el.parentElement.closest('.lead-after, .panel')).backgroundColor,
              ]);
            })()`)) as Array<[string, string]>;
          const dialog = page.getByRole('dialog');
          await ask(page, dialog.getByRole('textbox', { name: 'Type your message' }), 'When are you open?', 1);
          await dialog.getByRole('textbox', { name: 'Name' }).waitFor();
          const fields = [...(await borders('.composer textarea')), ...(await borders('.lead input'))];
          expect(fields).toHaveLength(3);
          for (const [border, background] of fields)
            expect(
              contrastRatio(hexOf(border), hexOf(background)),
              `${border} on ${background}`,
            ).toBeGreaterThanOrEqual(3);
        });
      }, 60_000);
    }
  }
});

describe('the share page meets WCAG 2.1 AA', () => {
  for (const name of ['default', 'saturated', 'light']) {
    it(`${name} colours`, async () => {
      const agent = await agentWith(PALETTES[name]!, 'light');
      await withPage(e2e.browser.context, async (page, errors) => {
        await page.goto(`${e2e.appUrl}/chat/${agent.id}`);
        const box = page.getByRole('textbox', { name: 'Type your message' });
        await box.waitFor();
        await expectNoSeriousViolations(page, `share page ${name}`);
        await box.fill('When are you open?');
        await box.press('Enter');
        await page.getByRole('link', { name: 'our hours page' }).waitFor();
        await widgetTurnDone(page);
        await expectNoSeriousViolations(page, `share page ${name}, after an answer`);
        // the browser's own request for /favicon.ico, which the app does not serve
        expectRefusals(errors, 0, 404);
      });
    }, 60_000);
  }
});

describe('the admin UI meets WCAG 2.1 AA', () => {
  it('the login page', async () => {
    await withPage(e2e.browser.context, async (page) => {
      await page.goto(`${e2e.appUrl}/#/login`);
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      expect(await page.title()).toBe('Log in – Chat Agent');
      await expectNoSeriousViolations(page, 'login');
    });
  }, 60_000);

  it('every page of an agent and of the account, each with a title of its own', async () => {
    const agent = await agentWith(PALETTES.saturated!, 'light');
    const pages: Array<[string, string]> = [
      ['#/agents', 'Agents'],
      [`#/agents/${agent.id}/settings`, 'Settings: Acme helper'],
      [`#/agents/${agent.id}/knowledge`, 'Knowledge: Acme helper'],
      [`#/agents/${agent.id}/conversations`, 'Conversations: Acme helper'],
      [`#/agents/${agent.id}/leads`, 'Leads: Acme helper'],
      [`#/agents/${agent.id}/analytics`, 'Analytics: Acme helper'],
      [`#/agents/${agent.id}/share`, 'Embed & share: Acme helper'],
      ['#/inbox', 'Inbox'],
      ['#/analytics', 'Analytics'],
      ['#/leads', 'Leads'],
      ['#/account', 'Account'],
      ['#/admin', 'Admin'],
    ];
    await withPage(e2e.browser.context, async (page) => {
      for (const [hash, title] of pages) {
        await openLoggedIn(page, e2e.appUrl, e2e.token, hash);
        await expect.poll(() => page.title()).toBe(`${title} – Chat Agent`);
        await expect.poll(() => page.locator('.loading').count()).toBe(0);
        // the settings' preview is the widget itself: drawn before it is checked
        if (hash.endsWith('/settings')) await page.getByTestId('widget-preview').locator('.panel').waitFor();
        await expectNoSeriousViolations(page, hash);
      }
    });
  }, 120_000);
});
