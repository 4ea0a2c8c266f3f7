import type { AgentInfo } from './api.js';
import { fromTrustedMarkup, h, httpUrl, ICON_CHAT, ICON_CLOSE, ICON_RESTART, ICON_SEND } from './dom.js';
import { fill, type MoreTexts, type Texts } from './i18n.js';
import type { Mode } from './ui.js';

const DEFAULT_BRANDING = 'Powered by Chat Agent';

/** What the window's buttons ask of the widget. */
export interface ChromeHost {
  restart(): void;
  open(focus: boolean): void;
  close(): void;
}

/**
 * The widget's frame: the launcher (embedded only), the window with its header (logo, name,
 * online status, "new conversation", close) and branding line, opening and closing, and the
 * focus trap while it is open as a dialog. What goes inside (`content`) is the caller's.
 */
export class WindowChrome {
  readonly panel: HTMLDivElement;
  private readonly launcher: HTMLButtonElement | null = null;
  private readonly statusLine: HTMLSpanElement;
  /** the launcher's names while the window is closed and open */
  private readonly openLabel: string = '';
  private readonly closeLabel: string = '';

  constructor(
    private readonly root: HTMLElement,
    private readonly shadow: ShadowRoot,
    private readonly mode: Mode,
    panelId: string,
    info: AgentInfo,
    private readonly t: Texts,
    more: MoreTexts,
    offline: boolean,
    private readonly host: ChromeHost,
    content: Node[],
  ) {
    if (mode === 'embed') {
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
      if (offline) this.launcher.append(h('span', { class: 'dot', 'aria-hidden': 'true' }));
      this.launcher.addEventListener('click', () => (this.isOpen() ? host.close() : host.open(true)));
      root.append(this.launcher);
    }

    const logo = httpUrl(info.logo_url);
    this.statusLine = h('span', { class: 'status', text: offline ? t.offline : t.online });
    const headerChildren: Node[] = [];
    if (logo) headerChildren.push(h('img', { class: 'logo', src: logo, alt: '', referrerpolicy: 'no-referrer' }));
    headerChildren.push(h('div', { class: 'title' }, [h('h2', { class: 'name', text: info.name }), this.statusLine]));
    const restart = h(
      'button',
      { class: 'icon', type: 'button', 'aria-label': t.new_conversation, title: t.new_conversation },
      [fromTrustedMarkup(ICON_RESTART)],
    );
    restart.addEventListener('click', () => host.restart());
    headerChildren.push(restart);
    if (mode === 'embed') {
      const close = h('button', { class: 'icon', type: 'button', 'aria-label': t.close, title: t.close }, [
        fromTrustedMarkup(ICON_CLOSE),
      ]);
      close.addEventListener('click', () => host.close());
      headerChildren.push(close);
    }

    const branding = info.powered_by_text ?? DEFAULT_BRANDING;
    const label = fill(more.chat_with, { name: info.name });
    const attrs: Record<string, string> =
      mode === 'embed'
        ? { class: 'panel', id: panelId, role: 'dialog', 'aria-modal': 'true', 'aria-label': label, hidden: '' }
        : { class: 'panel', id: panelId, role: 'main', 'aria-label': label };
    this.panel = h('div', attrs, [h('div', { class: 'header' }, headerChildren), ...content]);
    this.panel.addEventListener('keydown', (e) => this.onKey(e));
    if (branding) this.panel.append(h('div', { class: 'powered', text: branding }));
    root.append(this.panel);
  }

  isOpen(): boolean {
    return !this.panel.hidden;
  }

  /** Opens or closes the window (the launcher gets the focus back when it closes). */
  setOpen(open: boolean): void {
    if (open) this.launcher?.classList.remove('unread');
    this.panel.hidden = !open;
    this.root.classList.toggle('open', open);
    this.launcher?.setAttribute('aria-expanded', String(open));
    this.launcher?.setAttribute('aria-label', open ? this.closeLabel : this.openLabel);
    if (!open) this.launcher?.focus({ preventScroll: true });
  }

  /** Something new in the conversation while the window is closed: a mark on the launcher. */
  markUnread(): void {
    if (this.mode === 'embed' && !this.isOpen()) this.launcher?.classList.add('unread');
  }

  setOnline(online: boolean): void {
    this.statusLine.textContent = online ? this.t.online : this.t.offline;
  }

  focusable(): HTMLElement[] {
    return Array.from(
      this.panel.querySelectorAll<HTMLElement>('button, input, textarea, a[href], [tabindex]:not([tabindex="-1"])'),
    ).filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
  }

  /** Escape closes; Tab and Shift+Tab cycle inside the open window (focus trap). */
  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape' && this.mode === 'embed') {
      e.preventDefault();
      this.host.close();
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

/** The message box and its send button; the caller sends what is typed. */
export class Composer {
  readonly form: HTMLFormElement;
  readonly input: HTMLTextAreaElement;
  readonly sendButton: HTMLButtonElement;

  constructor(t: Texts, maxChars: number, submit: () => void) {
    this.input = h('textarea', {
      rows: '1',
      'aria-label': withoutEllipsis(t.placeholder),
      placeholder: t.placeholder,
      maxlength: String(maxChars),
      enterkeyhint: 'send',
    });
    this.sendButton = h('button', { class: 'send', type: 'submit', 'aria-label': t.send }, [
      fromTrustedMarkup(ICON_SEND),
    ]);
    this.form = h('form', { class: 'composer' }, [this.input, this.sendButton]);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      submit();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        submit();
      }
    });
    this.input.addEventListener('input', () => this.grow());
  }

  grow(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight + 2, 120)}px`;
  }

  setDisabled(disabled: boolean): void {
    this.input.disabled = disabled;
    this.sendButton.disabled = disabled;
  }
}

/** The message box's accessible name: the placeholder without its trailing dots. */
const withoutEllipsis = (text: string) => text.replace(/\s*(?:…|\.{3})\s*$/, '') || text;
