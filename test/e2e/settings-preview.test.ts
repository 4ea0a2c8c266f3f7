import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openLoggedIn, settle } from '../helpers/admin.js';
import { shot, withPage } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * The settings page's preview in real Chromium (issue 31 points 6 and 7): it shows the agent as
 * its visitors will see it, drawn by the widget's own code: the agent's language, greeting
 * (welcome message) and starter questions, the lead form only where a visitor meets it, its
 * colours and position, unsaved changes of every section included; and the secondary and accent
 * colours follow the primary until the owner sets them.
 */

const e2e = useE2eApp({ owner: true });
const { newAgent } = e2e;

/** The preview's widget (CSS locators reach into its open shadow root). */
const previewOf = (page: Page) => page.getByTestId('widget-preview');

// the page's globals inside evaluate callbacks (this file compiles without the DOM library)
declare const getComputedStyle: any;

const style = (loc: Locator, prop: string): Promise<string> =>
  loc.evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);

/**
 * A new agent with `settings`, and for `use` its settings page (logged in as the owner) once the
 * preview is drawn, with the paths of the scripts the page loaded; no console error may be left
 * when `use` is done (withPage), and the page is closed afterwards.
 */
async function withNewAgentSettings(
  settings: Record<string, unknown>,
  use: (page: Page, opened: { agent: Record<string, any>; scripts: string[] }) => Promise<void>,
): Promise<void> {
  const agent = await newAgent(settings);
  await withPage(e2e.browser.context, async (page) => {
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await openLoggedIn(page, e2e.appUrl, e2e.token, `#/agents/${encodeURIComponent(agent.id)}/settings`);
    await page.getByRole('form', { name: 'Appearance' }).waitFor();
    await previewOf(page).locator('.panel').waitFor();
    await use(page, { agent, scripts });
  });
}

