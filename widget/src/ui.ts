import { Api, ApiFailure, type AgentInfo, type CitedSource, type PersonMessage } from './api.js';
import { fill, MORE_TEXTS, pickLanguage, textsFor, type Lang, type MoreTexts, type Texts } from './i18n.js';
import { renderMarkdown, safeHref } from './markdown.js';
import { freshState, loadState, saveState, type NoteKey, type StoredMessage, type VisitorState } from './storage.js';
import { textOn } from './shared/contrast.js';
import { CSS } from './styles.js';

export type Mode = 'embed' | 'page';

/** The server's cap (413 above it); checked here first so the visitor keeps their text. */
const MAX_MESSAGE_CHARS = 4000;
const DEFAULT_BRANDING = 'Powered by Chat Agent';

const ICON_CHAT =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
const ICON_CLOSE = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>';
const ICON_RESTART =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5"/></svg>';
const ICON_UP =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 11v9H4v-9h3zm2 9h8.3a2 2 0 0 0 2-1.6l1.3-6.4A2 2 0 0 0 18.6 10H14V5.5A2.5 2.5 0 0 0 11.5 3L9 10v10z"/></svg>';
const ICON_DOWN =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M17 13V4h3v9h-3zm-2-9H6.7a2 2 0 0 0-2 1.6L3.4 12A2 2 0 0 0 5.4 14H10v4.5a2.5 2.5 0 0 0 2.5 2.5L15 14V4z"/></svg>';
const ICON_SEND = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 20.5L21 12 3 3.5 3 10l12 2-12 2z"/></svg>';

/** Builds elements from fixed markup we wrote (icons); never used with agent or model text. */
function fromTrustedMarkup(html: string): Element {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content.firstElementChild!;
}

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string> = {},
  children: Array<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function httpUrl(raw: string | null): string | null {
  if (!raw) return null;
  const href = safeHref(raw);
  return href && /^https?:/.test(href) ? href : null;
}

/** The visitor's languages, most preferred first (navigator.languages, or navigator.language). */
function browserLanguages(): readonly string[] {
  const nav = typeof navigator === 'undefined' ? null : navigator;
  return nav?.languages?.length ? nav.languages : nav?.language ? [nav.language] : [];
}

/** "wait 20 seconds and try again", "try again in about 5 minutes", "try again later" */
function waitWords(seconds: number | null, more: MoreTexts): string {
  if (!seconds) return more.wait_moment;
  if (seconds <= 90) return fill(more.wait_seconds, { n: Math.ceil(seconds) });
  if (seconds <= 90 * 60) return fill(more.wait_minutes, { n: Math.ceil(seconds / 60) });
  return more.wait_later;
}

function failureText(err: unknown, t: Texts, more: MoreTexts, lang: Lang): { text: string; retry: boolean } {
  const f = err instanceof ApiFailure ? err : new ApiFailure(0, 'Network error');
  switch (f.status) {
    case 0:
      return { text: t.error_network, retry: true };
    case 429:
      // the owner's monthly quota: the server's sentence for visitors, and no Retry (it would fail
      // until the month ends); a short rate limit: when to try again, in words a person uses
      if (f.unavailable) return { text: f.detail, retry: false };
      return { text: fill(t.error_busy, { wait: waitWords(f.retryAfter, more) }), retry: true };
    case 400:
      return { text: t.error_offline, retry: true };
    case 402:
    case 403:
      return { text: t.error_unavailable, retry: false };
    case 413:
      return { text: fill(t.error_too_long, { max: MAX_MESSAGE_CHARS.toLocaleString(lang) }), retry: false };
    default:
      return { text: t.error_generic, retry: true };
  }
}

/** The message box's accessible name: the placeholder without its trailing dots. */
const withoutEllipsis = (text: string) => text.replace(/\s*(?:…|\.{3})\s*$/, '') || text;

