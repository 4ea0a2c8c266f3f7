import { ActionButtons } from './action-buttons.js';
import { actionCard, isActionCard } from './action-card.js';
import { Api, ApiFailure, type AgentInfo } from './api.js';
import { Composer, WindowChrome } from './chrome.js';
import { applyColors } from './colors.js';
import type { WidgetContext } from './context.js';
import { h, httpUrl } from './dom.js';
import { failureText, MAX_MESSAGE_CHARS, type Failure } from './failure.js';
import { feedbackRow } from './feedback.js';
import { Greeting } from './greeting.js';
import { MORE_TEXTS, pickLanguage, textsFor, type Lang, type MoreTexts, type Texts } from './i18n.js';
import type { VisitorIdentity } from './identity.js';
import { LeadForm } from './lead-form.js';
import { LiveHandoff } from './live.js';
import { localeFor } from './opening.js';
import { renderMarkdown } from './markdown.js';
import { Starters } from './starters.js';
import { freshState, loadState, saveState, type StoredMessage, type VisitorState } from './storage.js';
import { CSS } from './styles.js';
import { Transcript } from './transcript.js';

export type Mode = 'embed' | 'page';

/** The visitor's languages, most preferred first (navigator.languages, or navigator.language). */
function browserLanguages(): readonly string[] {
  const nav = typeof navigator === 'undefined' ? null : navigator;
  return nav?.languages?.length ? nav.languages : nav?.language ? [nav.language] : [];
}

/**
 * One agent's chat: composes the window (chrome.ts), the transcript, the lead form, the live
 * handoff, the thumbs (feedback.ts), the starter questions and the greeting, and asks the server
 * the visitor's questions. It is the parts' shared WidgetContext.
 */
export class ChatWidget implements WidgetContext {
  readonly api: Api;
  state: VisitorState;
  t: Texts = textsFor('en', null);
  more: MoreTexts = MORE_TEXTS.en;
  locale = 'en';
  offline = false;
  transcript!: Transcript;
  private lang: Lang = 'en';
  private readonly root: HTMLDivElement;
  private info!: AgentInfo;
  private chrome!: WindowChrome;
  private composer!: Composer;
  private notice!: HTMLDivElement;
  private leadForm!: LeadForm;
  private handoff!: LiveHandoff;
  private starters!: Starters;
  private greeting!: Greeting;
  private actionButtons!: ActionButtons;
  private busy = false;

