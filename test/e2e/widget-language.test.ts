import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLoggedIn } from '../helpers/admin.js';
import { ROOMY_PLAN } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, shot } from '../helpers/browser.js';
import { ask, useE2eApp } from '../helpers/e2e.js';
import { saveSection } from '../helpers/e2e-admin-ui.js';
import { animationsDone, widgetTurnDone } from '../helpers/widget-page.js';

/**
 * The widget's language (issue 22.7) in real Chromium, embedded on another site: the agent's
 * language, or with `auto` the visitor's browser language (each test's browser context has its
 * own locale), and the owner's wording over any fixed text, also as set in the admin UI.
 * Screenshots: test-artifacts/widget-language-*.png.
 */

// the page's globals inside page.evaluate callbacks (this file compiles without the DOM library)
declare const navigator: any;

// roomy limits, so the plan never interferes (the per-session rate limit is the agent's own)
const e2e = useE2eApp({
  owner: true,
  plans: { free: ROOMY_PLAN },
  llm: { reply: 'Gern geschehen.', chunks: 2 },
  // a browser of its own: each visitor is a context with its own locale
  browser: false,
});
const { api, newAgent } = e2e;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 60_000);

// after hooks run last-registered first: the visitors' browser closes before the app
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
}, 60_000);

/** A browser whose visitor prefers `locale` (navigator.languages, Accept-Language). */
async function visitor(locale: string): Promise<BrowserContext> {
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  return context;
}

/** A customer's site embedding the agent with the one-line snippet. */
const siteFor = (agentId: string) => e2e.site(agentId, { lang: 'en' });

/** The `lang` of the widget's root element, inside its shadow root. */
const widgetLang = (page: Page) =>
  page.evaluate(`document.querySelector('chat-agent-widget').shadowRoot.querySelector('.root').getAttribute('lang')`);