export class ChatWidget {
  private readonly api: Api;
  private state: VisitorState;
  private readonly root: HTMLDivElement;
  private launcher: HTMLButtonElement | null = null;
  private panel!: HTMLDivElement;
  private log!: HTMLDivElement;
  private composer!: HTMLFormElement;
  private input!: HTMLTextAreaElement;
  private sendButton!: HTMLButtonElement;
  private leadForm: HTMLFormElement | null = null;
  /** where the lead form is: before the chat (instead of the message box) or in the conversation */
  private leadWhen: 'before' | 'after' | null = null;
  private info!: AgentInfo;
  private lang: Lang = 'en';
  private t: Texts = textsFor('en', null);
  private more: MoreTexts = MORE_TEXTS.en;
  /** the launcher's names while the window is closed and open */
  private openLabel = '';
  private closeLabel = '';
  private notice!: HTMLDivElement;
  private statusLine!: HTMLSpanElement;
  private busy = false;
  private offline = false;
  /** the agent's avatar (http(s) only), shown beside each answer */
  private avatarUrl: string | null = null;
  /** the starter questions' buttons, before the first message */
  private starters: HTMLDivElement | null = null;
  /** "Talk to a person", once the conversation has begun */
  private askPerson!: HTMLButtonElement;
  private greeting: HTMLDivElement | null = null;
  private greetingTimer = 0;
  /** the session's live stream (live handoff), open once the conversation has begun */
  private live: EventSource | null = null;