describe('the settings preview shows the agent as visitors see it', () => {
  it('its language, welcome and starter questions; the lead form after answers is not shown first; before the chat it is', async () => {
    await withNewAgentSettings(
      {
        name: 'Fietsenmaker',
        language: 'nl',
        welcome_message: 'Welkom bij de fietsenmaker!',
        starter_questions: ['Wat kost een reparatie?', 'Wanneer zijn jullie open?'],
        lead_capture_enabled: true,
        lead_form_timing: 'after_messages',
        widget_position: 'bottom-left',
        primary_color: '#0f766e',
      },
      async (page, { scripts }) => {
        const preview = previewOf(page);
        // drawn by the bundle visitors load, through the embed snippet's loader
        expect(scripts.filter((s) => s.startsWith('/widget'))).toEqual([
          '/widget.js',
          expect.stringMatching(/^\/widget-[0-9a-f]+\.js$/),
        ]);

        // Dutch, as a visitor of this agent reads it
        await preview.getByText('Welkom bij de fietsenmaker!').waitFor();
        expect(await preview.locator('textarea').getAttribute('placeholder')).toBe('Typ uw bericht…');
        expect(await preview.locator('.starters button').allTextContents()).toEqual([
          'Wat kost een reparatie?',
          'Wanneer zijn jullie open?',
        ]);
        expect(await preview.locator('.name').textContent()).toBe('Fietsenmaker');
        // asked after the first answer: a new visitor does not meet the form first
        expect(await preview.locator('form.lead').count()).toBe(0);
        // its colours and corner
        expect(await style(preview.locator('.launcher'), 'background-color')).toBe('rgb(15, 118, 110)');
        expect(await preview.locator('.root.pos-bottom-left').count()).toBe(1);
        // a picture, not a chat: nothing in it takes the focus or reaches assistive technology
        expect(await page.locator('chat-agent-preview[inert]').count()).toBe(1);
        await settle(page);
        await shot(page.getByRole('form', { name: 'Appearance' }), 'settings-preview-nl.png');

        // unsaved changes of other sections show too: the form asked before the chat, in place of the message box
        const leads = page.getByRole('form', { name: 'Lead capture and e-mail alerts' });
        await leads.getByLabel('Ask for name and phone').selectOption('before_chat');
        await preview.locator('form.lead').waitFor();
        expect(await preview.locator('textarea').count()).toBe(0);
        expect(await preview.locator('form.lead button[type=submit]').textContent()).toBe('Chat starten');
        expect(await preview.locator('.starters').count()).toBe(0);
        // another language, before saving
        await page.getByRole('form', { name: 'Language and texts' }).getByLabel('Language').selectOption('fr');
        await expect.poll(() => preview.locator('.root').getAttribute('lang')).toBe('fr');
      },
    );
  }, 60_000);

  it('a secondary and accent colour not set follow the primary, in the preview before saving and once saved; set, they stay', async () => {
    await withNewAgentSettings({ lead_capture_enabled: false }, async (page, { agent }) => {
      const preview = previewOf(page);
      const appearance = page.getByRole('form', { name: 'Appearance' });
      const header = preview.locator('.header');
      // the default pink end deepened to #cd3f85, where the white title reads at 4.5:1 (white on #ec4899 is 3.53:1)
      expect(await style(header, 'background-image')).toBe(
        'linear-gradient(135deg, rgb(124, 58, 237), rgb(205, 63, 133))',
      );

      await appearance.getByLabel('Primary color', { exact: true }).fill('#8b4513');
      const brown = 'rgb(139, 69, 19)';
      await expect.poll(() => style(header, 'background-image')).toBe(`linear-gradient(135deg, ${brown}, ${brown})`);
      expect(await appearance.getByLabel('Secondary color', { exact: true }).inputValue()).toBe('#8b4513');
      expect(await appearance.getByLabel('Secondary color', { exact: true }).isDisabled()).toBe(true);
      /** Saves Appearance; the stored agent (not the toast: an earlier save's toast may still be showing) comes to have `fields`. */
      const saveAppearance = async (fields: Record<string, unknown>) => {
        await appearance.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => e2e.api('GET', `/api/chatbots/${agent.id}`)).toMatchObject(fields);
      };
      await saveAppearance({
        primary_color: '#8b4513',
        secondary_color: '#8b4513',
        accent_color: '#8b4513',
        secondary_follows_primary: true,
        accent_follows_primary: true,
      });

      // the owner sets a secondary of their own: it stays when the primary changes
      await appearance.getByLabel('Secondary follows the primary').uncheck();
      await appearance.getByLabel('Secondary color', { exact: true }).fill('#facc15');
      await appearance.getByLabel('Primary color', { exact: true }).fill('#1d4ed8');
      // no one text colour reads on blue and yellow: the widget ends the gradient on a darker yellow, and the form says so before saving
      await expect
        .poll(() => style(header, 'background-image'))
        .toBe('linear-gradient(135deg, rgb(29, 78, 216), rgb(140, 114, 12))');
      const warnings = page.getByTestId('color-warnings');
      await warnings
        .getByText(
          "Secondary color: No text colour reads at 4.5:1 on both ends of the header's gradient from #1d4ed8 to #facc15 (white text is 1.53:1 on #facc15). The widget ends the gradient on #8c720c instead, where its white title reads at 4.63:1.",
        )
        .waitFor();
      const saved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/api/chatbots/'));
      await saveAppearance({
        primary_color: '#1d4ed8',
        secondary_color: '#facc15',
        accent_color: '#1d4ed8',
        secondary_follows_primary: false,
        accent_follows_primary: true,
      });
      // the save answer says the same; the colours were kept
      expect((await (await saved).json()).warnings).toContainEqual({
        field: 'secondary_color',
        message: expect.stringContaining('The widget ends the gradient on #8c720c instead'),
      });
    });
  }, 60_000);

  it('emerald and amber: dark text on the emerald, and the form warns, before saving, about the colours it adjusts', async () => {
    await withNewAgentSettings({ lead_capture_enabled: false, widget_theme: 'light' }, async (page) => {
      const preview = previewOf(page);
      const appearance = page.getByRole('form', { name: 'Appearance' });
      await appearance.getByLabel('Primary color', { exact: true }).fill('#10b981');
      await appearance.getByLabel('Accent follows the primary').uncheck();
      await appearance.getByLabel('Accent color', { exact: true }).fill('#f59e0b');
      // dark text on emerald (white was 2.53:1): the header, the launcher and Send
      await expect.poll(() => style(preview.locator('.header'), 'color')).toBe('rgb(17, 24, 39)');
      expect(await style(preview.locator('.send'), 'color')).toBe('rgb(17, 24, 39)');
      const warnings = page.getByTestId('color-warnings');
      await warnings
        .getByText(/^Accent color: #f59e0b is 1\.95:1 as link text on the light scheme's background/)
        .waitFor();
      await warnings.getByText(/^Primary color: #10b981 is 2\.30:1 as the text of the starter questions/).waitFor();
      await shot(appearance, 'settings-color-warnings.png');
      // a colour that reads as chosen takes its warning away
      await appearance.getByLabel('Accent color', { exact: true }).fill('#92400e');
      await expect.poll(() => warnings.getByText(/^Accent color/).count()).toBe(0);
    });
  }, 60_000);
});
