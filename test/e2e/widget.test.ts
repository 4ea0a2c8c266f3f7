import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { auth, registerUser, ROOMY_PLAN } from '../helpers/app.js';
import { shot, startBufferingProxy, startSite, startTinyServer, type TinyServer } from '../helpers/browser.js';
import { useE2eApp } from '../helpers/e2e.js';
import { animationsDone, widgetIdle } from '../helpers/widget-page.js';

/**
 * The embeddable widget and the share page in real Chromium: the app on 127.0.0.1 with a real
 * SQLite file and a fake OpenAI server behind it; customer sites are other origins (other ports)
 * with hostile global CSS that embed the widget with the documented one-line snippet.
 */

type Json = Record<string, any>;

/** The owner's settings the widget must show (every one differs from the defaults). */
const SETTINGS = {
  primary_color: '#0f766e',
  secondary_color: '#1d4ed8',
  accent_color: '#b45309',
  widget_position: 'top-left',
  widget_theme: 'dark',
  widget_size: 'large',
  font_family: 'Georgia, serif',
  font_size: 16,
  bubble_style: 'square',
  welcome_message: 'Welcome to Acme Plumbing! Ask me anything.',
  powered_by_text: 'Acme support desk',
  lead_capture_enabled: true,
  // the form before the first message (new agents ask after the first answer: test/e2e/lead-form.test.ts)
  lead_form_timing: 'before_chat',
};

/** CSS a careless or hostile host page might carry: everything it can reach is overridden. */
const HOSTILE_CSS = `
  * { font-family: "Comic Sans MS", cursive !important; color: #ff00ff !important; background: yellow !important;
      border-radius: 0 !important; box-sizing: content-box !important; line-height: 3 !important; letter-spacing: 4px !important;
      text-transform: uppercase !important; font-size: 30px !important; padding: 7px !important; margin: 3px !important; }
  div, button, input, textarea, form, header { display: inline !important; position: static !important; width: 5px !important; height: 5px !important; }
  body > * { opacity: 0.2 !important; visibility: hidden !important; display: none !important; }
  body > p, body > h1 { display: block !important; visibility: visible !important; opacity: 1 !important; }
  chat-agent-widget, [data-chatbot-id] { display: none !important; }
  :root { filter: none; }
  svg { display: none !important; }
`;