  constructor(
    private readonly shadow: ShadowRoot,
    origin: string,
    private readonly agentId: string,
    private readonly mode: Mode,
    /** drawn for the admin UI's preview: a new visitor's conversation, nothing read or stored */
    private readonly previewing = false,
  ) {
    this.api = new Api(origin, agentId);
    this.state = previewing ? freshState() : loadState(agentId);
    this.root = h('div', { class: `root mode-${mode}${previewing ? ' preview' : ''}` });
    if (
      'adoptedStyleSheets' in Document.prototype &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype
    ) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      shadow.adoptedStyleSheets = [sheet];
    } else {
      shadow.append(h('style', { text: CSS }));
    }
    shadow.append(this.root);
  }

  /**
   * The widget as a new visitor sees it once they open it, drawn from `info` (settings not saved
   * yet included) for the admin UI's settings preview: the same code and stylesheet as on a
   * customer's site, its window open, with no request, greeting timer or stored state. The caller
   * makes it inert (a picture, not a chat) and gives it a transformed box to be positioned in.
   */
  static preview(shadow: ShadowRoot, info: AgentInfo): ChatWidget {
    const widget = new ChatWidget(shadow, location.origin, info.id, 'embed', true);
    widget.build(info);
    widget.open(false);
    return widget;
  }

  /** Loads the agent's settings and draws the widget; false when the agent cannot be shown. */
  async start(): Promise<boolean> {
    let info: AgentInfo;
    try {
      info = await this.api.info();
    } catch (err) {
      if (this.mode === 'page') {
        // no agent settings to go by: the visitor's own language
        this.setLanguage(null, null);
        this.root.append(
          h('p', {
            class: 'notice',
            role: 'alert',
            text: err instanceof ApiFailure && err.status === 404 ? this.more.not_found : this.t.error_unavailable,
          }),
        );
      }
      return false;
    }
    this.build(info);
    return true;
  }

  /** The agent's language, or the visitor's; the owner's wording over its texts; `lang` for screen readers. */
  private setLanguage(
    language: string | null | undefined,
    ownerTexts: Record<string, string> | null | undefined,
  ): void {
    this.lang = pickLanguage(language === 'auto' ? null : language, browserLanguages());
    this.t = textsFor(this.lang, ownerTexts);
    this.more = MORE_TEXTS[this.lang];
    this.root.setAttribute('lang', this.lang);
  }

  private failure(err: unknown): { text: string; retry: boolean } {
    return failureText(err, this.t, this.more, this.lang);
  }

  private build(info: AgentInfo): void {
    this.setLanguage(info.language, info.widget_texts);
    const r = this.root;
    const t = this.t;
    this.info = info;
    r.classList.add(
      `pos-${info.widget_position}`,
      `size-${info.widget_size}`,
      `theme-${info.widget_theme}`,
      `bubble-${info.bubble_style}`,
    );
    // CSSOM setProperty: an invalid value is dropped by the parser, it can never inject rules
    r.style.setProperty('--primary', info.primary_color);
    r.style.setProperty('--secondary', info.secondary_color);
    r.style.setProperty('--accent', info.accent_color);
    r.style.setProperty('--on-primary', textOn(info.primary_color));
    r.style.setProperty('--font', info.font_family);
    r.style.setProperty('--fs', `${info.font_size}px`);
    this.offline = info.status !== 'active';
    this.avatarUrl = httpUrl(info.avatar_url);

    const panelId = `chat-agent-panel-${this.agentId}`;
    if (this.mode === 'embed') {
      this.openLabel = fill(t.open_chat, { name: info.name });
      this.closeLabel = t.close;
      this.launcher = h(
        'button',
        {
          class: 'launcher',
          type: 'button',
          'aria-label': this.openLabel,
          'aria-expanded': 'false',
          'aria-controls': panelId,
          'aria-haspopup': 'dialog',
        },
        [fromTrustedMarkup(ICON_CHAT)],
      );
      if (this.offline) this.launcher.append(h('span', { class: 'dot', 'aria-hidden': 'true' }));
      this.launcher.addEventListener('click', () => this.toggle());
      r.append(this.launcher);
    }

    const logo = httpUrl(info.logo_url);
    this.statusLine = h('span', { class: 'status', text: this.offline ? t.offline : t.online });
    const headerChildren: Node[] = [];
    if (logo) headerChildren.push(h('img', { class: 'logo', src: logo, alt: '', referrerpolicy: 'no-referrer' }));
    headerChildren.push(h('div', { class: 'title' }, [h('h2', { class: 'name', text: info.name }), this.statusLine]));
    const restart = h(
      'button',
      { class: 'icon', type: 'button', 'aria-label': t.new_conversation, title: t.new_conversation },
      [fromTrustedMarkup(ICON_RESTART)],
    );
    restart.addEventListener('click', () => this.restart(info));
    headerChildren.push(restart);
    if (this.mode === 'embed') {
      const close = h('button', { class: 'icon', type: 'button', 'aria-label': t.close, title: t.close }, [
        fromTrustedMarkup(ICON_CLOSE),
      ]);
      close.addEventListener('click', () => this.close());
      headerChildren.push(close);
    }

    this.log = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-label': this.more.messages,
      tabindex: '0',
    });
    this.notice = h('div', { class: 'notice', role: 'alert', hidden: '' });

    this.input = h('textarea', {
      rows: '1',
      'aria-label': withoutEllipsis(t.placeholder),
      placeholder: t.placeholder,
      maxlength: String(MAX_MESSAGE_CHARS),
      enterkeyhint: 'send',
    });
    this.sendButton = h('button', { class: 'send', type: 'submit', 'aria-label': t.send }, [
      fromTrustedMarkup(ICON_SEND),
    ]);
    this.composer = h('form', { class: 'composer' }, [this.input, this.sendButton]);
    this.askPerson = h('button', { class: 'ask-person', type: 'button', text: t.ask_person });
    this.askPerson.addEventListener('click', () => void this.escalate());
    this.composer.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submitMessage();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submitMessage();
      }
    });
    this.input.addEventListener('input', () => this.growInput());

    const branding = info.powered_by_text ?? DEFAULT_BRANDING;
    const label = fill(this.more.chat_with, { name: info.name });
    const attrs: Record<string, string> =
      this.mode === 'embed'
        ? { class: 'panel', id: panelId, role: 'dialog', 'aria-modal': 'true', 'aria-label': label, hidden: '' }
        : { class: 'panel', id: panelId, role: 'main', 'aria-label': label };
    this.panel = h('div', attrs, [h('div', { class: 'header' }, headerChildren), this.log, this.notice]);
    this.panel.addEventListener('keydown', (e) => this.onPanelKey(e));
    r.append(this.panel);
    this.showConversation(info);
    if (branding) this.panel.append(h('div', { class: 'powered', text: branding }));

    if (this.mode === 'page') this.focusFirst();
    // auto_expand opens the window on wide screens only: on a phone it would cover the whole page
    else if (info.auto_expand && window.matchMedia('(min-width: 481px)').matches) this.open(false);
    this.scheduleGreeting(info);
    this.connectLive();
  }

  /**
   * The live stream of this conversation (live handoff): a person's messages and the handoff's
   * changes arrive here. Opened once the conversation exists at the server (its first message),
   * whether the window is open or not, so a person's reply is there the moment it is sent; the
   * browser reconnects by itself, and `ready` repeats what a reconnect or a reload missed. A 404
   * (the conversation is gone) closes it; the next message opens it again.
   */
  private connectLive(): void {
    if (
      this.live ||
      this.offline ||
      typeof EventSource !== 'function' ||
      !this.state.messages.some((m) => m.role === 'user')
    )
      return;
    const session = this.state.session_id;
    const source = new EventSource(this.api.eventsUrl(session));
    this.live = source;
    const data = (e: Event): Record<string, unknown> | null => {
      if (session !== this.state.session_id) return null; // a restarted conversation's late event
      try {
        const parsed: unknown = JSON.parse((e as MessageEvent<string>).data);
        return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    };
    source.addEventListener('ready', (e) => {
      const d = data(e);
      if (!d) return;
      if (d.status === 'escalated') this.markEscalated();
      this.setPerson(d.handled_by === 'person');
      if (Array.isArray(d.messages)) for (const m of d.messages) this.receivePersonMessage(m as PersonMessage);
    });
    source.addEventListener('message', (e) => {
      const d = data(e);
      if (d) this.receivePersonMessage(d as unknown as PersonMessage);
    });
    source.addEventListener('status', (e) => {
      const d = data(e);
      if (!d) return;
      if (d.status === 'escalated') this.markEscalated();
      else if (d.status === 'taken') this.setPerson(true);
      else if (d.status === 'handed_back') this.setPerson(false);
      else if (d.status === 'handoff_timeout') this.handoffTimedOut();
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED && this.live === source) this.live = null;
    });
  }

  private disconnectLive(): void {
    this.live?.close();
    this.live = null;
  }

  /** A note in the transcript, kept with the messages so a reload shows it in its place. */
  private addNote(note: NoteKey): void {
    this.state.messages.push({ role: 'assistant', content: '', note });
    saveState(this.agentId, this.state);
    this.showNote(note);
    this.scrollToEnd(false);
  }

  private showNote(note: NoteKey): void {
    this.log.append(h('p', { class: `note note-${note}`, role: 'status', text: this.t[note] }));
  }

  /** The conversation is escalated: by the visitor's button, or by the agent's keywords. */
  private markEscalated(): void {
    if (this.state.escalated) return;
    this.state.escalated = true;
    this.addNote('asked_person');
    this.updateAskPerson();
  }

  /** A person took the conversation over, or handed it back to the agent: said once per change. */
  private setPerson(on: boolean): void {
    if (!!this.state.person === on) return;
    this.state.person = on;
    if (on)
      this.state.handoff_told = true; // someone came: the timeout's offer no longer applies
    else {
      // handing back ends the escalation (the server's too): the visitor may ask for a person again
      this.state.escalated = false;
      this.state.handoff_told = false;
    }
    this.addNote(on ? 'person_joined' : 'person_left');
    this.updateAskPerson();
  }

  /** Nobody took the escalation in time: said once, with the lead form unless the visitor left their details. */
  private handoffTimedOut(): void {
    if (this.state.handoff_told || this.state.person) return;
    this.state.handoff_told = true;
    this.addNote('handoff_timeout');
    if (this.state.lead_done || this.leadForm) return;
    this.leadWhen = 'after';
    this.leadForm = this.buildLeadForm(this.info, 'after');
    this.log.append(this.leadForm);
    this.scrollToEnd(true);
  }

  /** A person's message from the stream: shown once (`ready` repeats the latest ones). */
  private receivePersonMessage(m: PersonMessage): void {
    if (!m || typeof m.id !== 'string' || !m.id || typeof m.content !== 'string' || m.from_person !== true) return;
    if (this.state.messages.some((x) => x.id === m.id)) return;
    const stored: StoredMessage = { role: 'assistant', content: m.content, id: m.id, from_person: true };
    this.state.messages.push(stored);
    saveState(this.agentId, this.state);
    const stick = this.nearBottom();
    this.addMessage(stored);
    if (stick) this.scrollToEnd(true);
    if (this.mode === 'embed' && !this.isOpen()) this.launcher?.classList.add('unread');
  }

  /**
   * The owner's greeting beside the closed launcher after `greeting_delay_s` seconds: once per
   * visitor session (remembered), only while the window is closed, dismissible.
   */
  private scheduleGreeting(info: AgentInfo): void {
    const text = info.greeting_message?.trim();
    if (this.mode !== 'embed' || this.previewing || !text || this.offline || this.state.greeted) return;
    const delay = Math.min(120, Math.max(1, Number(info.greeting_delay_s) || 5));
    this.greetingTimer = window.setTimeout(() => {
      if (this.isOpen() || this.state.greeted) return;
      this.state.greeted = true;
      saveState(this.agentId, this.state);
      const open = h('button', { class: 'greeting-text', type: 'button', text });
      open.addEventListener('click', () => this.open(true));
      const dismiss = h(
        'button',
        {
          class: 'greeting-close',
          type: 'button',
          'aria-label': this.t.greeting_dismiss,
          title: this.t.greeting_dismiss,
        },
        [fromTrustedMarkup(ICON_CLOSE)],
      );
      dismiss.addEventListener('click', () => this.hideGreeting());
      this.greeting = h('div', { class: 'greeting', role: 'status' }, [open, dismiss]);
      this.root.append(this.greeting);
    }, delay * 1000);
  }

  private hideGreeting(): void {
    window.clearTimeout(this.greetingTimer);
    this.greeting?.remove();
    this.greeting = null;
  }

  /** The owner's starter questions as buttons, while the conversation has no message yet. */
  private showStarters(info: AgentInfo): void {
    this.starters?.remove();
    this.starters = null;
    const questions = (Array.isArray(info.starter_questions) ? info.starter_questions : [])
      .filter((q) => typeof q === 'string' && q.trim())
      .slice(0, 6);
    if (!questions.length || this.state.messages.length || this.offline || this.leadWhen === 'before') return;
    this.starters = h('div', { class: 'starters' });
    for (const q of questions) {
      const button = h('button', { type: 'button', text: q.trim() });
      button.addEventListener('click', () => {
        if (this.busy) return;
        this.input.value = q.trim();
        this.submitMessage();
      });
      this.starters.append(button);
    }
    this.log.append(this.starters);
  }

  /** "Talk to a person": shown once the conversation has begun, until the visitor has asked. */
  private updateAskPerson(): void {
    const show =
      !this.offline &&
      !this.state.escalated &&
      !this.state.person &&
      this.state.messages.length > 0 &&
      this.leadWhen !== 'before';
    if (show && !this.askPerson.isConnected) this.composer.before(this.askPerson);
    else if (!show) this.askPerson.remove();
  }

  private async escalate(): Promise<void> {
    this.askPerson.disabled = true;
    try {
      await this.api.escalate({ session_id: this.state.session_id });
      this.markEscalated();
      this.scrollToEnd(true);
      this.connectLive();
      this.input.focus({ preventScroll: true });
    } catch (err) {
      this.showNotice(this.failure(err).text, null);
    } finally {
      this.askPerson.disabled = false;
    }
  }

  /** Thumbs up and down under an answer the server stored; pressing the pressed one clears it. */
  private feedbackRow(m: StoredMessage): HTMLDivElement {
    const row = h('div', { class: 'feedback' });
    const buttons: Array<[1 | -1, HTMLButtonElement]> = [
      [
        1,
        h(
          'button',
          { type: 'button', class: 'thumb up', 'aria-label': this.t.feedback_up, title: this.t.feedback_up },
          [fromTrustedMarkup(ICON_UP)],
        ),
      ],
      [
        -1,
        h(
          'button',
          { type: 'button', class: 'thumb down', 'aria-label': this.t.feedback_down, title: this.t.feedback_down },
          [fromTrustedMarkup(ICON_DOWN)],
        ),
      ],
    ];
    const paint = () => {
      for (const [v, b] of buttons) b.setAttribute('aria-pressed', String(m.feedback === v));
    };
    for (const [v, b] of buttons) {
      b.addEventListener('click', async () => {
        const next = m.feedback === v ? 0 : v;
        for (const [, x] of buttons) x.disabled = true;
        try {
          await this.api.feedback({ session_id: this.state.session_id, message_id: m.id!, value: next });
          if (next === 0) delete m.feedback;
          else m.feedback = next;
          saveState(this.agentId, this.state);
          paint();
        } catch (err) {
          this.showNotice(this.failure(err).text, null);
        } finally {
          for (const [, x] of buttons) x.disabled = false;
        }
      });
      row.append(b);
    }
    paint();
    return row;
  }

  /**
   * The transcript, then the lead form instead of the message box (asked before the chat), or the
   * message box, with the lead form in the conversation once enough answers have come.
   */
  private showConversation(info: AgentInfo): void {
    this.log.replaceChildren();
    this.addMessage({ role: 'assistant', content: info.welcome_message });
    for (const m of this.state.messages) {
      if (m.note) this.showNote(m.note);
      else this.addMessage(m);
    }
    // a transcript from before notes were kept: the escalation's line at the end, as it was shown
    if (this.state.escalated && !this.state.messages.some((m) => m.note === 'asked_person'))
      this.showNote('asked_person');
    this.composer.remove();
    this.leadForm?.remove();
    this.leadForm = null;
    this.leadWhen = null;
    if (this.leadTiming(info) === 'before') {
      this.leadWhen = 'before';
      this.leadForm = this.buildLeadForm(info, 'before');
      this.notice.before(this.leadForm);
    } else {
      this.notice.after(this.composer);
      this.askLater(info);
    }
    this.showStarters(info);
    this.updateAskPerson();
    this.setDisabled(this.offline);
    if (this.offline) this.showNotice(this.t.error_offline, null);
    else this.hideNotice();
    this.scrollToEnd(true);
  }

  /** Whether the lead form is still to be asked, and when: never, before the chat, or after answers. */
  private leadTiming(info: AgentInfo): 'before' | 'after' | null {
    if (!info.lead_capture_enabled || this.state.lead_done || this.offline) return null;
    // a server from before the timing setting asked first
    return info.lead_form_timing === 'after_messages' ? 'after' : 'before';
  }

  /**
   * With the `after_messages` timing: the lead form at the end of the conversation once the
   * visitor has had N answers, unless they said "Not now" in this conversation. The message box
   * stays; the visitor can go on chatting without answering it.
   */
  private askLater(info: AgentInfo): void {
    if (this.leadForm || this.leadTiming(info) !== 'after' || this.state.lead_skipped) return;
    const after = Math.max(1, Math.floor(Number(info.lead_form_after_messages) || 1));
    if (this.state.answers < after) return;
    this.leadWhen = 'after';
    this.leadForm = this.buildLeadForm(info, 'after');
    this.log.append(this.leadForm);
  }

  private buildLeadForm(info: AgentInfo, when: 'before' | 'after'): HTMLFormElement {
    const t = this.t;
    const later = when === 'after';
    const name = h('input', { name: 'name', type: 'text', required: '', maxlength: '100', autocomplete: 'name' });
    const phone = h('input', {
      name: 'phone',
      type: 'tel',
      required: '',
      minlength: '3',
      maxlength: '50',
      autocomplete: 'tel',
    });
    const error = h('p', { class: 'err', role: 'alert' });
    // the owner's own words win; the language's default phrasing depends on when it is asked
    const own = (key: 'lead_intro' | 'lead_submit') => info.widget_texts?.[key]?.trim();
    const intro = own('lead_intro') || (later ? this.more.lead_intro_later : t.lead_intro);
    const submit = h('button', {
      type: 'submit',
      text: own('lead_submit') || (later ? this.more.lead_submit_later : t.lead_submit),
    });
    const introId = `lead-intro-${when}`;
    const consent = h('p', { class: 'consent', text: info.lead_consent_text?.trim() || t.lead_consent });
    const privacy = httpUrl(info.privacy_policy_url ?? null);
    if (privacy)
      consent.append(
        ' ',
        h('a', { href: privacy, target: '_blank', rel: 'noopener noreferrer', text: t.privacy_policy }),
      );
    const actions = h('div', { class: 'lead-actions' }, [submit]);
    const form = h('form', { class: `lead lead-${when}`, 'aria-labelledby': introId }, [
      h('p', { id: introId, text: intro }),
      h('label', {}, [t.lead_name, name]),
      h('label', {}, [t.lead_phone, phone]),
      error,
      consent,
      actions,
    ]);
    if (later) {
      const skip = h('button', { type: 'button', class: 'skip', text: t.lead_skip });
      skip.addEventListener('click', () => {
        // remembered for this conversation: a reload does not ask again, a new conversation does
        this.state.lead_skipped = true;
        saveState(this.agentId, this.state);
        this.dropLeadForm();
      });
      actions.append(skip);
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.value.trim(), phone: phone.value.trim(), session_id: this.state.session_id };
      if (!body.name) return name.focus();
      if (body.phone.length < 3) {
        error.textContent = t.lead_phone_missing;
        return phone.focus();
      }
      submit.disabled = true;
      error.textContent = '';
      try {
        await this.api.lead(body);
        this.state.lead_done = true;
        this.state.user_name = body.name;
        saveState(this.agentId, this.state);
        if (later) {
          this.dropLeadForm();
          this.log.append(h('p', { class: 'lead-thanks', role: 'status', text: this.more.lead_thanks }));
          this.scrollToEnd(false);
        } else {
          this.showConversation(info);
          this.input.focus({ preventScroll: true });
        }
      } catch (err) {
        error.textContent = err instanceof ApiFailure && err.status === 429 ? this.failure(err).text : t.lead_failed;
        submit.disabled = false;
      }
    });
    return form;
  }

  /** The lead form asked in the conversation goes; the message box gets the focus back. */
  private dropLeadForm(): void {
    const hadFocus = !!this.leadForm?.contains(this.shadow.activeElement);
    this.leadForm?.remove();
    this.leadForm = null;
    this.leadWhen = null;
    if (hadFocus && !this.input.disabled) this.input.focus({ preventScroll: true });
  }

  private restart(info: AgentInfo): void {
    if (this.busy) return;
    this.disconnectLive();
    this.state = freshState();
    saveState(this.agentId, this.state);
    this.showConversation(info);
    this.focusFirst();
  }

  private addMessage(m: StoredMessage): HTMLDivElement {
    const bubble = h('div', { class: 'bubble' });
    const row = h('div', { class: `msg ${m.role}` });
    if (m.role === 'assistant') {
      if (this.avatarUrl)
        row.append(h('img', { class: 'avatar', src: this.avatarUrl, alt: '', referrerpolicy: 'no-referrer' }));
      renderMarkdown(bubble, m.content);
      if (m.sources?.length) bubble.append(this.sourcesList(m.sources));
    } else {
      bubble.textContent = m.content;
    }
    if (m.from_person) {
      row.classList.add('person');
      bubble.prepend(h('span', { class: 'person-label', 'aria-hidden': 'true', text: this.t.person_label }));
    }
    row.prepend(
      h('span', {
        class: 'sr',
        text: m.role === 'user' ? this.more.you_said : m.from_person ? this.more.person_said : this.more.assistant_said,
      }),
    );
    row.append(bubble);
    this.log.append(row);
    if (m.role === 'assistant' && !m.from_person && typeof m.id === 'string' && m.id)
      this.log.append(this.feedbackRow(m));
    return bubble;
  }

  /**
   * "Title, page N" for each place an answer comes from (the source's name when it has no title),
   * a link to the page when it is a web address. The sources may come from localStorage, where a
   * page script could have put anything: every field is checked, and all of it is set as text.
   */
  private sourcesList(sources: CitedSource[]): HTMLElement {
    const list = h('ul');
    const seen = new Set<string>();
    for (const s of sources) {
      if (!s || typeof s !== 'object') continue;
      const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
      const url = str(s.url) || null;
      const page = typeof s.page === 'number' && Number.isInteger(s.page) && s.page > 0 ? s.page : null;
      // one entry per source and place (the server sends one per page; older answers one per source)
      const key = `${str(s.source_id)} ${url ?? ''} ${page ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const href = httpUrl(url);
      const label =
        (str(s.title) || str(s.name) || url || str(s.source_id)) +
        (page !== null ? `, ${fill(this.more.page, { n: page })}` : '');
      list.append(
        h('li', {}, [href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', text: label }) : label]),
      );
    }
    return h('div', { class: 'sources' }, [h('span', { text: this.t.sources }), list]);
  }

  private submitMessage(): void {
    const text = this.input.value.trim();
    if (!text || this.busy || this.offline) return;
    if (text.length > MAX_MESSAGE_CHARS) {
      this.showNotice(this.failure(new ApiFailure(413, '')).text, null);
      return;
    }
    this.input.value = '';
    this.growInput();
    this.starters?.remove();
    this.starters = null;
    this.state.messages.push({ role: 'user', content: text });
    saveState(this.agentId, this.state);
    this.addMessage({ role: 'user', content: text });
    this.updateAskPerson();
    this.scrollToEnd(true);
    void this.turn(text);
  }

  /** One question to the server: typing indicator, streamed answer, or an error with retry. */
  private async turn(text: string): Promise<void> {
    this.busy = true;
    this.hideNotice();
    this.sendButton.disabled = true;
    this.log.setAttribute('aria-busy', 'true');
    const typing = h('div', { class: 'msg assistant' }, [
      h('div', { class: 'bubble typing', role: 'status', 'aria-label': this.more.typing }, [
        h('span'),
        h('span'),
        h('span'),
      ]),
    ]);
    this.log.append(typing);
    this.scrollToEnd(false);

    let bubble: HTMLDivElement | null = null;
    let pending: string | null = null;
    let frame = 0;
    const paint = () => {
      frame = 0;
      if (pending === null) return;
      const stick = this.nearBottom();
      if (!bubble) {
        typing.remove();
        bubble = this.addMessage({ role: 'assistant', content: '' });
      }
      renderMarkdown(bubble, pending);
      pending = null;
      if (stick) this.scrollToEnd(true);
    };
    try {
      const answer = await this.api.chat(
        {
          message: text,
          session_id: this.state.session_id,
          ...(this.state.user_name ? { user_name: this.state.user_name } : {}),
        },
        (soFar) => {
          pending = soFar;
          // one render per frame however fast the deltas come
          if (!frame) frame = requestAnimationFrame(paint);
        },
      );
      if (frame) cancelAnimationFrame(frame);
      const stick = this.nearBottom();
      typing.remove();
      if (answer.session_id && answer.session_id !== this.state.session_id) this.state.session_id = answer.session_id;
      this.connectLive();
      if (answer.handled_by === 'person') {
        // the agent stays silent while a person handles the conversation: their reply comes on the live stream
        this.setPerson(true);
        return;
      }
      if (!bubble) bubble = this.addMessage({ role: 'assistant', content: '' });
      renderMarkdown(bubble, answer.message);
      if (answer.sources?.length) bubble.append(this.sourcesList(answer.sources));
      const stored: StoredMessage = {
        role: 'assistant',
        content: answer.message,
        ...(answer.sources?.length ? { sources: answer.sources } : {}),
      };
      if (typeof answer.message_id === 'string' && answer.message_id) {
        stored.id = answer.message_id;
        bubble.parentElement!.after(this.feedbackRow(stored));
      }
      this.state.messages.push(stored);
      this.state.answers += 1;
      saveState(this.agentId, this.state);
      this.askLater(this.info);
      if (stick) this.scrollToEnd(true);
    } catch (err) {
      if (frame) cancelAnimationFrame(frame);
      typing.remove();
      (bubble as HTMLDivElement | null)?.parentElement?.remove(); // a half answer is not kept: the retry asks again
      const { text: message, retry } = this.failure(err);
      this.showNotice(message, retry ? () => void this.turn(text) : null);
    } finally {
      this.busy = false;
      this.sendButton.disabled = this.offline;
      this.log.setAttribute('aria-busy', 'false');
    }
  }

  private showNotice(message: string, retry: (() => void) | null): void {
    const children: Node[] = [h('span', { text: message })];
    if (retry) {
      const button = h('button', { type: 'button', text: this.t.retry });
      button.addEventListener('click', () => {
        if (!this.busy) retry();
      });
      children.push(button);
    }
    this.notice.replaceChildren(...children);
    this.notice.hidden = false;
  }

  private hideNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  private setDisabled(disabled: boolean): void {
    this.input.disabled = disabled;
    this.sendButton.disabled = disabled;
    this.statusLine.textContent = disabled ? this.t.offline : this.t.online;
  }

  private nearBottom(): boolean {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 48;
  }

  /** Scrolls the message list only (never scrollIntoView, which would move the host page). */
  private scrollToEnd(force: boolean): void {
    if (force || this.nearBottom()) this.log.scrollTop = this.log.scrollHeight;
  }

  private growInput(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight + 2, 120)}px`;
  }

  private isOpen(): boolean {
    return !this.panel.hidden;
  }

  private toggle(): void {
    if (this.isOpen()) this.close();
    else this.open(true);
  }

  open(focus: boolean): void {
    this.hideGreeting();
    this.launcher?.classList.remove('unread');
    this.panel.hidden = false;
    this.root.classList.add('open');
    this.launcher?.setAttribute('aria-expanded', 'true');
    this.launcher?.setAttribute('aria-label', this.closeLabel);
    this.scrollToEnd(true);
    if (focus) this.focusFirst();
  }

  close(): void {
    if (this.mode === 'page') return;
    this.panel.hidden = true;
    this.root.classList.remove('open');
    this.launcher?.setAttribute('aria-expanded', 'false');
    this.launcher?.setAttribute('aria-label', this.openLabel);
    this.launcher?.focus({ preventScroll: true });
  }

  private focusFirst(): void {
    // the form asked before the chat comes first; one asked in the conversation does not take the focus
    const target =
      (this.leadWhen === 'before' ? this.leadForm?.querySelector('input') : null) ??
      (this.input.disabled ? null : this.input) ??
      this.focusable()[0];
    target?.focus({ preventScroll: true });
  }

  private focusable(): HTMLElement[] {
    return Array.from(
      this.panel.querySelectorAll<HTMLElement>('button, input, textarea, a[href], [tabindex]:not([tabindex="-1"])'),
    ).filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
  }

  /** Escape closes; Tab and Shift+Tab cycle inside the open window (focus trap). */
  private onPanelKey(e: KeyboardEvent): void {
    if (e.key === 'Escape' && this.mode === 'embed') {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab' || this.mode !== 'embed') return;
    const items = this.focusable();
    if (!items.length) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = this.shadow.activeElement;
    if (e.shiftKey && (active === first || !this.panel.contains(active))) {
      e.preventDefault();
      last.focus({ preventScroll: true });
    } else if (!e.shiftKey && (active === last || !this.panel.contains(active))) {
      e.preventDefault();
      first.focus({ preventScroll: true });
    }
  }
}