describe('the widget’s language', () => {
  it('an agent set to German speaks German, whatever the browser’s language, down to its error messages', async () => {
    const agent = await newAgent({
      language: 'de',
      lead_form_timing: 'before_chat',
      privacy_policy_url: 'https://acme.example/datenschutz',
      rate_limit_enabled: true,
      messages_per_hour: 1,
    });
    const page = await (await visitor('en-US')).newPage();
    await page.goto(await siteFor(agent.id));
    const launcher = page.locator('chat-agent-widget .launcher');
    expect(await launcher.getAttribute('aria-label')).toBe('Chat mit Acme helper öffnen');
    expect(await widgetLang(page)).toBe('de');
    await page.getByRole('button', { name: 'Chat mit Acme helper öffnen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Chat mit Acme helper' });
    await dialog.waitFor();
    expect(await launcher.getAttribute('aria-label')).toBe('Chat schließen');
    await dialog.getByText('Online', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Neues Gespräch beginnen' }).waitFor();
    await dialog.getByRole('button', { name: 'Chat schließen' }).waitFor();

    // the lead form, before the chat
    const form = dialog.getByRole('form', { name: 'Bevor es losgeht: Wie können wir Sie erreichen?' });
    await form
      .getByText('Mit dem Absenden Ihrer Angaben sind Sie einverstanden, dass wir Sie zu Ihrer Anfrage kontaktieren.')
      .waitFor();
    expect(await form.getByRole('link', { name: 'Datenschutzerklärung' }).getAttribute('href')).toBe(
      'https://acme.example/datenschutz',
    );
    await animationsDone(dialog);
    await shot(page, 'widget-language-de-lead.png');
    await form.getByRole('button', { name: 'Chat starten' }).click();
    await form.getByRole('textbox', { name: 'Name' }).waitFor(); // no name yet: the form stays
    await form.getByRole('textbox', { name: 'Name' }).fill('Greta Gast');
    await form.getByRole('textbox', { name: 'Telefon' }).fill('   '); // blank: the browser's own checks let it through
    await form.getByRole('button', { name: 'Chat starten' }).click();
    await form.getByRole('alert').filter({ hasText: 'Bitte geben Sie eine Telefonnummer ein.' }).waitFor();
    await form.getByRole('textbox', { name: 'Telefon' }).fill('+49 30 901820');
    await form.getByRole('button', { name: 'Chat starten' }).click();

    // the message box, a network error with its retry, then the agent's per-session limit
    const box = dialog.getByRole('textbox', { name: 'Nachricht eingeben' });
    await box.waitFor();
    expect(await box.getAttribute('placeholder')).toBe('Nachricht eingeben…');
    await dialog.getByRole('button', { name: 'Nachricht senden' }).waitFor();
    await page.route('**/api/public/chat/**', (route) => route.abort('internetdisconnected'));
    await box.fill('Haben Sie samstags geöffnet?');
    await box.press('Enter');
    const offline = dialog
      .getByRole('alert')
      .filter({ hasText: 'Verbindungsproblem: Die Nachricht konnte nicht gesendet werden.' });
    await offline.waitFor();
    await page.unroute('**/api/public/chat/**');
    await offline.getByRole('button', { name: 'Erneut versuchen' }).click();
    await dialog.getByText('Gern geschehen.').waitFor();
    await widgetTurnDone(page);

    const limited = page.waitForResponse(
      (r) => r.url().includes('/api/public/chat/') && r.request().method() === 'POST',
    );
    await box.fill('Und sonntags?');
    await box.press('Enter');
    expect((await limited).status()).toBe(429);
    const busy = dialog.getByRole('alert');
    await busy.filter({ hasText: 'Gerade kommen zu viele Nachrichten.' }).waitFor();
    expect(await busy.locator('span').textContent()).toMatch(
      /^Gerade kommen zu viele Nachrichten\. Bitte (warten Sie \d+ Sekunden und versuchen Sie es erneut|versuchen Sie es in etwa \d+ Minuten erneut|versuchen Sie es später erneut)\.$/,
    );
    await busy.getByRole('button', { name: 'Erneut versuchen' }).waitFor();
    await shot(page, 'widget-language-de-error.png');
    await page.close();
  });

  it('automatic follows the visitor’s browser: French for fr-FR, English for a language it does not speak', async () => {
    const agent = await newAgent();
    expect(agent.language).toBe('auto');
    const url = await siteFor(agent.id);
    e2e.llm.setBehaviour({ reply: 'Avec plaisir.' });

    const page = await (await visitor('fr-FR')).newPage();
    await page.goto(url);
    expect(await page.evaluate(() => navigator.languages[0])).toBe('fr-FR');
    const launcher = page.getByRole('button', { name: 'Ouvrir le chat avec Acme helper' });
    await launcher.click();
    expect(await widgetLang(page)).toBe('fr');
    const dialog = page.getByRole('dialog', { name: 'Chat avec Acme helper' });
    await dialog.getByText('En ligne', { exact: true }).waitFor();
    const box = dialog.getByRole('textbox', { name: 'Écrivez votre message' });
    expect(await box.getAttribute('placeholder')).toBe('Écrivez votre message…');
    await dialog.getByRole('button', { name: 'Envoyer le message' }).waitFor();
    await dialog.getByRole('button', { name: 'Commencer une nouvelle conversation' }).waitFor();
    // a new agent asks for contact details after the first answer: in French too
    await ask(page, box, 'Livrez-vous le samedi ?', 1);
    const form = dialog.getByRole('form', { name: /^Souhaitez-vous que nous vous recontactions/ });
    await form.waitFor();
    await form
      .getByText('En envoyant vos coordonnées, vous acceptez que nous vous contactions au sujet de votre demande.')
      .waitFor();
    await form.getByRole('textbox', { name: 'Nom' }).waitFor();
    await form.getByRole('textbox', { name: 'Téléphone' }).waitFor();
    await form.getByRole('button', { name: 'Envoyer', exact: true }).waitFor();
    await form.getByRole('button', { name: 'Pas maintenant' }).waitFor();
    await shot(page, 'widget-language-fr.png');
    await page.close();

    // Japanese is not one of its languages: English
    const other = await (await visitor('ja-JP')).newPage();
    await other.goto(url);
    await other.getByRole('button', { name: 'Open chat with Acme helper' }).click();
    expect(await widgetLang(other)).toBe('en');
    expect(await other.getByRole('textbox', { name: 'Type your message' }).getAttribute('placeholder')).toBe(
      'Type your message…',
    );
    await other.close();
  });

  it('the owner’s wording replaces the language’s text; the other texts stay in the language', async () => {
    const agent = await newAgent({
      language: 'es',
      lead_form_timing: 'before_chat',
      widget_texts: { placeholder: '¿En qué podemos ayudarle?', lead_submit: 'Hablemos' },
    });
    e2e.llm.setBehaviour({ reply: 'Con mucho gusto.' });
    const page = await (await visitor('fr-FR')).newPage(); // the agent's language wins over the browser's
    await page.goto(await siteFor(agent.id));
    await page.getByRole('button', { name: 'Abrir el chat con Acme helper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Chat con Acme helper' });
    const form = dialog.getByRole('form', { name: 'Antes de empezar, díganos cómo podemos contactarle.' });
    await form.getByRole('textbox', { name: 'Nombre' }).fill('Lucía');
    await form.getByRole('textbox', { name: 'Teléfono' }).fill('+34 910 000 000');
    await form
      .getByText('Al enviar sus datos, acepta que nos pongamos en contacto con usted sobre su consulta.')
      .waitFor();
    await animationsDone(dialog);
    await shot(page, 'widget-language-override-lead.png');
    await form.getByRole('button', { name: 'Hablemos' }).click();
    const box = dialog.getByRole('textbox', { name: '¿En qué podemos ayudarle?' });
    expect(await box.getAttribute('placeholder')).toBe('¿En qué podemos ayudarle?');
    await dialog.getByRole('button', { name: 'Enviar mensaje' }).waitFor();
    await dialog.getByText('En línea', { exact: true }).waitFor();
    await ask(page, box, '¿Abren los sábados?', 1);
    await shot(page, 'widget-language-override.png');
    await page.close();
  });
});

describe('language, wording and lead timing set in the admin UI', () => {
  it('the owner picks Italian, rewords the message box and asks before the chat; the widget shows them', async () => {
    const agent = await newAgent();
    const admin = await visitor('en-US');
    const page = await admin.newPage();
    await openLoggedIn(page, e2e.appUrl, e2e.token, `#/agents/${agent.id}/settings`);

    const texts = page.getByRole('form', { name: 'Language and texts' });
    await texts.getByLabel('Language').selectOption('it');
    // the boxes show the chosen language's defaults before anything is saved
    expect(await texts.getByLabel('Send button', { exact: true }).getAttribute('placeholder')).toBe('Invia messaggio');
    await texts.getByLabel('Message box', { exact: true }).fill('Come possiamo aiutarti?');
    await saveSection(texts, 'Language and texts');

    const leads = page.getByRole('form', { name: 'Lead capture and e-mail alerts' });
    expect(await leads.getByLabel('Ask for name and phone').inputValue()).toBe('after_messages'); // a new agent's
    await leads.getByLabel('Ask for name and phone').selectOption('before_chat');
    await leads.getByLabel('Privacy policy URL').fill('https://acme.example/privacy');
    expect(await leads.getByLabel('Consent text').getAttribute('placeholder')).toBe(
      'Inviando i tuoi dati accetti di essere contattato in merito alla tua richiesta.',
    );
    await saveSection(leads, 'Lead capture and e-mail alerts');
    await texts.scrollIntoViewIfNeeded();
    await shot(texts, 'widget-language-admin-texts.png');
    await shot(leads, 'widget-language-admin-leads.png');

    expect(await api('GET', `/api/chatbots/${agent.id}`)).toMatchObject({
      language: 'it',
      widget_texts: { placeholder: 'Come possiamo aiutarti?' },
      lead_capture_enabled: true,
      lead_form_timing: 'before_chat',
      privacy_policy_url: 'https://acme.example/privacy',
    });

    // the widget, for a visitor whose browser is English
    e2e.llm.setBehaviour({ reply: 'Volentieri.' });
    const widget = await admin.newPage();
    await widget.goto(await siteFor(agent.id));
    await widget.getByRole('button', { name: 'Apri la chat con Acme helper' }).click();
    const dialog = widget.getByRole('dialog', { name: 'Chat con Acme helper' });
    const form = dialog.getByRole('form', { name: 'Prima di iniziare, dicci come possiamo contattarti.' });
    expect(await form.getByRole('link', { name: 'Informativa sulla privacy' }).getAttribute('href')).toBe(
      'https://acme.example/privacy',
    );
    await form.getByRole('textbox', { name: 'Nome' }).fill('Giulia');
    await form.getByRole('textbox', { name: 'Telefono' }).fill('+39 06 0000 0000');
    await form.getByRole('button', { name: 'Inizia la chat' }).click();
    const box = dialog.getByRole('textbox', { name: 'Come possiamo aiutarti?' });
    await ask(widget, box, 'Siete aperti il sabato?', 1);
    await dialog.getByText('Volentieri.').waitFor();
    expect(await api('GET', `/api/chatbot-leads/${agent.id}`)).toEqual([expect.objectContaining({ name: 'Giulia' })]);
    await shot(widget, 'widget-language-admin-widget.png');
    await widget.close();
    await page.close();
  });
});