  constructor(
    private readonly shadow: ShadowRoot,
    origin: string,
    private readonly agentId: string,
    private readonly mode: Mode,
    /** drawn for the admin UI's preview: a new visitor's conversation, nothing read or stored */
    private readonly previewing = false,
    /** the site's signed-in user (data-user-*, identity.ts), sent as `user` with each message */
    readonly identity: VisitorIdentity | null = null,
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

  save(): void {
    saveState(this.agentId, this.state);
  }

  failure(err: unknown): Failure {
    return failureText(err, this.t, this.more, this.lang);
  }

  focusInput(): void {
    if (!this.composer.input.disabled) this.composer.input.focus({ preventScroll: true });
  }

  /** The agent's language, or the visitor's; the owner's wording over its texts; `lang` for screen readers. */
  private setLanguage(
    language: string | null | undefined,
    ownerTexts: Record<string, string> | null | undefined,
  ): void {
    this.lang = pickLanguage(language === 'auto' ? null : language, browserLanguages());
    this.locale = localeFor(this.lang, browserLanguages());
    this.t = textsFor(this.lang, ownerTexts);
    this.more = MORE_TEXTS[this.lang];
    this.root.setAttribute('lang', this.lang);
  }

  private build(info: AgentInfo): void {
    this.setLanguage(info.language, info.widget_texts);
    const r = this.root;
    this.info = info;
    r.classList.add(
      `pos-${info.widget_position}`,
      `size-${info.widget_size}`,
      `theme-${info.widget_theme}`,
      `bubble-${info.bubble_style}`,
    );
    applyColors(r, info);
    // CSSOM setProperty: an invalid value is dropped by the parser, it can never inject rules
    r.style.setProperty('--font', info.font_family);
    r.style.setProperty('--fs', `${info.font_size}px`);
    this.offline = info.status !== 'active';

    this.transcript = new Transcript(this, httpUrl(info.avatar_url));
    this.notice = h('div', { class: 'notice', role: 'alert', hidden: '' });
    this.composer = new Composer(this.t, MAX_MESSAGE_CHARS, () => this.submitMessage());
    this.leadForm = new LeadForm(this, this.shadow, () => this.showConversation(this.info));
    this.handoff = new LiveHandoff(this, {
      composer: this.composer.form,
      leadFirst: () => this.leadForm.when === 'before',
      received: () => this.chrome.markUnread(),
      timedOut: () => this.leadForm.askAfterTimeout(this.info),
    });
    this.starters = new Starters(this, (question) => {
      if (this.busy) return;
      this.composer.input.value = question;
      this.submitMessage();
    });
    this.actionButtons = new ActionButtons(this, (answer) => {
      if (answer.session_id && answer.session_id !== this.state.session_id) this.state.session_id = answer.session_id;
      this.save();
      this.starters.remove();
      this.handoff.connect();
      if (answer.handled_by === 'person') this.handoff.setPerson(true);
      this.handoff.update();
    });
    this.chrome = new WindowChrome(
      r,
      this.shadow,
      this.mode,
      `chat-agent-panel-${this.agentId}`,
      info,
      this.t,
      this.more,
      this.offline,
      { restart: () => this.restart(), open: (focus) => this.open(focus), close: () => this.close() },
      [this.transcript.log, this.notice],
    );
    this.greeting = new Greeting(
      this,
      r,
      () => this.chrome.isOpen(),
      () => this.open(true),
    );
    this.showConversation(info);
    if (!this.previewing) void this.actionButtons.load().then(() => this.showActionButtons());

    if (this.mode === 'page') this.focusFirst();
    // auto_expand opens the window on wide screens only: on a phone it would cover the whole page
    else if (info.auto_expand && window.matchMedia('(min-width: 481px)').matches) this.open(false);
    if (this.mode === 'embed' && !this.previewing) this.greeting.schedule(info);
    this.handoff.connect();
  }

  /**
   * The transcript, then the lead form instead of the message box (asked before the chat), or the
   * message box, with the lead form in the conversation once enough answers have come.
   */
  private showConversation(info: AgentInfo): void {
    this.transcript.render(info.welcome_message);
    this.composer.form.remove();
    this.leadForm.reset();
    if (this.leadForm.timing(info) === 'before') this.leadForm.askBefore(info, this.notice);
    else {
      this.notice.after(this.composer.form);
      this.leadForm.askLater(info);
    }
    this.starters.show(info, this.leadForm.when === 'before');
    this.showActionButtons();
    this.handoff.update();
    this.setDisabled(this.offline);
    if (this.offline) this.showNotice(this.t.error_offline, null);
    else this.hideNotice();
    this.transcript.scrollToEnd(true);
  }

  /** The actions as buttons (no model on the server), under the conversation unless the lead form comes first. */
  private showActionButtons(): void {
    this.actionButtons.show(this.notice, this.leadForm.when === 'before');
  }

  private restart(): void {
    if (this.busy) return;
    this.handoff.disconnect();
    this.state = freshState();
    this.save();
    this.showConversation(this.info);
    this.focusFirst();
  }

  private submitMessage(): void {
    const input = this.composer.input;
    const text = input.value.trim();
    if (!text || this.busy || this.offline) return;
    if (text.length > MAX_MESSAGE_CHARS) {
      this.showNotice(this.failure(new ApiFailure(413, '')).text, null);
      return;
    }
    input.value = '';
    this.composer.grow();
    this.starters.remove();
    this.state.messages.push({ role: 'user', content: text });
    this.save();
    this.transcript.addMessage({ role: 'user', content: text });
    this.handoff.update();
    this.transcript.scrollToEnd(true);
    void this.turn(text);
  }

  /** One question to the server: typing indicator, streamed answer, or an error with retry. */
  private async turn(text: string): Promise<void> {
    const { transcript, composer } = this;
    this.busy = true;
    this.hideNotice();
    composer.sendButton.disabled = true;
    transcript.log.setAttribute('aria-busy', 'true');
    const typing = transcript.typing();
    transcript.scrollToEnd(false);

    let bubble: HTMLDivElement | null = null;
    let pending: string | null = null;
    let frame = 0;
    const paint = () => {
      frame = 0;
      if (pending === null) return;
      const stick = transcript.nearBottom();
      if (!bubble) {
        typing.remove();
        bubble = transcript.addMessage({ role: 'assistant', content: '' });
      }
      renderMarkdown(bubble, pending);
      pending = null;
      if (stick) transcript.scrollToEnd(true);
    };
    try {
      const answer = await this.api.chat(
        {
          message: text,
          session_id: this.state.session_id,
          ...(this.state.user_name ? { user_name: this.state.user_name } : {}),
          ...(this.identity ? { user: this.identity } : {}),
        },
        (soFar) => {
          pending = soFar;
          // one render per frame however fast the deltas come
          if (!frame) frame = requestAnimationFrame(paint);
        },
      );
      if (frame) cancelAnimationFrame(frame);
      const stick = transcript.nearBottom();
      typing.remove();
      if (answer.session_id && answer.session_id !== this.state.session_id) this.state.session_id = answer.session_id;
      this.handoff.connect();
      if (answer.handled_by === 'person') {
        // the agent stays silent while a person handles the conversation: their reply comes on the live stream
        this.handoff.setPerson(true);
        return;
      }
      if (!bubble) bubble = transcript.addMessage({ role: 'assistant', content: '' });
      renderMarkdown(bubble, answer.message);
      if (answer.sources?.length) bubble.append(transcript.sourcesList(answer.sources));
      const stored: StoredMessage = {
        role: 'assistant',
        content: answer.message,
        ...(answer.sources?.length ? { sources: answer.sources } : {}),
        ...(isActionCard(answer.action) ? { action: answer.action } : {}),
      };
      if (typeof answer.message_id === 'string' && answer.message_id) {
        stored.id = answer.message_id;
        bubble.parentElement!.after(feedbackRow(this, stored));
      }
      this.state.messages.push(stored);
      this.state.answers += 1;
      this.save();
      if (stored.action) transcript.log.append(actionCard(this, stored.action, stored));
      this.leadForm.askLater(this.info);
      if (stick) transcript.scrollToEnd(true);
    } catch (err) {
      if (frame) cancelAnimationFrame(frame);
      typing.remove();
      (bubble as HTMLDivElement | null)?.parentElement?.remove(); // a half answer is not kept: the retry asks again
      const { text: message, retry } = this.failure(err);
      this.showNotice(message, retry ? () => void this.turn(text) : null);
    } finally {
      this.busy = false;
      composer.sendButton.disabled = this.offline;
      transcript.log.setAttribute('aria-busy', 'false');
    }
  }

  showNotice(message: string, retry: (() => void) | null): void {
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
    this.composer.setDisabled(disabled);
    this.chrome.setOnline(!disabled);
  }

  open(focus: boolean): void {
    this.greeting.hide();
    this.chrome.setOpen(true);
    this.transcript.scrollToEnd(true);
    if (focus) this.focusFirst();
  }

  close(): void {
    if (this.mode === 'page') return;
    this.chrome.setOpen(false);
  }

  private focusFirst(): void {
    // the form asked before the chat comes first; one asked in the conversation does not take the focus
    const input = this.composer.input;
    const target = this.leadForm.firstField ?? (input.disabled ? null : input) ?? this.chrome.focusable()[0];
    target?.focus({ preventScroll: true });
  }
}