function hostPage(scriptOrigin: string, agentId: string, extraBody = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Plumbing</title><style>${HOSTILE_CSS}</style></head>
<body><h1>Acme Plumbing</h1><p id="probe">Our host page text.</p>${extraBody}
<script src="${scriptOrigin}/widget.js" data-chatbot-id="${agentId}" defer></script>
</body></html>`;
}

const TALL = Array.from({ length: 60 }, (_, i) => `<p>Filler paragraph ${i} so the page scrolls.</p>`).join('');

const e2e = useE2eApp({
  owner: true,
  // roomy limits, so the plan's request rate never interferes (limits have their own tests);
  // `one`: one message a month, for the owner whose quota runs out
  plans: { free: ROOMY_PLAN, one: { ...ROOMY_PLAN, monthly_messages: 1 } },
  llm: { reply: 'Hello from the fake.', chunks: 4 },
});
const { api, newAgent } = e2e;

async function site(agentId: string, opts: { scriptOrigin?: string; extraBody?: string } = {}): Promise<TinyServer> {
  const s = await startSite({
    '/': { type: 'text/html; charset=utf-8', body: hostPage(opts.scriptOrigin ?? e2e.appUrl, agentId, opts.extraBody) },
    '/logo.svg': {
      type: 'image/svg+xml',
      body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#fbbf24"/></svg>',
    },
  });
  return e2e.track(s);
}

/** The launcher, found the way assistive technology finds it (docs/API.md "Widget": a button named "chat"). */
const launcherOf = (page: Page) => page.getByRole('button', { name: /chat/i }).first();
const dialogOf = (page: Page) => page.getByRole('dialog');

/** The agent's widget on a customer's site in a new page, opened by its launcher; the fake answers "Happy to help." in two chunks. */
async function openedWidget(agentId: string): Promise<{ page: Page; dialog: ReturnType<typeof dialogOf> }> {
  const host = await site(agentId);
  e2e.llm.setBehaviour({ reply: 'Happy to help.', chunks: 2 });
  const page = await e2e.browser.context.newPage();
  await page.goto(host.url);
  await launcherOf(page).click();
  return { page, dialog: dialogOf(page) };
}
const messageBox = (page: Page) => page.getByRole('textbox', { name: /message/i });

/** Evaluates `fn` with the widget's shadow root (JS source, run in the page). */
function inShadow<T>(page: Page, fn: string): Promise<T> {
  return page.evaluate(
    `(() => { const root = document.querySelector('chat-agent-widget').shadowRoot; return (${fn})(root); })()`,
  ) as Promise<T>;
}

const style = (loc: Locator, prop: string) =>
  loc.evaluate((el: any, p: string) => (globalThis as any).getComputedStyle(el).getPropertyValue(p), prop);

describe('the embedded widget on another site', () => {
  it('looks as configured, captures the lead, streams the answer and restores history after a reload', async () => {
    const agent = await newAgent(SETTINGS);
    await api('POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'Opening hours',
      content: 'Acme Plumbing opening hours: Monday to Friday, 8:00 to 18:00. Emergency line always open.',
    });
    const host = await site(agent.id);
    expect(new URL(host.url).origin).not.toBe(new URL(e2e.appUrl).origin); // cross-origin embedding
    await api('PUT', `/api/chatbots/${agent.id}`, { logo_url: `${host.url}/logo.svg` });

    const page = await e2e.browser.context.newPage();
    await page.goto(host.url);
    const launcher = launcherOf(page);
    await launcher.waitFor();

    // colours, position, size, shape from the agent's settings, whatever the page's CSS says
    expect(await style(launcher, 'background-color')).toBe('rgb(15, 118, 110)');
    const box = (await launcher.boundingBox())!;
    expect(box).toMatchObject({ x: 20, y: 20, width: 64, height: 64 }); // top-left, large
    expect(await style(launcher, 'border-radius')).toBe('12px'); // square bubble style
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');
    // the page's own text keeps the page's styles: nothing of the widget leaks out
    expect(await style(page.locator('#probe'), 'color')).toBe('rgb(255, 0, 255)');
    expect(await style(page.locator('#probe'), 'font-family')).toContain('Comic Sans MS');

    await launcher.click();
    const dialog = dialogOf(page);
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-label')).toBe('Chat with Acme helper');
    expect(await launcher.getAttribute('aria-expanded')).toBe('true');
    expect(await style(dialog, 'background-color')).toBe('rgb(17, 24, 39)'); // dark theme
    expect(await style(dialog, 'font-family')).toBe('Georgia, serif');
    expect(await style(dialog, 'font-size')).toBe('16px');
    expect(await style(dialog.locator('.header'), 'background-image')).toBe(
      'linear-gradient(135deg, rgb(15, 118, 110), rgb(29, 78, 216))',
    );
    // measured once the opening animation has finished
    await animationsDone(dialog);
    const dialogBox = (await dialog.boundingBox())!;
    expect(dialogBox.x).toBe(20); // under the launcher, on the left
    expect(dialogBox.width).toBe(420); // large
    await dialog.getByText('Welcome to Acme Plumbing! Ask me anything.').waitFor();
    await dialog.getByText('Acme support desk').waitFor(); // powered_by_text
    await shot(page, 'widget-dark-top-left-lead-form.png');
    expect(await dialog.locator('img.logo').getAttribute('src')).toBe(`${host.url}/logo.svg`);

    // lead form first: the message box is not there yet
    expect(await messageBox(page).count()).toBe(0);
    const leadResponse = page.waitForResponse((r) => r.url().includes('/api/public/lead/'));
    await page.getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');
    await page.getByRole('textbox', { name: 'Phone' }).fill('+44 20 7946 0958');
    await page.getByRole('button', { name: 'Start chat' }).click();
    expect((await leadResponse).status()).toBe(200);
    const sessionId = await page.evaluate(`JSON.parse(localStorage.getItem('chat-agent:${agent.id}')).session_id`);
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const leads = await api('GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toEqual([
      expect.objectContaining({ name: 'Ada Lovelace', phone: '+44 20 7946 0958', session_id: sessionId }),
    ]);

    // the answer streams: part of it is on screen while the model is still writing
    // until the first words arrive there is a typing indicator
    e2e.llm.setBehaviour({
      reply: 'We are **open** Monday to Friday, 8:00 to 18:00. Details on [our hours page](https://example.com/hours).',
      chunks: 4,
      pauseAfterChunks: 0,
    });
    const box2 = messageBox(page);
    await box2.fill('When are you open?');
    await box2.press('Enter');
    await e2e.llm.waitForPause();
    await dialog.getByRole('status', { name: 'Assistant is typing' }).waitFor();
    await shot(page, 'widget-dark-top-left-typing.png');
    e2e.llm.setBehaviour({ pauseAfterChunks: 2 });
    e2e.llm.release();
    await e2e.llm.waitForPause();
    const answer = dialog.locator('.msg.assistant .bubble').last();
    await answer.getByText('We are').waitFor();
    expect(await answer.textContent()).not.toContain('hours page');
    expect(await dialog.getByRole('status', { name: 'Assistant is typing' }).count()).toBe(0);
    e2e.llm.setBehaviour({ pauseAfterChunks: undefined });
    e2e.llm.release();
    const hoursLink = answer.getByRole('link', { name: 'our hours page' });
    await hoursLink.waitFor();
    expect(await hoursLink.getAttribute('href')).toBe('https://example.com/hours');
    expect(await hoursLink.getAttribute('target')).toBe('_blank');
    expect(await hoursLink.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await answer.locator('strong').textContent()).toBe('open');
    await answer.getByText('Opening hours').waitFor(); // the citation from `sources`
    expect(await dialog.getByText('Sources:').count()).toBe(1);
    // the visitor's name from the lead form travels with the message
    const conversations = await api('GET', `/api/chat/conversations/${agent.id}`);
    expect(conversations).toEqual([expect.objectContaining({ session_id: sessionId, user_name: 'Ada Lovelace' })]);

    // reload: same session, history back, no second lead form
    await page.reload();
    await launcherOf(page).click();
    await dialogOf(page).getByText('When are you open?').waitFor();
    await dialogOf(page).getByRole('link', { name: 'our hours page' }).waitFor();
    await dialogOf(page).getByText('Opening hours').waitFor();
    expect(await page.getByRole('textbox', { name: 'Name' }).count()).toBe(0);
    await messageBox(page).waitFor();
    expect(await page.evaluate(`JSON.parse(localStorage.getItem('chat-agent:${agent.id}')).session_id`)).toBe(
      sessionId,
    );

    // a new conversation is a new visit: new session, lead form again
    await page.getByRole('button', { name: 'Start a new conversation' }).click();
    await page.getByRole('textbox', { name: 'Name' }).waitFor();
    expect(await dialogOf(page).getByText('When are you open?').count()).toBe(0);
    expect(await page.evaluate(`JSON.parse(localStorage.getItem('chat-agent:${agent.id}')).session_id`)).not.toBe(
      sessionId,
    );
    await page.close();
  });

  it('renders hostile model output inert: no script runs, no remote image loads, no javascript: link', async () => {
    const imageHost = await startTinyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    e2e.track(imageHost);
    const agent = await newAgent({ lead_capture_enabled: false });
    const host = await site(agent.id);
    const payload = [
      `Here you go: <img src="${imageHost.url}/pixel.png" onerror="window.__xss = 'img'"> and [click me](javascript:window.__xss='link')`,
      `and [encoded](&#106;avascript:window.__xss='entity') and ![tracker](${imageHost.url}/tracker.png) <svg onload="window.__xss='svg'"></svg>`,
      '',
      `<iframe src="javascript:parent.__xss='iframe'"></iframe>`,
      '',
      `<script>window.__xss = 'script'</script>`,
      '',
      'The end.',
    ].join('\n');
    e2e.llm.setBehaviour({ reply: payload, chunks: 5 });

    const page = await e2e.browser.context.newPage();
    const outbound: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(imageHost.url)) outbound.push(r.url());
    });
    await page.goto(host.url);
    await launcherOf(page).click();
    await messageBox(page).fill('Show me something');
    await messageBox(page).press('Enter');
    const answer = dialogOf(page).locator('.msg.assistant .bubble').last();
    await answer.getByText('The end.').waitFor();

    const check = async () => {
      // the markup is there as visible text, not as elements
      await answer.getByText('<iframe', { exact: false }).waitFor();
      await answer.getByText('onerror=', { exact: false }).waitFor();
      const elements = await inShadow<Json>(
        page,
        `(root) => { const log = root.querySelector('.log'); return {
           img: log.querySelectorAll('img:not(.avatar)').length, iframe: log.querySelectorAll('iframe').length,
           script: log.querySelectorAll('script').length, svg: log.querySelectorAll('svg:not(.feedback *)').length,
           hrefs: Array.from(log.querySelectorAll('a')).map((a) => a.getAttribute('href')) }; }`,
      );
      expect(elements).toEqual({ img: 0, iframe: 0, script: 0, svg: 0, hrefs: [`${imageHost.url}/tracker.png`] });
      // the javascript: links are plain text: clicking them does nothing
      await answer.getByText('click me').click();
      await answer.getByText('encoded').click();
      expect(await page.evaluate('window.__xss')).toBeUndefined();
    };
    await check();
    // history is rendered by the same code after a reload
    await page.reload();
    await launcherOf(page).click();
    await check();
    expect(outbound).toEqual([]);
    expect(imageHost.hits).toEqual([]);
    await page.close();
  });

  it('says what went wrong on a network error, 429 and an offline agent, and retries', async () => {
    const agent = await newAgent({ lead_capture_enabled: false, rate_limit_enabled: true, messages_per_hour: 2 });
    const { page, dialog } = await openedWidget(agent.id);

    // network failure (the browser never reaches the server), then Retry once it is back
    await page.route('**/api/public/chat/**', (route) => route.abort('internetdisconnected'));
    await messageBox(page).fill('First question');
    await messageBox(page).press('Enter');
    const alert = dialog.getByRole('alert').filter({ hasText: 'Connection problem' });
    await alert.waitFor();
    await page.unroute('**/api/public/chat/**');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await dialog.getByText('Happy to help.').waitFor();
    expect(await dialog.getByText('First question').count()).toBe(1); // the retry does not repeat the bubble
    await widgetIdle(page);

    // the agent's per-session limit (2 an hour): the third message is a 429
    await messageBox(page).fill('Second question');
    await messageBox(page).press('Enter');
    // the second answer complete (not just its bubble), so the response awaited below is the third's;
    // and the turn over: the widget ignores Enter while a turn is streaming
    await dialog.getByText('Happy to help.').nth(1).waitFor();
    await widgetIdle(page);
    const limited = page.waitForResponse(
      (r) => r.url().includes('/api/public/chat/') && r.request().method() === 'POST',
    );
    await messageBox(page).fill('Third question');
    await messageBox(page).press('Enter');
    expect((await limited).status()).toBe(429);
    await dialog.getByRole('alert').filter({ hasText: 'Too many messages' }).waitFor();

    // the owner switches the agent off: a message gets the offline notice
    await api('PUT', `/api/chatbots/${agent.id}`, { rate_limit_enabled: false });
    await api('PATCH', `/api/chatbots/${agent.id}/toggle`);
    await messageBox(page).fill('Anyone there?');
    await messageBox(page).press('Enter');
    await dialog.getByRole('alert').filter({ hasText: 'offline' }).waitFor();
    // and after a reload the widget shows it as offline from the start
    await page.reload();
    await launcherOf(page).click();
    await dialogOf(page).getByText('Offline', { exact: true }).waitFor();
    expect(await messageBox(page).isDisabled()).toBe(true);
    await page.close();
  });

  it("when the owner's monthly quota is used up the visitor reads a plain sentence, with no Retry and no seconds to wait", async () => {
    // another owner, on a plan of one message a month (the first account is the admin)
    const owner = await registerUser(e2e.t.app);
    const me = (await e2e.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(owner.token) })).json();
    await api('PATCH', `/api/admin/users/${me.id}`, { plan_id: 'one' });
    const created = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/chatbots',
      headers: auth(owner.token),
      payload: { name: 'Quota bot', lead_capture_enabled: false },
    });
    const agent = created.json();
    await e2e.t.app.inject({
      method: 'PUT',
      url: `/api/chatbots/${agent.id}`,
      headers: auth(owner.token),
      payload: { lead_capture_enabled: false },
    });
    const { page, dialog } = await openedWidget(agent.id);
    await messageBox(page).fill('First question');
    await messageBox(page).press('Enter');
    await dialog.getByText('Happy to help.').waitFor();
    // the turn over: the widget ignores Enter while a turn is streaming
    await widgetIdle(page);

    const refused = page.waitForResponse(
      (r) => r.url().includes('/api/public/chat/') && r.request().method() === 'POST',
    );
    await messageBox(page).fill('Second question');
    await messageBox(page).press('Enter');
    expect((await refused).status()).toBe(429);
    const notice = dialog
      .getByRole('alert')
      .filter({ hasText: 'This assistant is unavailable right now, please try again later.' });
    await notice.waitFor();
    const text = (await notice.textContent()) ?? '';
    expect(text).not.toMatch(/seconds|quota|plan/i);
    expect(await notice.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await shot(page, 'widget-quota-used-up.png');
    await page.close();
  });

  it('falls back to the whole answer when a proxy buffers the stream or turns it into JSON', async () => {
    const agent = await newAgent({ lead_capture_enabled: false });
    for (const dropEventStreamAccept of [false, true]) {
      const proxy = await startBufferingProxy(e2e.appUrl, { dropEventStreamAccept });
      e2e.track(proxy);
      const host = await site(agent.id, { scriptOrigin: proxy.url });
      e2e.llm.setBehaviour({
        reply: `Answer through ${dropEventStreamAccept ? 'a JSON' : 'a buffering'} proxy.`,
        chunks: 3,
      });
      const page = await e2e.browser.context.newPage();
      await page.goto(host.url);
      await launcherOf(page).click();
      const answered = page.waitForResponse((r) => r.url().startsWith(`${proxy.url}/api/public/chat/`));
      await messageBox(page).fill('Hello?');
      await messageBox(page).press('Enter');
      const type = (await answered).headers()['content-type'];
      expect(type).toContain(dropEventStreamAccept ? 'application/json' : 'text/event-stream');
      await dialogOf(page)
        .getByText(`Answer through ${dropEventStreamAccept ? 'a JSON' : 'a buffering'} proxy.`)
        .waitFor();
      expect(await dialogOf(page).getByRole('alert').isVisible()).toBe(false);
      await page.close();
    }
  });

  it('is usable from the keyboard, traps focus while open, and never scrolls the page', async () => {
    const agent = await newAgent({ lead_capture_enabled: false, widget_position: 'bottom-right' });
    const host = await site(agent.id, { extraBody: TALL });
    const page = await e2e.browser.context.newPage();
    await page.goto(host.url);
    await launcherOf(page).waitFor();
    await page.evaluate('window.scrollTo(0, 900)');
    await launcherOf(page).focus();
    await page.keyboard.press('Enter');
    await dialogOf(page).waitFor();
    // focus lands in the message box
    const focused = () =>
      inShadow<string>(
        page,
        `(root) => { const a = root.activeElement; return a ? (a.getAttribute('aria-label') || a.textContent || a.tagName) : 'outside'; }`,
      );
    expect(await focused()).toBe('Type your message');
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      const inside = await inShadow<boolean>(
        page,
        `(root) => !!root.activeElement && root.querySelector('[role=dialog]').contains(root.activeElement)`,
      );
      expect(inside, `Tab ${i + 1} stays in the window`).toBe(true);
      seen.add(await focused());
    }
    expect(seen).toEqual(
      new Set(['Start a new conversation', 'Close chat', 'Messages', 'Type your message', 'Send message']),
    );
    await page.keyboard.press('Shift+Tab');
    expect(
      await inShadow<boolean>(page, `(root) => root.querySelector('[role=dialog]').contains(root.activeElement)`),
    ).toBe(true);

    // a long streamed answer: the message list scrolls, the page does not
    e2e.llm.setBehaviour({
      reply: Array.from({ length: 40 }, (_, i) => `Line ${i} of a long answer.`).join('\n\n'),
      chunks: 20,
      delayBetweenChunksMs: 10,
    });
    await messageBox(page).focus();
    await page.keyboard.type('Tell me everything');
    await page.keyboard.press('Enter');
    await dialogOf(page).getByText('Line 39 of a long answer.').waitFor();
    expect(await page.evaluate('window.scrollY')).toBe(900);
    const atBottom = await inShadow<boolean>(
      page,
      `(root) => { const l = root.querySelector('.log'); return l.scrollHeight - l.scrollTop - l.clientHeight < 2; }`,
    );
    expect(atBottom).toBe(true);
    e2e.llm.setBehaviour({ delayBetweenChunksMs: 0 });

    // Escape closes and gives focus back to the launcher
    await page.keyboard.press('Escape');
    await dialogOf(page).waitFor({ state: 'hidden' });
    expect(await inShadow<string>(page, `(root) => root.activeElement && root.activeElement.className`)).toBe(
      'launcher',
    );
    await page.close();
  });

  it('with only a primary colour set, the header is that colour and the focus ring not the default pink (issue 31 point 6)', async () => {
    const agent = await newAgent({ lead_capture_enabled: false });
    await api('PUT', `/api/chatbots/${agent.id}`, { primary_color: '#8b4513' });
    const host = await site(agent.id);
    const page = await e2e.browser.context.newPage();
    await page.goto(host.url);
    await launcherOf(page).focus();
    await page.keyboard.press('Enter');
    const dialog = dialogOf(page);
    await dialog.waitFor();
    const brown = 'rgb(139, 69, 19)';
    expect(await style(dialog.locator('.header'), 'background-image')).toBe(
      `linear-gradient(135deg, ${brown}, ${brown})`,
    );
    // the keyboard's focus ring (Tab from the message box to Send): two-tone, near-black outside a
    // white band, whatever the owner's colours (test/e2e/accessibility.test.ts measures it)
    await page.keyboard.press('Tab');
    const ring = await inShadow<string>(
      page,
      `(root) => { const s = getComputedStyle(root.activeElement); return s.outlineColor + ' / ' + s.boxShadow; }`,
    );
    expect(ring).toBe('rgb(17, 24, 39) / rgb(255, 255, 255) 0px 0px 0px 2px');
    await shot(page, 'widget-primary-only.png');
    await page.close();
  });

  it('auto_expand opens the window on a wide screen only; theme auto follows prefers-color-scheme', async () => {
    const agent = await newAgent({ lead_capture_enabled: false, auto_expand: true, widget_theme: 'auto' });
    const host = await site(agent.id);
    const page = await e2e.browser.context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(host.url);
    await dialogOf(page).waitFor(); // open without a click
    expect(await style(dialogOf(page), 'background-color')).toBe('rgb(17, 24, 39)');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await style(dialogOf(page), 'background-color')).toBe('rgb(255, 255, 255)');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await launcherOf(page).waitFor();
    expect(await dialogOf(page).isVisible()).toBe(false); // a phone is not covered uninvited
    await page.close();
  });

  it('screenshots: desktop window, narrow full-screen window, reduced motion honoured', async () => {
    const agent = await newAgent({
      ...SETTINGS,
      widget_position: 'bottom-right',
      widget_theme: 'light',
      widget_size: 'medium',
      bubble_style: 'rounded',
      lead_capture_enabled: false,
    });
    const host = await site(agent.id, { extraBody: TALL });
    await api('PUT', `/api/chatbots/${agent.id}`, {
      logo_url: `${host.url}/logo.svg`,
      avatar_url: `${host.url}/logo.svg`,
    });
    await api('POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'Pricing sheet',
      content: 'A boiler service costs 89 pounds including parts check and safety certificate.',
    });
    e2e.llm.setBehaviour({
      reply:
        'A **boiler service** costs **£89**, which includes:\n\n- a parts check\n- a safety certificate\n\nBook online at [acme.example](https://acme.example/book).',
      chunks: 3,
    });

    const page = await e2e.browser.context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(host.url);
    await launcherOf(page).click();
    await messageBox(page).fill('How much is a boiler service?');
    await messageBox(page).press('Enter');
    await dialogOf(page).getByText('Pricing sheet').waitFor();
    expect(await style(dialogOf(page), 'animation-name')).toBe('none'); // prefers-reduced-motion
    await shot(page, 'widget-desktop.png');

    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = (await dialogOf(page).boundingBox())!;
    expect(narrow).toEqual({ x: 0, y: 0, width: 390, height: 844 }); // full screen on a phone
    await shot(page, 'widget-narrow.png');
    await page.close();
  });
});

describe('the shareable chat page', () => {
  it('serves a full-page chat under a strict CSP that the widget runs within', async () => {
    const agent = await newAgent({ ...SETTINGS, widget_theme: 'light', lead_capture_enabled: false });
    e2e.llm.setBehaviour({ reply: 'Hello from the **share page**.', chunks: 3 });
    const page = await e2e.browser.context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const res = await page.goto(`${e2e.appUrl}/chat/${agent.id}`);
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await page.title()).toBe('Chat with Acme helper');
    const main = page.getByRole('main', { name: 'Chat with Acme helper' });
    await main.waitFor();
    expect(await launcherOf(page).count()).toBe(0); // no launcher: the page is the chat
    expect(await main.boundingBox()).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    await messageBox(page).fill('Hi there');
    await messageBox(page).press('Enter');
    await main.getByText('share page').waitFor();
    expect(await main.locator('strong').textContent()).toBe('share page');
    await shot(page, 'chat-page.png');
    expect(violations).toEqual([]);
    await page.close();
  });
});
