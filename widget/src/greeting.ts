import type { AgentInfo } from './api.js';
import type { WidgetContext } from './context.js';
import { fromTrustedMarkup, h, ICON_CLOSE } from './dom.js';

/**
 * The owner's greeting beside the closed launcher after `greeting_delay_s` seconds: once per
 * visitor session (remembered), only while the window is closed, dismissible.
 */
export class Greeting {
  private bubble: HTMLDivElement | null = null;
  private timer = 0;

  constructor(
    private readonly ctx: WidgetContext,
    /** where the bubble goes (beside the launcher) */
    private readonly root: HTMLElement,
    private readonly isOpen: () => boolean,
    /** the greeting was clicked: the window opens */
    private readonly openWindow: () => void,
  ) {}

  schedule(info: AgentInfo): void {
    const ctx = this.ctx;
    const text = info.greeting_message?.trim();
    if (!text || ctx.offline || ctx.state.greeted) return;
    const delay = Math.min(120, Math.max(1, Number(info.greeting_delay_s) || 5));
    this.timer = window.setTimeout(() => {
      if (this.isOpen() || ctx.state.greeted) return;
      ctx.state.greeted = true;
      ctx.save();
      const open = h('button', { class: 'greeting-text', type: 'button', text });
      open.addEventListener('click', () => this.openWindow());
      const dismiss = h(
        'button',
        {
          class: 'greeting-close',
          type: 'button',
          'aria-label': ctx.t.greeting_dismiss,
          title: ctx.t.greeting_dismiss,
        },
        [fromTrustedMarkup(ICON_CLOSE)],
      );
      dismiss.addEventListener('click', () => this.hide());
      this.bubble = h('div', { class: 'greeting', role: 'status' }, [open, dismiss]);
      this.root.append(this.bubble);
    }, delay * 1000);
  }

  hide(): void {
    window.clearTimeout(this.timer);
    this.bubble?.remove();
    this.bubble = null;
  }
}
